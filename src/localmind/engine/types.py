"""Plain data that crosses the engine boundary (and the process boundary: all picklable)."""

from __future__ import annotations

import enum
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal, Protocol, runtime_checkable

from localmind.errors import UserFacingError

Role = Literal["system", "user", "assistant", "tool"]
DEVICES = ("auto", "cpu", "cuda", "dml", "coreml")
MAX_TOP_LOGPROBS = 20


@dataclass(frozen=True)
class ToolCall:
    """A call of one of the turn's tools, as the model wrote it (``arguments``: its JSON text)."""

    id: str
    name: str
    arguments: str


@dataclass(frozen=True)
class ChatMessage:
    role: Role
    content: str
    # An assistant turn that called tools (rendered through the template's own tool-call form), and a ``tool``
    # turn's answer to one of them (engine/tools.py).
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    name: str | None = None


@dataclass(frozen=True)
class GenerationOptions:
    """Sampling and length settings for one turn. ``temperature == 0`` is greedy."""

    temperature: float = 0.7
    top_p: float = 0.9
    top_k: int = 40
    repetition_penalty: float = 1.1
    max_new_tokens: int = 1024
    seed: int | None = None
    min_new_tokens: int = 0  # the end-of-turn token is masked until this many (benchmarks force a length)
    thinking: bool | None = None  # reasoning models whose template reads enable_thinking (Qwen3); None: its default
    submitted_at: float | None = None  # time.time() of the user's send (Enter): stats count from there
    # The reply must be JSON valid against this JSON schema (its text): og's constrained decoding masks every
    # token the schema does not allow. min_new_tokens does not apply to such a turn.
    json_schema: str | None = None
    # A conversation longer than the context: drop its oldest messages (the window's policy; the turn's stats say
    # how many) or, when False, refuse it with ContextLengthExceededError (an API client must be told).
    drop_oldest: bool = True
    # Tools the model may call (OpenAI's ``tools`` list as JSON text; engine/tools.py) and whether it must:
    # "auto" (parse what it writes), "none" (tools not rendered), "required" (constrained to a call of one of
    # them), or "function" with ``tool_name`` (constrained to a call of that one).
    tools: str | None = None
    tool_choice: Literal["auto", "none", "required", "function"] = "auto"
    tool_name: str | None = None
    # Per generated token: its log-probability (and the ``top_logprobs`` likeliest alternatives) in the
    # distribution it was drawn from: the logits after logit_bias and the repetition penalty, before temperature,
    # top-k and top-p (docs/api.md). Carried in TextDelta.logprobs.
    logprobs: bool = False
    top_logprobs: int = 0
    logit_bias: tuple[tuple[int, float], ...] = ()  # (token id, added to its logit before sampling)
    # A prompt read as it is, without the chat template (the messages are not used): token ids, or text; with
    # ``suffix`` the text is the prefix of a fill-in-the-middle prompt (tokenizers with FIM tokens only).
    prompt_token_ids: tuple[int, ...] | None = None
    raw_prompt: str | None = None
    suffix: str | None = None

    def validate(self) -> None:
        if not 0.0 <= self.temperature <= 5.0:
            raise UserFacingError.say("Temperature must be between 0 and 5 (got {value}).", value=self.temperature)
        if not 0.0 < self.top_p <= 1.0:
            raise UserFacingError.say("Top-p must be above 0 and at most 1 (got {value}).", value=self.top_p)
        if self.top_k < 0:
            raise UserFacingError.say("Top-k must be 0 (off) or more (got {value}).", value=self.top_k)
        if not 0.5 <= self.repetition_penalty <= 2.0:
            raise UserFacingError.say(
                "Repetition penalty must be between 0.5 and 2 (got {value}).", value=self.repetition_penalty
            )
        if self.max_new_tokens < 1:
            raise UserFacingError.say("Max new tokens must be at least 1 (got {value}).", value=self.max_new_tokens)
        if not 0 <= self.min_new_tokens <= self.max_new_tokens:
            raise UserFacingError.say(
                "Min new tokens must be between 0 and max new tokens (got {value}).", value=self.min_new_tokens
            )
        if not 0 <= self.top_logprobs <= MAX_TOP_LOGPROBS:
            raise UserFacingError.say(
                "top_logprobs must be between 0 and {most} (got {value}).",
                most=MAX_TOP_LOGPROBS,
                value=self.top_logprobs,
            )
        if self.tool_choice == "function" and not self.tool_name:
            raise UserFacingError.say("A tool choice of a function must name the function.")


def choice_options(options: GenerationOptions, index: int) -> GenerationOptions:
    """The options of choice ``index`` of n (OpenAI's ``n``): choices are sequential turns on the same prompt, which
    the KV cache reads once (each later choice rewinds to the prompt's end and reads only its last token again);
    a seeded request gives each choice its own seed (seed + index), so they differ and repeat."""
    if index == 0 or options.seed is None:
        return options
    return replace(options, seed=options.seed + index)


@dataclass(frozen=True)
class LoadOptions:
    device: str = "auto"
    threads: int | None = None  # None: one per physical core
    context_budget: int | None = None  # None: min(model context, 4096)
    prefill_chunk: int = 128
    variant: str | None = None  # onnx-community folders: "q4", "fp16", ... (None: the best for the device)
    # One turn and done (``localmind chat --prompt``): og's KV buffer is sized to that turn's prompt and reply
    # instead of the whole context budget (og allocates it up front: time and memory at every start).
    single_turn: bool = False
    # ``localmind serve``: the first turn's KV buffer is sized to that turn, so the request that wakes a scale-to-zero
    # host does not wait for the whole budget's buffer (0.1-0.6 s here); the engine reserves it after that turn
    # (``LocalEngine.reserve_kv``), reading what the cache holds into it.
    kv_after_first_turn: bool = False


class FinishReason(str, enum.Enum):
    END_OF_TURN = "end_of_turn"
    LENGTH = "length"  # max new tokens or the context budget
    CANCELLED = "cancelled"
    ERROR = "error"


@dataclass(frozen=True)
class LoadInfo:
    model_dir: str
    model_name: str
    model_type: str
    device: str  # the device actually in use: "cpu", "cuda", "dml", "coreml"
    fallback_reasons: tuple[tuple[str, str], ...] = ()  # (device, why it was not used)
    context_length: int = 0  # the model's own
    context_budget: int = 0  # what LocalMind allocates
    threads: int = 0
    has_chat_template: bool = True
    thinking_switch: bool = False  # the chat template can turn thinking on and off (GenerationOptions.thinking)
    load_s: float = 0.0
    warnings: tuple[str, ...] = field(default_factory=tuple)
    memory_bytes: int = 0  # the engine process's resident memory right after the load (0: unknown)
    # Memory og's KV cache takes per token of context (0: unknown); the context budget's worth is reserved when
    # the first message is read.
    kv_bytes_per_token: int = 0


@dataclass(frozen=True)
class TurnStats:
    prompt_tokens: int = 0
    reused_tokens: int = 0  # prompt tokens that were already in the KV cache
    generated_tokens: int = 0
    time_to_first_token_s: float = 0.0
    tokens_per_second: float = 0.0
    total_s: float = 0.0
    context_tokens: int = 0  # tokens in the cache when the turn ended
    context_budget: int = 0
    dropped_messages: int = 0  # oldest messages left out to fit the budget


@dataclass(frozen=True)
class TokenLogprob:
    """One generated token's log-probability and its likeliest alternatives ((token text, logprob), best first)."""

    token: str
    logprob: float
    bytes: tuple[int, ...] = ()
    top: tuple[tuple[str, float, tuple[int, ...]], ...] = ()  # (token text, logprob, its UTF-8 bytes)


@dataclass(frozen=True)
class TextDelta:
    text: str  # always whole characters
    logprobs: tuple[TokenLogprob, ...] = ()  # the tokens that made this text (GenerationOptions.logprobs)


@dataclass(frozen=True)
class TurnFinished:
    reason: FinishReason
    stats: TurnStats
    error: str | None = None
    # Set when the engine had to reload the model during the turn (the GPU failed on its first forward pass
    # and the turn ran on the CPU): the model as it is now, with a warning that says so.
    reloaded: LoadInfo | None = None
    # The tools the model called (a turn with GenerationOptions.tools); their text was not streamed as content.
    tool_calls: tuple[ToolCall, ...] = ()


StreamEvent = TextDelta | TurnFinished


class TranslatableError(UserFacingError):
    """A user-facing error of the engine; ``say`` (on UserFacingError) keeps its English source texts and values
    so the window can show it in the user's language (they cross the engine's process as plain data)."""


class EngineError(TranslatableError):
    """Generation could not run; the message says why and what to do."""


class ModelLoadError(TranslatableError):
    """A model folder could not be loaded; the message names the file and the problem."""


class PromptTooLongError(EngineError):
    """A single message does not fit in the context budget."""


class ContextLengthExceededError(PromptTooLongError):
    """The conversation does not fit the context with room for the reply, and dropping its oldest messages was
    not allowed (``GenerationOptions.drop_oldest=False``). The counts are for the API's 400 answer."""

    prompt_tokens: int = 0  # the whole conversation's prompt
    max_context: int = 0  # the context budget
    max_tokens: int = 0  # the reply's maximum length asked for
    reply_reserve: int = 0  # the room the engine keeps for the reply (at most max_tokens)


class GrammarError(EngineError):
    """A JSON schema (or grammar) the engine cannot enforce: the message says what in it."""


class ChatEngine(Protocol):
    """What the worker and the terminal need from an engine."""

    def load(self, model_dir: str, options: LoadOptions) -> LoadInfo: ...

    def unload(self) -> None: ...

    def generate(self, messages: Sequence[ChatMessage], options: GenerationOptions) -> Iterator[StreamEvent]: ...

    def cancel(self) -> None:
        """Ask the running turn to stop; safe to call from any thread."""

    def count_tokens(self, messages: Sequence[ChatMessage]) -> int: ...

    def close(self) -> None: ...


@runtime_checkable
class ReadsAhead(Protocol):
    """An engine that can read a conversation into its cache ahead of a turn (type-ahead, documents read-ahead,
    warm reopen), and stop such a read at its next chunk from any thread."""

    def typeahead_epoch(self) -> int:
        """The current read epoch; a read started under an older one stops at its next chunk."""

    def preempt_prefill(self) -> None:
        """Move the epoch on: the read in flight stops at its next chunk. Any thread."""

    def prefill(
        self, messages: Sequence[ChatMessage], draft: str = "", epoch: int | None = None, whole: bool = False
    ) -> int:
        """Read ``messages`` and ``draft`` (see LocalEngine.prefill); returns the tokens now in the cache."""


@runtime_checkable
class Recovers(Protocol):
    """An engine that restarts itself (a crash, a frozen child) and says when it cannot answer."""

    def health(self) -> str | None:
        """Why it cannot answer now (the model is not loaded, it is frozen); None when it can."""

    def reload_due(self) -> bool:
        """A reload after a restart failed and its pause is over: ``heal`` should try again."""

    def heal(self) -> None:
        """Try that reload again now."""
