"""The engine proper: og's Generator driven token by token, in this process.

Why the classic Generator and not og's Engine API: the Engine API prefills a
whole prompt in one uninterruptible call (2 s for 1,000 tokens on a 135M
model, 9 s on 0.6B) and its ``rewind_to_start_of_turn`` drops the cache and
re-prefills everything. With the Generator LocalMind prefills in chunks (a
cancel point every chunk, and bounded logits memory), rewinds to any token
for free, and samples itself so every turn can have its own settings. The
Generator holds the GIL during a forward pass, so the window runs this engine
in a child process (see ``process.py``); the terminal uses it directly.

KV reuse: the engine remembers the text its cache holds and where tokens and
text line up (the end of each prompt and of each reply). The next prompt is
compared as text; the cache is rewound to the last aligned point inside the
common prefix and only the rest is encoded and prefilled. So the next turn of
a chat prefills just the new message; regenerate and edit rewind to the right
place; another conversation shares at most its identical beginning.
"""

from __future__ import annotations

import bisect
import dataclasses
import json
import os
import re
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from localmind.engine import winml
from localmind.engine.devices import (
    DEVICE_LABELS,
    ModelFactory,
    configure_and_load,
    is_device_problem,
    load_with_fallback,
    physical_cores,
    remember_failure,
)
from localmind.engine.formats.thinking import strip_thinking, supports_thinking_switch, with_thinking
from localmind.engine.memory import resident_bytes
from localmind.engine.sampling import Sampler
from localmind.engine.types import (
    ChatMessage,
    EngineError,
    FinishReason,
    GenerationOptions,
    GrammarError,
    LoadInfo,
    LoadOptions,
    ModelLoadError,
    PromptTooLongError,
    StreamEvent,
    TextDelta,
    TurnFinished,
    TurnStats,
)
from localmind.engine.validate import ModelFolder, check_tokenizer_file, explain_og_error, validate_model_folder
from localmind.errors import Phrase

os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")

DEFAULT_CONTEXT_BUDGET = 4096
MIN_REPLY_RESERVE = 32
SPECULATIVE_CHUNK = 16  # tokens per type-ahead forward pass: a send waits for at most one of these
# More than this left to read ahead (a paste, a reopened chat): full-size chunks until this much is left. Small chunks
# re-read the weights per 16 tokens, and a send would have to read those tokens anyway (on a busy CPU the Qwen3 shape
# read 772 of a 2,000-token paste in 53 s of typing in 16-token chunks: issue 12).
SPECULATIVE_BACKLOG = 256
# The word being typed (after the draft's last space or line break) is never read ahead: it will still change. A
# finished word is: the tokenizers here attach the space to the next word, so its tokens stay what they are, and the
# send compares tokens anyway. (A margin of 6 characters more left one more word to read after Enter: issue 12.)
DRAFT_MARGIN_CHARS = 0
_SURROGATE = re.compile("[\ud800-\udfff]")  # never valid alone in text, and og's tokenizer takes UTF-8 only
_DRAFT_MARK = "\ue000\ue001\ue002"  # private-use characters: where the template puts the user's text

# Used when a model ships no chat template. ChatML is what most small chat models were tuned on.
FALLBACK_TEMPLATE = (
    "{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>\\n' }}"
    "{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
)


class _Counter:
    value = 0


class CancelFlag(Protocol):
    def set(self) -> None: ...
    def clear(self) -> None: ...
    def is_set(self) -> bool: ...


@dataclass
class _Cache:
    """What the KV cache holds: tokens, the text they stand for, and where the two line up."""

    tokens: list[int] = field(default_factory=list)
    text: str = ""
    # Parallel, strictly increasing: text offsets and token counts where text and tokens align.
    text_marks: list[int] = field(default_factory=lambda: [0])
    token_marks: list[int] = field(default_factory=lambda: [0])
    # The model's next-token logits after the last token, kept when type-ahead read a whole prompt (the user's
    # message and the reply header): a send of exactly that prompt samples its first token from them instead of
    # reading its last token again. Any change to the tokens forgets them.
    next_logits: Any = None

    def mark(self) -> None:
        if self.text_marks[-1] != len(self.text) or self.token_marks[-1] != len(self.tokens):
            self.text_marks.append(len(self.text))
            self.token_marks.append(len(self.tokens))

    def reusable_prefix(self, prompt: str) -> tuple[int, int]:
        """(text offset, token count) of the longest aligned prefix of ``prompt`` already cached."""
        common = _common_prefix_length(self.text, prompt)
        i = bisect.bisect_right(self.text_marks, common) - 1
        return self.text_marks[i], self.token_marks[i]

    def truncate(self, text_len: int, token_count: int, keep: int = 0) -> None:
        """Keep the text and tokens up to an aligned point, plus ``keep`` unmarked tokens after it."""
        i = bisect.bisect_right(self.token_marks, token_count)
        del self.text_marks[i:], self.token_marks[i:]
        if token_count + keep < len(self.tokens):
            self.next_logits = None
        del self.tokens[token_count + keep :]
        self.text = self.text[:text_len]
        if self.text_marks[-1] != text_len or self.token_marks[-1] != token_count:
            self.text_marks.append(text_len)
            self.token_marks.append(token_count)

    def mark_at(self, text: str, token_count: int) -> None:
        """Text and tokens line up at (``text``, ``token_count``): a point later turns can rewind to."""
        self.text = text
        if self.text_marks[-1] != len(text) or self.token_marks[-1] != token_count:
            self.text_marks.append(len(text))
            self.token_marks.append(token_count)


def safe_draft(draft: str, margin: int = DRAFT_MARGIN_CHARS) -> str:
    """The part of a message still being typed that is worth reading ahead: up to the last whitespace at
    least ``margin`` characters before its end (a word may still grow, and its tokens with it)."""
    limit = len(draft) - margin
    if limit <= 0:
        return ""
    cut = max(draft.rfind(" ", 0, limit + 1), draft.rfind("\n", 0, limit + 1))
    return draft[:cut] if cut > 0 else ""


def _automatic_bos(tokenizer: Any) -> int | None:
    """The BOS id if ``tokenizer.encode`` puts one in front of any text by itself, else None."""
    try:
        bos = int(tokenizer.bos_token_id)
        probe = [int(t) for t in tokenizer.encode("a")]
    except Exception:
        return None
    return bos if bos >= 0 and len(probe) >= 2 and probe[0] == bos else None


def _common_prefix_length(a: str, b: str) -> int:
    n = min(len(a), len(b))
    lo, step = 0, 4096
    # Compare in blocks first (C speed), then narrow down inside the first differing block.
    while lo < n and a[lo : lo + step] == b[lo : lo + step]:
        lo += step
    hi = min(lo + step, n)
    while lo < hi and a[lo] == b[lo]:
        lo += 1
    return min(lo, n)


class LocalEngine:
    """A :class:`~localmind.engine.types.ChatEngine` running og in this process."""

    def __init__(
        self,
        model_factory: ModelFactory = configure_and_load,
        cancel_flag: CancelFlag | None = None,
        typeahead_epoch: Any = None,
    ) -> None:
        self._factory = model_factory
        # Bumped by whoever wants a type-ahead prefill in flight to stop (a shared value in a child process).
        self._epoch: Any = typeahead_epoch if typeahead_epoch is not None else _Counter()
        # A threading.Event here; a multiprocessing.Event when a parent process cancels us.
        self._cancel: CancelFlag = cancel_flag if cancel_flag is not None else threading.Event()
        self._og: Any = None
        self._model: Any = None
        self._tokenizer: Any = None
        self._generator: Any = None
        self._pending_rewind: int | None = None
        self._folder: ModelFolder | None = None
        self._template: str = FALLBACK_TEMPLATE
        self._thinking: bool | None = None
        self._eos: set[int] = set()
        self._bos: int | None = None  # set when the tokenizer puts a BOS in front of every encode (Llama 3)
        self._budget = 0
        self._capacity = 0  # og's max_length for the Generator to come (its KV buffer is allocated up front)
        self._turn_sized = False  # og's buffer is sized to each turn until the budget's is reserved (reserve_kv)
        self._chunk = 128
        self._cache = _Cache()
        self._options = LoadOptions()
        self.min_reply_reserve = MIN_REPLY_RESERVE
        self.info: LoadInfo | None = None

    # -- loading -------------------------------------------------------------------------------------------------
    def load(self, model_dir: str, options: LoadOptions | None = None) -> LoadInfo:
        options = options or LoadOptions()
        started = time.perf_counter()
        folder = validate_model_folder(model_dir, variant=options.variant, device=options.device, read_tokenizer=False)
        self.unload()
        import onnxruntime_genai as og

        og_any: Any = og
        if hasattr(og_any, "disable_telemetry_events"):
            og_any.disable_telemetry_events()
        winml.ensure_registered(og_any)  # Windows ML's GPU/NPU providers (Windows only; inert elsewhere)
        budget = options.context_budget or DEFAULT_CONTEXT_BUDGET
        budget = max(64, min(budget, folder.context_length))
        threads = options.threads or physical_cores()
        overlay = {
            "model": {"decoder": {"session_options": {"intra_op_num_threads": threads}}},
            # og allocates the KV cache for max_length up front: never the model's full context blindly.
            "search": {"max_length": budget},
        }
        try:
            model, device, attempts = load_with_fallback(str(folder.path), options.device, overlay, self._factory)
        except Exception as exc:
            raise _explain_load_error(exc, folder, options.device) from exc
        try:
            tokenizer = og.Tokenizer(model)
        except Exception as exc:
            check_tokenizer_file(folder.path)  # a damaged tokenizer.json: say which file and what is wrong
            raise ModelLoadError.say(
                "The tokenizer in {folder} could not be loaded.",
                "(onnxruntime-genai said: {raw})",
                folder=folder.path,
                raw=exc,
            ) from exc
        warnings: list[str] = []  # Phrases: the window shows them in its language
        if folder.chat_template is None:
            warnings.append(
                Phrase(
                    "This model has no chat template; LocalMind uses a generic one (ChatML), so answers may be poor."
                )
            )
        self._og, self._model, self._tokenizer, self._folder = og, model, tokenizer, folder
        self._template = folder.chat_template or FALLBACK_TEMPLATE
        self._eos = {int(t) for t in tokenizer.eos_token_ids}
        self._bos = _automatic_bos(tokenizer)
        eos_cfg = folder.config["model"].get("eos_token_id")
        self._eos |= {int(t) for t in (eos_cfg if isinstance(eos_cfg, list) else [eos_cfg]) if isinstance(t, int)}
        self._budget = self._capacity = budget
        self._turn_sized = options.single_turn or options.kv_after_first_turn
        self._chunk = max(1, options.prefill_chunk)
        self._options = options
        try:
            self._render([ChatMessage("user", "hi")])
        except EngineError as exc:
            if folder.chat_template is None:
                raise
            warnings.append(
                Phrase(
                    "The model's chat template failed ({reason}); LocalMind uses a generic one (ChatML).", reason=exc
                )
            )
            self._template = FALLBACK_TEMPLATE
        self.info = LoadInfo(
            model_dir=str(folder.user_path),
            model_name=folder.name,
            model_type=folder.model_type,
            device=device,
            fallback_reasons=tuple((a.device, a.reason) for a in attempts if not a.ok),
            context_length=folder.context_length,
            context_budget=budget,
            threads=threads,
            has_chat_template=folder.chat_template is not None,
            thinking_switch=supports_thinking_switch(self._template),
            load_s=time.perf_counter() - started,
            warnings=tuple(warnings),
            memory_bytes=resident_bytes(),
            kv_bytes_per_token=kv_bytes_per_token(folder, device),
        )
        return self.info

    def unload(self) -> None:
        self._generator = None
        self._tokenizer = None
        self._model = None
        self._folder = None
        self._cache = _Cache()
        self.info = None

    def close(self) -> None:
        self.unload()

    def cancel(self) -> None:
        self._cancel.set()

    # -- prompts -------------------------------------------------------------------------------------------------
    @staticmethod
    def _valid_text(text: str) -> str:
        """``text`` as the tokenizer can take it: a lone UTF-16 surrogate (a JSON ``\\ud800`` escape from an API client,
        or a byte that is not UTF-8 read from a pipe) becomes U+FFFD. og takes UTF-8 only and refused the whole
        message with a binding error."""
        return _SURROGATE.sub("\ufffd", text)

    def _render(self, messages: Sequence[ChatMessage], add_generation_prompt: bool = True) -> str:
        # Earlier answers go back without their <think> part, as reasoning models' templates intend.
        payload = json.dumps(
            [
                {"role": m.role, "content": strip_thinking(m.content) if m.role == "assistant" else m.content}
                for m in messages
            ],
            ensure_ascii=False,
        )
        payload = self._valid_text(payload)
        template = self._template
        if self._thinking is not None and supports_thinking_switch(template):
            template = with_thinking(template, self._thinking)
        try:
            return str(
                self._tokenizer.apply_chat_template(
                    payload, template_str=template, add_generation_prompt=add_generation_prompt
                )
            )
        except Exception as exc:
            raise EngineError.say(
                "The model's chat template could not format this conversation: {reason}", reason=exc
            ) from exc

    def _encode(self, text: str, *, at_start: bool = True) -> list[int]:
        """Tokens for ``text``; ``at_start=False`` for a piece that continues a prompt.

        A tokenizer that puts a BOS in front of every encode (Llama 3 style) would put one in the middle of
        the context for every piece encoded on its own, and a second one at the start when the template
        already writes it: only the first piece keeps one, and never two.
        """
        if not text:
            return []
        ids = [int(t) for t in self._tokenizer.encode(self._valid_text(text))]
        bos = self._bos
        if bos is not None and ids[:1] == [bos] and (not at_start or ids[1:2] == [bos]):
            del ids[0]
        return ids

    def count_tokens(self, messages: Sequence[ChatMessage]) -> int:
        self._require_model()
        return len(self._encode(self._render(messages)))

    def fit_to_budget(
        self, messages: Sequence[ChatMessage], options: GenerationOptions
    ) -> tuple[list[ChatMessage], str, int, int]:
        """Render the prompt, dropping the oldest turns (never the system prompt) until it fits.

        Returns (messages kept, prompt text, prompt token count, messages dropped).
        """
        reserve = max(self.min_reply_reserve, min(options.max_new_tokens, self._budget // 4))
        system = [m for m in messages[:1] if m.role == "system"]
        rest = list(messages[len(system) :])
        dropped = 0
        while True:
            text = self._render(system + rest)
            count = len(self._encode(text))
            if count + reserve <= self._budget:
                return system + rest, text, count, dropped
            if len(rest) <= 1:
                break
            # Drop the oldest message, and keep dropping until the history starts with a user turn.
            rest.pop(0)
            dropped += 1
            while len(rest) > 1 and rest[0].role != "user":
                rest.pop(0)
                dropped += 1
        if count + self.min_reply_reserve <= self._budget:
            return system + rest, text, count, dropped
        raise PromptTooLongError.say(
            "This message is too long for the model's context: it needs {count} tokens "
            "but the context holds {budget} (with room for a reply).",
            "Shorten the message or the system prompt, or raise the context size in Settings.",
            count=f"{count:,}",
            budget=f"{self._budget:,}",
        )

    def _message_ends(self, messages: Sequence[ChatMessage], prompt: str) -> list[int]:
        """Text offsets in ``prompt`` where each message ends, where the template allows knowing it.

        The prompt is encoded piece by piece between these offsets, so each one is a point where text and
        tokens line up: an edit or a regenerate can rewind there instead of re-reading the whole history.
        """
        ends: list[int] = []
        for k in range(1, len(messages)):
            try:
                head = self._render(messages[:k], add_generation_prompt=False)
            except EngineError:
                continue  # some templates refuse a history that ends on a user or system turn
            if head and prompt.startswith(head) and (not ends or len(head) > ends[-1]):
                ends.append(len(head))
        ends.append(len(prompt))
        return ends

    # -- generation ----------------------------------------------------------------------------------------------
    def _require_model(self) -> None:
        if self._model is None:
            raise EngineError.say("No model is loaded.", "Open a model first.")

    def _new_generator(self) -> Any:
        params = self._og.GeneratorParams(self._model)
        params.set_search_options(max_length=self._capacity, do_sample=False)
        return self._og.Generator(self._model, params)

    def prepare_first_turn(self) -> None:
        """Do now what the first message would otherwise wait for: allocate og's KV buffer (og does it when a
        Generator is made: ~0.1 s per 200 MB) and import numpy's random generator for sampling (~60 ms). For a
        caller with idle time after a load: the engine child, between its answer to ``load`` and the first request.
        """
        import numpy.random  # noqa: F401 - imported for its side effect: loaded now, not at the first sample

        if self._model is not None and self._generator is None and not self._turn_sized:
            self._generator = self._new_generator()

    @property
    def kv_pending(self) -> bool:
        """Whether ``reserve_kv`` has the context budget's KV buffer still to make."""
        return self._turn_sized and self._options.kv_after_first_turn and self._model is not None

    def reserve_kv(self, on_chunk: Callable[[], None] | None = None) -> bool:
        """With ``kv_after_first_turn``, after the first turn: reserve the context budget's KV buffer and read what
        the cache holds into it (``on_chunk`` after each chunk), so the next turn reuses it as before. For the
        engine child's idle time; nothing to do otherwise. True if it was reserved now."""
        if not self.kv_pending:
            return False
        self._turn_sized = False
        self._capacity = self._budget
        tokens = list(self._cache.tokens) if self._generator is not None and self._in_step() else []
        self._generator = self._pending_rewind = None  # og frees the turn's buffer before the larger one is made
        try:
            generator = self._new_generator()
            for start in range(0, len(tokens), self._chunk):
                generator.append_tokens(np.asarray(tokens[start : start + self._chunk], dtype=np.int32))
                if on_chunk is not None:
                    on_chunk()
        except Exception:
            self._drop()  # the next turn reads its whole prompt (and makes the buffer) itself
            return False
        self._generator = generator
        if not tokens:
            self._cache = _Cache()
        return True

    def _size_cache_for(self, tokens: int) -> bool:
        """While og's KV buffer is sized to each turn (a single turn; serve's first), size it for ``tokens``;
        False if the cache must be re-read into a larger one. Serve's next turn that does not fit (it came before
        the engine was idle) gets the budget's buffer now, with what the cache holds."""
        if not self._turn_sized:
            return True
        need = min(self._budget, tokens)
        if self._generator is None:
            self._capacity = need
            return True
        if need <= self._capacity:
            return True
        return self.reserve_kv()

    def _rewind(self, text_len: int, token_count: int, keep: int = 0) -> None:
        """Back to the aligned point (``text_len``, ``token_count``), keeping ``keep`` unmarked tokens after it."""
        target = token_count + keep
        if target == 0 and self._generator is not None and self._og_length() == 0:
            self._cache = _Cache()  # og holds nothing yet (a reserved buffer): keep it, nothing to rewind
            return
        if self._generator is None or target == 0:
            self._drop()
            return
        if target > int(self._generator.token_count()):
            # og holds fewer tokens than the record says (they were never appended): nothing can be kept.
            self._generator = None
            self._pending_rewind = None
            self._cache = _Cache()
            return
        if target < len(self._cache.tokens) or target != self._og_length():
            # Applied at the next append: og leaves a wrong KV cache after two rewind_to calls in a row on
            # graphs that concatenate KV (onnx-community exports; tests/unit/formats/test_exact.py).
            self._pending_rewind = target
        self._cache.truncate(text_len, token_count, keep)

    def _drop(self) -> None:
        """Forget the cache and og's Generator (after an error og's state is not to be trusted, nor asked)."""
        self._generator = None
        self._pending_rewind = None
        self._cache = _Cache()

    def _append(self, tokens: list[int]) -> None:
        if self._generator is None:
            self._generator = self._new_generator()
        if self._pending_rewind is not None:
            self._generator.rewind_to(self._pending_rewind)
            self._pending_rewind = None
        self._cache.next_logits = None
        self._generator.append_tokens(np.asarray(tokens, dtype=np.int32))
        self._cache.tokens.extend(tokens)

    def _kept_logits(self) -> np.ndarray[Any, np.dtype[np.float32]] | None:
        """The logits type-ahead kept, if they still belong after the last cached token."""
        kept: np.ndarray[Any, np.dtype[np.float32]] | None = self._cache.next_logits
        if kept is None or self._generator is None or self._pending_rewind is not None or not self._in_step():
            return None
        return kept

    def _og_length(self) -> int:
        """og's sequence length, counting a rewind that waits for the next append."""
        if self._generator is None:
            return 0
        if self._pending_rewind is not None:
            return self._pending_rewind
        return int(self._generator.token_count())

    def _in_step(self) -> bool:
        """Whether og holds exactly the tokens the bookkeeping says. An interrupt between og's call and ours
        (Ctrl+C in the terminal lands there) or an og surprise would otherwise mix two histories silently."""
        return self._og_length() == len(self._cache.tokens)

    def _next_logits(self) -> np.ndarray[Any, np.dtype[np.float32]]:
        kept = self._kept_logits()
        if kept is not None:
            self._cache.next_logits = None  # the caller may change them (sampling penalties): used once
            return kept
        # og hands back a fresh array each call, so a view of its last row is ours to modify (no copy per token).
        logits: np.ndarray[Any, np.dtype[np.float32]] = self._generator.get_logits()
        last: np.ndarray[Any, np.dtype[np.float32]] = logits.reshape(-1, logits.shape[-1])[-1]
        return last

    def generate(
        self, messages: Sequence[ChatMessage], options: GenerationOptions | None = None, *, reset_cancel: bool = True
    ) -> Iterator[StreamEvent]:
        """Stream one assistant turn for ``messages`` (which end with the user's message).

        ``reset_cancel=False`` is for a parent process that cleared the shared flag itself before asking:
        clearing it here could swallow a Stop pressed in between.
        """
        options = options or GenerationOptions()
        options.validate()
        self._require_model()
        if reset_cancel:
            self._cancel.clear()
        return self._turn(list(messages), options)

    def _turn(self, messages: list[ChatMessage], options: GenerationOptions) -> Iterator[StreamEvent]:
        return (
            self._constrained(messages, options)
            if options.json_schema is not None
            else self._generate(messages, options)
        )

    def _constrained(self, messages: list[ChatMessage], options: GenerationOptions) -> Iterator[StreamEvent]:
        """A turn whose reply must be JSON valid against ``options.json_schema``.

        og enforces it (constrained decoding: the schema's grammar masks the logits, then og samples with the
        turn's settings), but takes the grammar only when a Generator is made. So the turn runs on a generator
        of its own, sized for it and read from scratch; the conversation's generator and cache wait aside and
        come back afterwards: the next turn reuses them as before (a grammar must never reach a plain turn).
        """
        model, kept = self._model, (self._generator, self._pending_rewind, self._cache)
        self._generator, self._pending_rewind, self._cache = None, None, _Cache()
        try:
            yield from self._generate(messages, options)
        finally:
            if self._model is model:
                self._generator, self._pending_rewind, self._cache = kept
            else:  # reloaded meanwhile (a device that failed: answered on the CPU): nothing to come back to
                self._rewind(0, 0)

    def _grammar_generator(self, options: GenerationOptions, prompt_tokens: int) -> Any:
        """A Generator whose tokens follow ``options.json_schema``, sampling as ``options`` say."""
        sampled = options.temperature > 0 and options.top_k != 1
        search: dict[str, Any] = {
            "max_length": min(self._budget, prompt_tokens + options.max_new_tokens + 1),
            "do_sample": sampled,
            "repetition_penalty": options.repetition_penalty,
        }
        if sampled:
            search.update(temperature=options.temperature, top_p=options.top_p, top_k=options.top_k)
            if options.seed is not None:
                search["random_seed"] = options.seed % 2**31
        params = self._og.GeneratorParams(self._model)
        params.set_search_options(**search)
        try:
            params.set_guidance("json_schema", options.json_schema)
            return self._og.Generator(self._model, params)  # the grammar is built here
        except Exception as exc:
            detail = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:300].rstrip(".") + "."
            raise GrammarError.say(
                "The JSON schema cannot be enforced: {detail}",
                "Fix the schema, or leave out the parts LocalMind's constrained decoding does not support.",
                detail=detail.removeprefix("Error creating grammar: "),
            ) from exc

    def _generate(self, messages: list[ChatMessage], options: GenerationOptions) -> Iterator[StreamEvent]:
        started = time.perf_counter()
        self._thinking = options.thinking
        # Times count from the user's send (Enter) when the caller says when that was: the hand-over to this
        # process and a speculative chunk still finishing are part of what the user waits for.
        waited = max(0.0, time.time() - options.submitted_at) if options.submitted_at else 0.0
        kept, prompt, _, dropped = self.fit_to_budget(messages, options)
        reused, pieces = self._plan(prompt, self._message_ends(kept, prompt), speculative=False)
        new_count = sum(len(tokens) for _, tokens in pieces)
        fits = self._size_cache_for(reused + new_count + options.max_new_tokens + 1)
        if (reused + new_count + self.min_reply_reserve > self._budget and reused) or not fits:
            # Encoding piece by piece came out longer than the budget allows, or a single turn's buffer is too
            # small for this one: start from scratch.
            self._drop()
            reused, pieces = 0, [(len(prompt), self._encode(prompt))]
            new_count = len(pieces[0][1])
            self._size_cache_for(new_count + options.max_new_tokens + 1)
        guided = options.json_schema is not None
        if guided:  # the cache is empty (see _constrained): the whole prompt is read into this turn's generator
            self._generator = self._grammar_generator(options, reused + new_count)

        def stats(generated: int, first: float | None, decode_s: float) -> TurnStats:
            return TurnStats(
                prompt_tokens=new_count + reused,
                reused_tokens=reused,
                generated_tokens=generated,
                time_to_first_token_s=(first - started + waited) if first else 0.0,
                tokens_per_second=((generated - 1) / decode_s) if generated > 1 and decode_s > 0 else 0.0,
                total_s=time.perf_counter() - started + waited,
                context_tokens=len(self._cache.tokens),
                context_budget=self._budget,
                dropped_messages=dropped,
            )

        # Prefill in chunks: a cancel point every chunk, and bounded logits memory. Each finished piece is
        # marked, so a cancel keeps what was already read.
        try:
            for end, tokens in pieces:
                for start in range(0, len(tokens), self._chunk):
                    if self._cancel.is_set():
                        self._rewind(self._cache.text_marks[-1], self._cache.token_marks[-1])
                        yield TurnFinished(FinishReason.CANCELLED, stats(0, None, 0.0))
                        return
                    self._append(tokens[start : start + self._chunk])
                self._cache.text = prompt[:end]
                self._cache.mark()
        except Exception as exc:
            self._drop()
            if self._can_fall_back():
                yield from self._answer_on_cpu(messages, options, exc)
                return
            yield TurnFinished(
                FinishReason.ERROR, stats(0, None, 0.0), error=f"The model failed while reading the prompt: {exc}"
            )
            return

        sampler = Sampler(options)
        stream = self._tokenizer.create_stream()
        seen = set(self._cache.tokens) if options.repetition_penalty != 1.0 else set()
        generated: list[int] = []
        streamed: list[str] = []
        first_token_at: float | None = None
        reason = FinishReason.LENGTH
        error: str | None = None
        try:
            while True:
                if self._cancel.is_set():
                    reason = FinishReason.CANCELLED
                    break
                if len(generated) >= options.max_new_tokens or len(self._cache.tokens) >= min(
                    self._budget, self._capacity
                ):
                    reason = FinishReason.LENGTH
                    break
                if guided:
                    # og masks what the schema does not allow, then samples; the token is in its sequence now.
                    self._generator.generate_next_token()
                    token = int(self._generator.get_next_tokens()[0])
                else:
                    logits = self._next_logits()
                    if len(generated) < options.min_new_tokens:
                        logits[[t for t in self._eos if t < logits.shape[0]]] = -np.inf
                    if seen:
                        sampler.apply_repetition_penalty(logits, seen)
                    token = sampler.choose(logits)
                if first_token_at is None:
                    first_token_at = time.perf_counter()
                if token in self._eos:
                    reason = FinishReason.END_OF_TURN
                    break
                generated.append(token)
                if seen:
                    seen.add(token)
                piece = stream.decode(token)
                if piece:
                    streamed.append(piece)
                    yield TextDelta(piece)
                # Append even the last token: the cache then matches the reply the user sees.
                if guided:
                    self._cache.tokens.append(token)  # og appended it already
                else:
                    self._append([token])
        except Exception as exc:
            if not generated and self._can_fall_back():
                self._drop()
                yield from self._answer_on_cpu(messages, options, exc)
                return
            reason, error = FinishReason.ERROR, f"The model failed while answering: {exc}"
        # The cache now holds the prompt plus every generated token that was appended.
        appended = generated[: len(self._cache.tokens) - self._cache.token_marks[-1]]
        if reason is not FinishReason.ERROR:
            reply = "".join(streamed)
            full = str(self._tokenizer.decode(np.asarray(appended, dtype=np.int32))) if appended else ""
            if appended and len(appended) == len(generated) and full == reply:
                self._cache.text = prompt + reply
                self._cache.mark()
            elif appended:
                # Text and tokens do not line up at the end (a character split across tokens): forget the reply.
                self._rewind(len(prompt), self._cache.token_marks[-1])
        else:
            self._drop()
        if not self._in_step():
            self._drop()
        decode_s = time.perf_counter() - first_token_at if first_token_at else 0.0
        yield TurnFinished(reason, stats(len(generated), first_token_at, decode_s), error=error)

    # -- type-ahead --------------------------------------------------------------------------------------------
    def typeahead_epoch(self) -> int:
        return int(self._epoch.value)

    def preempt_prefill(self) -> None:
        """Stop a type-ahead prefill in flight at its next chunk (any thread); later ones with an old epoch too."""
        self._epoch.value += 1

    def prefill(
        self,
        messages: Sequence[ChatMessage],
        draft: str = "",
        epoch: int | None = None,
        on_chunk: Callable[[], None] | None = None,
        whole: bool = False,
    ) -> int:
        """Read ``messages`` plus the start of the user's next message (``draft``, still being typed) into the
        KV cache, so that when it is sent only its last words and the reply header are left to read.

        Speculative and harmless: nothing is generated, a later ``generate`` keeps exactly the cached tokens
        that its own prompt has (compared token by token) and reads the rest, so the reply is the one a fresh
        prefill gives. The draft is cut at a word boundary a few characters before its end (the word being
        typed will change). ``whole=True`` (the user paused) reads the whole draft and the reply header after it,
        as if it were sent now: if it is, only its last token is read again; if typing goes on, the tokens that
        differ are dropped then (a few). Reads in small chunks and stops at the next one once
        ``preempt_prefill`` was called after ``epoch`` was read (default: now). Returns the tokens now cached.
        """
        self._require_model()
        epoch = self.typeahead_epoch() if epoch is None else epoch
        if self.typeahead_epoch() != epoch or self._options.single_turn:  # nothing to prepare for
            return len(self._cache.tokens)
        history = list(messages)
        probe = [*history, ChatMessage("user", _DRAFT_MARK)]
        try:
            rendered = self._render(probe)
        except EngineError:
            return len(self._cache.tokens)
        at = rendered.find(_DRAFT_MARK)
        if at < 0:
            return len(self._cache.tokens)
        text = rendered[:at] + safe_draft(draft)
        ends = [end for end in self._message_ends(probe, rendered) if end <= at]
        if whole and draft.strip():
            try:
                text = self._render([*history, ChatMessage("user", draft)])  # the prompt a send now would read
            except EngineError:
                return len(self._cache.tokens)
            if not text.startswith(rendered[:at]):
                return len(self._cache.tokens)  # a template that changes earlier turns with the last: not worth it
        ends.append(len(text))
        reused, pieces = self._plan(text, ends, speculative=True)
        planned = reused + sum(len(tokens) for _, tokens in pieces)
        if planned + self.min_reply_reserve > self._budget:
            return len(self._cache.tokens)  # would not fit with a reply: the send will drop old turns anyway
        small, left = max(1, min(self._chunk, SPECULATIVE_CHUNK)), planned - reused
        for index, (end, tokens) in enumerate(pieces):
            start = 0
            while start < len(tokens):
                if on_chunk is not None:
                    on_chunk()
                if self.typeahead_epoch() != epoch:
                    return len(self._cache.tokens)
                size = min(self._chunk, left - SPECULATIVE_BACKLOG) if left > SPECULATIVE_BACKLOG + small else small
                piece = tokens[start : start + size]
                self._append(piece)
                start += len(piece)
                left -= len(piece)
            if index < len(pieces) - 1:  # the draft's piece stays unmarked: its text is not final
                self._cache.text = text[:end]
                self._cache.mark()
        if not self._in_step():
            self._drop()
        elif whole and draft.strip() and pieces:
            # The whole prompt a send now would read is in: keep what the model predicts after it (one row, a
            # copy: og reuses its buffer), so that send gives its first token without a forward pass.
            self._cache.next_logits = np.array(self._next_logits(), copy=True)
        return len(self._cache.tokens)

    def _plan(self, prompt: str, ends: list[int], *, speculative: bool) -> tuple[int, list[tuple[int, list[int]]]]:
        """Rewind the cache to what it shares with ``prompt``; returns (tokens kept, pieces left to append).

        First as text, to the last point where cached text and tokens line up; then token by token into
        what follows (a type-ahead prefill's tail): only identical tokens are kept. ``ends`` are the text
        offsets where pieces are encoded separately (message ends). A prompt that is wholly cached keeps
        one token back, so appending it gives fresh logits (og cannot generate right after a rewind) — unless
        type-ahead kept the logits after exactly this prompt (``_kept_logits``): then nothing is read.
        """
        text_len, token_count = self._cache.reusable_prefix(prompt)
        kept = not speculative and self._kept_logits() is not None
        if text_len == len(prompt) and not speculative and not (kept and token_count == len(self._cache.tokens)):
            text_len, token_count = self._cache.reusable_prefix(prompt[:-1])
        pieces: list[tuple[int, list[int]]] = []
        position = text_len
        for end in ends:
            if end > position:
                pieces.append((end, self._encode(prompt[position:end], at_start=position == 0)))
                position = end
        new = [t for _, tokens in pieces for t in tokens]
        tail = self._cache.tokens[token_count:]
        common = 0
        exact = kept and tail == new  # the kept logits follow exactly this prompt's last token
        limit = min(len(tail), len(new) if speculative or exact else len(new) - 1)
        while common < limit and tail[common] == new[common]:
            common += 1
        try:
            self._rewind(text_len, token_count, keep=common)
        except Exception:
            self._drop()
            return self._plan(prompt, ends, speculative=speculative) if token_count else (0, pieces)
        if not self._in_step():
            self._drop()  # out of step: read the whole prompt again rather than trust either side
            return self._plan(prompt, ends, speculative=speculative) if token_count else (0, pieces)
        # Pieces wholly covered by the kept tokens are marked as read; the rest is what is left to append.
        left: list[tuple[int, list[int]]] = []
        skip, position = common, token_count
        for end, tokens in pieces:
            if skip >= len(tokens) and (speculative is False or end != ends[-1]):
                skip -= len(tokens)
                position += len(tokens)
                self._cache.mark_at(prompt[:end], position)
                continue
            left.append((end, tokens[skip:]))
            skip = 0
        return len(self._cache.tokens), [(end, tokens) for end, tokens in left if tokens]

    # -- a device that loaded but fails when used -------------------------------------------------------------
    def _can_fall_back(self) -> bool:
        return self.info is not None and self.info.device != "cpu"

    def _answer_on_cpu(
        self, messages: list[ChatMessage], options: GenerationOptions, exc: Exception
    ) -> Iterator[StreamEvent]:
        """The device failed on its first forward pass: reload on the CPU, remember it, answer from there."""
        assert self.info is not None
        device, model_dir = self.info.device, self.info.model_dir
        reason = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:240]
        remember_failure(model_dir, device, reason)
        previous = self.info
        info = self.load(model_dir, dataclasses.replace(self._options, device="cpu"))
        warning = Phrase(
            "{device} failed on the first answer ({reason}). "
            "LocalMind answered on the CPU and will use the CPU for this model from now on.",
            device=DEVICE_LABELS.get(device, device),
            reason=reason.rstrip("."),
        )
        self.info = dataclasses.replace(
            info,
            fallback_reasons=(
                *previous.fallback_reasons,
                (device, Phrase("failed when answering: {reason}", reason=reason)),
            ),
            warnings=(*info.warnings, warning),
        )
        for event in self._turn(messages, options):
            yield dataclasses.replace(event, reloaded=self.info) if isinstance(event, TurnFinished) else event


def kv_bytes_per_token(folder: ModelFolder, device: str) -> int:
    """Bytes of og's KV cache per token of context: keys and values of every layer, in the graph's float type.

    The float type is not read from the graph (that costs start-up time): fp32 on the CPU (og's int4 and q4
    models keep fp32 inputs), fp16 for fp16/bf16 variants and on GPUs (their builds use fp16 inputs).
    """
    decoder = folder.config.get("model", {}).get("decoder", {})
    try:
        layers, heads = int(decoder["num_hidden_layers"]), int(decoder["num_key_value_heads"])
        head_size = int(decoder.get("head_size") or int(decoder["hidden_size"]) // int(decoder["num_attention_heads"]))
    except (KeyError, TypeError, ValueError, ZeroDivisionError):
        return 0
    half = device != "cpu" or (folder.variant or "").lower() in ("fp16", "bf16")
    return layers * 2 * heads * head_size * (2 if half else 4)


def _explain_load_error(exc: BaseException, folder: ModelFolder, requested: str) -> ModelLoadError:
    """A load failure in words that fit its cause: the device, the model's kind, or the files."""
    raw = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:300]
    if requested not in ("auto", "cpu") and is_device_problem(raw):
        return ModelLoadError.say(
            "This copy of LocalMind cannot use {device}: {reason}.",
            "Choose Automatic or CPU as the device in Settings (in the terminal: --device cpu).",
            device=DEVICE_LABELS.get(requested, requested),
            reason=raw.rstrip("."),
        )
    if "model_type" in raw or "model type" in raw.lower():
        return ModelLoadError.say(
            "This kind of model ({kind}) is not supported by the installed onnxruntime-genai.",
            "Try another model, or a newer version of LocalMind.",
            kind=folder.model_type,
        )
    return explain_og_error(exc, folder)


__all__ = ["DEFAULT_CONTEXT_BUDGET", "FALLBACK_TEMPLATE", "LocalEngine"]
