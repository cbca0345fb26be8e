"""What the model reads: chat templates, thinking, which history fits the context, and where passages go.

The prompt builder knows the tokenizer and the template; it holds no KV state. Every method is a pure function of
the messages, the template and the context window, so it can be tested without a Generator (only a tokenizer).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from localmind.engine.formats.thinking import strip_thinking, supports_thinking_switch, with_thinking
from localmind.engine.tools import ToolSpec, message_payload, template_takes_tools
from localmind.engine.types import (
    ChatMessage,
    ContextLengthExceededError,
    EngineError,
    GenerationOptions,
    PromptTooLongError,
)

DEFAULT_CONTEXT_BUDGET = 4096
MIN_REPLY_RESERVE = 32
# The word being typed (after the draft's last space or line break) is never read ahead: it will still change. A
# finished word is: the tokenizers here attach the space to the next word, so its tokens stay what they are, and the
# send compares tokens anyway. (A margin of 6 characters more left one more word to read after Enter: issue 12.)
DRAFT_MARGIN_CHARS = 0
_SURROGATE = re.compile("[\ud800-\udfff]")  # never valid alone in text, and og's tokenizer takes UTF-8 only
DRAFT_MARK = "\ue000\ue001\ue002"  # private-use characters: where the template puts the user's text

# Used when a model ships no chat template. ChatML is what most small chat models were tuned on.
FALLBACK_TEMPLATE = (
    "{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>\\n' }}"
    "{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
)

_P = TypeVar("_P")

# Fill-in-the-middle: the special tokens of the tokenizers that have them, (prefix, suffix, middle), read in
# prefix-suffix-middle order (Qwen2.5-Coder / StarCoder; DeepSeek-Coder names them begin, hole, end).
FIM_FORMS = (
    ("<|fim_prefix|>", "<|fim_suffix|>", "<|fim_middle|>"),
    ("<fim_prefix>", "<fim_suffix>", "<fim_middle>"),
    ("<\uff5cfim\u2581begin\uff5c>", "<\uff5cfim\u2581hole\uff5c>", "<\uff5cfim\u2581end\uff5c>"),
)
# A raw prompt's text in the KV cache's record: private-use characters no template writes first, then its ids,
# so a raw prompt read again (n > 1) reuses the cache and a chat prompt never shares a prefix with it.
RAW_MARK, RAW_END = "\ue010", "\ue011"


@dataclass
class ContextWindow:
    """The context LocalMind allows a conversation (og's max_length), shared by the prompt builder, the KV cache
    and the turn runner: one place to change it."""

    budget: int = 0
    min_reply_reserve: int = MIN_REPLY_RESERVE

    def reply_reserve(self, max_new_tokens: int) -> int:
        """Room kept for the answer when fitting a prompt: a quarter of the context at most, never below the minimum."""
        return max(self.min_reply_reserve, min(max_new_tokens, self.budget // 4))


@dataclass(frozen=True)
class FittedPrompt:
    messages: list[ChatMessage]  # the messages kept
    text: str  # the prompt as the model reads it
    tokens: int  # its token count
    dropped: int  # oldest messages left out to fit


@dataclass(frozen=True)
class FittedPassages(Generic[_P]):
    """Passages chosen to fit what the context has left; ``used`` of ``offered`` made it (some maybe shortened)."""

    passages: list[_P]
    used: int
    offered: int
    shortened: int


def safe_draft(draft: str, margin: int = DRAFT_MARGIN_CHARS) -> str:
    """The part of a message still being typed that is worth reading ahead: up to the last whitespace at
    least ``margin`` characters before its end (a word may still grow, and its tokens with it)."""
    limit = len(draft) - margin
    if limit <= 0:
        return ""
    cut = max(draft.rfind(" ", 0, limit + 1), draft.rfind("\n", 0, limit + 1))
    return draft[:cut] if cut > 0 else ""


def automatic_bos(tokenizer: Any) -> int | None:
    """The BOS id if ``tokenizer.encode`` puts one in front of any text by itself, else None."""
    try:
        bos = int(tokenizer.bos_token_id)
        probe = [int(t) for t in tokenizer.encode("a")]
    except Exception:
        return None
    return bos if bos >= 0 and len(probe) >= 2 and probe[0] == bos else None


def valid_text(text: str) -> str:
    """``text`` as the tokenizer can take it: a lone UTF-16 surrogate (a JSON ``\\ud800`` escape from an API client,
    or a byte that is not UTF-8 read from a pipe) becomes U+FFFD. og takes UTF-8 only and refused the whole
    message with a binding error."""
    return _SURROGATE.sub("\ufffd", text)


def order_passages(previous: Sequence[_P], new: Sequence[_P]) -> list[_P]:
    """The order to put ``new`` passages in a prompt read ahead before as ``previous``: the longest stable prefix.

    Passages of ``previous`` that are still among ``new`` keep their relative order, up to the first that is gone
    (everything before it is text the KV cache already holds); the rest follow in ``new``'s order (its ranking).
    So a search that finds the same passages gives the same prompt, and one that finds one more only appends it.
    """
    wanted = list(new)
    kept: list[_P] = []
    for passage in previous:
        if passage not in wanted or passage in kept:
            break
        kept.append(passage)
    return kept + [p for p in wanted if p not in kept]


class PromptBuilder:
    """Renders conversations with the model's template and fits them into the context window."""

    def __init__(self, window: ContextWindow) -> None:
        self.window = window
        self.tokenizer: Any = None
        self.template: str = FALLBACK_TEMPLATE
        self.thinking: bool | None = None  # the turn's choice, for templates that read enable_thinking
        self.bos: int | None = None  # set when the tokenizer puts a BOS in front of every encode (Llama 3)
        self.tools: list[ToolSpec] | None = None  # the turn's tools (engine/tools.py), rendered with the messages

    def attach(self, tokenizer: Any, template: str | None) -> None:
        self.tokenizer = tokenizer
        self.template = template or FALLBACK_TEMPLATE
        self.bos = automatic_bos(tokenizer) if tokenizer is not None else None

    # -- text and tokens -----------------------------------------------------------------------------------------
    def render(self, messages: Sequence[ChatMessage], add_generation_prompt: bool = True) -> str:
        # Earlier answers go back without their <think> part, as reasoning models' templates intend.
        template = self.template
        takes_tools = template_takes_tools(template)
        payload = valid_text(
            json.dumps(message_payload(messages, self.tools, takes_tools, strip_thinking), ensure_ascii=False)
        )
        if self.thinking is not None and supports_thinking_switch(template):
            template = with_thinking(template, self.thinking)
        extra: dict[str, str] = {}
        if self.tools and takes_tools:
            extra["tools"] = valid_text(json.dumps([t.as_openai() for t in self.tools], ensure_ascii=False))
        try:
            return str(
                self.tokenizer.apply_chat_template(
                    payload, template_str=template, add_generation_prompt=add_generation_prompt, **extra
                )
            )
        except Exception as exc:
            raise EngineError.say(
                "The model's chat template could not format this conversation: {reason}", reason=exc
            ) from exc

    def encode(self, text: str, *, at_start: bool = True) -> list[int]:
        """Tokens for ``text``; ``at_start=False`` for a piece that continues a prompt.

        A tokenizer that puts a BOS in front of every encode (Llama 3 style) would put one in the middle of
        the context for every piece encoded on its own, and a second one at the start when the template
        already writes it: only the first piece keeps one, and never two.
        """
        if not text:
            return []
        ids = [int(t) for t in self.tokenizer.encode(valid_text(text))]
        bos = self.bos
        if bos is not None and ids[:1] == [bos] and (not at_start or ids[1:2] == [bos]):
            del ids[0]
        return ids

    def encode_piece(self, text: str, at_start: bool) -> list[int]:
        """``encode`` for the KV cache's plan: a piece of a prompt, at its start or not."""
        return self.encode(text, at_start=at_start)

    def count(self, messages: Sequence[ChatMessage]) -> int:
        return len(self.encode(self.render(messages)))

    def message_ends(self, messages: Sequence[ChatMessage], prompt: str) -> list[int]:
        """Text offsets in ``prompt`` where each message ends, where the template allows knowing it.

        The prompt is encoded piece by piece between these offsets, so each one is a point where text and
        tokens line up: an edit or a regenerate can rewind there instead of re-reading the whole history.
        """
        ends: list[int] = []
        for k in range(1, len(messages)):
            try:
                head = self.render(messages[:k], add_generation_prompt=False)
            except EngineError:
                continue  # some templates refuse a history that ends on a user or system turn
            if head and prompt.startswith(head) and (not ends or len(head) > ends[-1]):
                ends.append(len(head))
        ends.append(len(prompt))
        return ends

    # -- prompts read without the template (completions) ----------------------------------------------------------
    def special_token(self, text: str) -> int | None:
        """The id of ``text`` when the tokenizer has it as one token of its own (a special token), else None."""
        try:
            ids = [int(t) for t in self.tokenizer.encode(text)]
        except Exception:
            return None
        if self.bos is not None and ids[:1] == [self.bos] and len(ids) > 1:
            ids = ids[1:]
        return ids[0] if len(ids) == 1 else None

    def fim_tokens(self) -> tuple[int, int, int] | None:
        """(prefix, suffix, middle) ids of the tokenizer's fill-in-the-middle tokens; None when it has none."""
        for form in FIM_FORMS:
            ids = [self.special_token(t) for t in form]
            if all(i is not None for i in ids):
                prefix, suffix, middle = ids
                assert prefix is not None and suffix is not None and middle is not None
                return prefix, suffix, middle
        return None

    def raw_tokens(self, options: GenerationOptions) -> list[int] | None:
        """The tokens of a prompt read as it is (token ids, text, or a fill-in-the-middle prefix and suffix);
        None for a chat turn (the template renders the messages)."""
        if options.prompt_token_ids is not None:
            if options.suffix is not None:
                raise EngineError.say(
                    "suffix needs a text prompt (fill-in-the-middle), not token ids.", "Send the prompt as text."
                )
            return list(options.prompt_token_ids)
        if options.suffix is None:
            return None if options.raw_prompt is None else self.encode(options.raw_prompt)
        fim = self.fim_tokens()
        if fim is None:
            raise EngineError.say(
                "suffix is not supported by this model: its tokenizer has no fill-in-the-middle tokens.",
                "Leave out suffix, or use a code model with fill-in-the-middle (such as Qwen2.5-Coder).",
            )
        prefix, suffix, middle = fim
        head = [self.bos] if self.bos is not None else []
        return [
            *head,
            prefix,
            *self.encode(options.raw_prompt or "", at_start=False),
            suffix,
            *self.encode(options.suffix, at_start=False),
            middle,
        ]

    # -- fitting the context -------------------------------------------------------------------------------------
    def fit(self, messages: Sequence[ChatMessage], options: GenerationOptions) -> FittedPrompt:
        """Render the prompt, dropping the oldest turns (never the system prompt) until it fits with room for the
        reply — or, with ``options.drop_oldest`` off, refuse a conversation that does not fit as it is."""
        budget = self.window.budget
        reserve = self.window.reply_reserve(options.max_new_tokens)
        system = [m for m in messages[:1] if m.role == "system"]
        rest = list(messages[len(system) :])
        dropped = 0
        while True:
            text = self.render(system + rest)
            count = len(self.encode(text))
            if count + reserve <= budget:
                return FittedPrompt(system + rest, text, count, dropped)
            if not options.drop_oldest:
                raise context_exceeded(count, budget, options.max_new_tokens, reserve)
            if len(rest) <= 1:
                break
            # Drop the oldest message, and keep dropping until the history starts with a user turn.
            rest.pop(0)
            dropped += 1
            while len(rest) > 1 and rest[0].role != "user":
                rest.pop(0)
                dropped += 1
        if count + self.window.min_reply_reserve <= budget:
            return FittedPrompt(system + rest, text, count, dropped)
        raise PromptTooLongError.say(
            "This message is too long for the model's context: it needs {count} tokens "
            "but the context holds {budget} (with room for a reply).",
            "Shorten the message or the system prompt, or raise the context size in Settings.",
            count=f"{count:,}",
            budget=f"{budget:,}",
        )

    def draft_prompt(self, history: Sequence[ChatMessage], draft: str, whole: bool) -> tuple[str, list[int]] | None:
        """The text type-ahead reads for a message still being typed, and the offsets of its pieces (message ends);
        None when the template gives nothing stable to read ahead."""
        probe = [*history, ChatMessage("user", DRAFT_MARK)]
        try:
            rendered = self.render(probe)
        except EngineError:
            return None
        at = rendered.find(DRAFT_MARK)
        if at < 0:
            return None
        text = rendered[:at] + safe_draft(draft)
        ends = [end for end in self.message_ends(probe, rendered) if end <= at]
        if whole and draft.strip():
            try:
                text = self.render([*history, ChatMessage("user", draft)])  # the prompt a send now would read
            except EngineError:
                return None
            if not text.startswith(rendered[:at]):
                return None  # a template that changes earlier turns with the last: not worth it
        ends.append(len(text))
        return text, ends

    def fit_passages(
        self,
        history: Sequence[ChatMessage],
        passages: Sequence[_P],
        compose: Callable[[Sequence[_P]], str],
        shorten: Callable[[_P, float], _P | None] | None = None,
        max_new_tokens: int = 0,
    ) -> FittedPassages[_P]:
        """As many of ``passages`` (best first) as the context has room for after ``history`` (the conversation,
        its system part included), the question and room for the answer (``max_new_tokens``, as ``fit`` keeps it);
        ``compose(chosen)`` is the user's turn with them and the question. Never raises for the passages."""
        reserve = self.window.reply_reserve(max_new_tokens) if max_new_tokens else self.window.min_reply_reserve

        def fits(turn: str) -> bool:
            return self.count([*history, ChatMessage("user", turn)]) + reserve <= self.window.budget

        return choose_passages(passages, compose, fits, shorten)


def choose_passages(
    passages: Sequence[_P],
    compose: Callable[[Sequence[_P]], str],
    fits: Callable[[str], bool],
    shorten: Callable[[_P, float], _P | None] | None = None,
) -> FittedPassages[_P]:
    """The passages (best first) whose turn ``compose(chosen)`` still ``fits``: each one whole if it fits, else
    the longest cut of it ``shorten(passage, fraction)`` gives that fits (and no more after it: the context is
    full), else left out. Bounded: at most 7 ``fits`` calls per passage. With none fitting, none are used."""
    chosen: list[_P] = []
    shortened = 0
    for passage in passages:
        if fits(compose([*chosen, passage])):
            chosen.append(passage)
            continue
        short = _longest_cut(chosen, passage, compose, fits, shorten) if shorten is not None else None
        if short is not None:
            chosen.append(short)
            shortened += 1
            break
    return FittedPassages(chosen, len(chosen), len(passages), shortened)


def _longest_cut(
    chosen: list[_P],
    passage: _P,
    compose: Callable[[Sequence[_P]], str],
    fits: Callable[[str], bool],
    shorten: Callable[[_P, float], _P | None],
) -> _P | None:
    """The longest cut of ``passage`` that fits (bisecting: 6 tries, a cut within 1/64 of the passage)."""
    best: _P | None = None
    low, high = 0.0, 1.0
    for _ in range(6):
        middle = (low + high) / 2
        short = shorten(passage, middle)
        if short is not None and fits(compose([*chosen, short])):
            best, low = short, middle
        else:
            high = middle
    return best


def context_exceeded(prompt_tokens: int, budget: int, max_tokens: int, reserve: int) -> ContextLengthExceededError:
    error = ContextLengthExceededError.say(
        "This conversation is too long for the model's context: it needs {count} tokens and {reserve} more for "
        "the reply, but the context holds {budget}.",
        "Shorten the conversation or lower the reply's maximum length.",
        count=f"{prompt_tokens:,}",
        reserve=f"{reserve:,}",
        budget=f"{budget:,}",
    )
    error.prompt_tokens, error.max_context, error.max_tokens, error.reply_reserve = (
        prompt_tokens,
        budget,
        max_tokens,
        reserve,
    )
    return error


__all__ = [
    "DEFAULT_CONTEXT_BUDGET",
    "FALLBACK_TEMPLATE",
    "FIM_FORMS",
    "RAW_END",
    "RAW_MARK",
    "ContextWindow",
    "FittedPassages",
    "FittedPrompt",
    "PromptBuilder",
    "choose_passages",
    "context_exceeded",
    "order_passages",
    "safe_draft",
]
