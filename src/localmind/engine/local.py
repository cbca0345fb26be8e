"""The engine proper: og's Generator driven token by token, in this process.

Why the classic Generator and not og's Engine API: the Engine API prefills a
whole prompt in one uninterruptible call (2 s for 1,000 tokens on a 135M
model, 9 s on 0.6B) and its ``rewind_to_start_of_turn`` drops the cache and
re-prefills everything. With the Generator LocalMind prefills in chunks (a
cancel point every chunk, and bounded logits memory), rewinds to any token
for free, and samples itself so every turn can have its own settings. The
Generator holds the GIL during a forward pass, so the window runs this engine
in a child process (see ``process.py``); the terminal uses it directly.

``LocalEngine`` is a facade over four parts, each testable alone:
``loading`` (open a model folder, device fallback), ``prompt_builder`` (templates, thinking, fitting the context,
documents' passages), ``kv_cache`` (og's Generator, the token record, reuse, rewind, the kept prediction) and
``turn_runner`` (the decode loop, grammar turns, stats); ``typeahead`` reads a message while it is typed.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from localmind.engine.devices import DEVICE_LABELS, ModelFactory, configure_and_load, remember_failure
from localmind.engine.formats.thinking import supports_thinking_switch
from localmind.engine.kv_cache import KVCache
from localmind.engine.loading import kv_bytes_per_token, open_model
from localmind.engine.memory import resident_bytes
from localmind.engine.prompt_builder import (
    DEFAULT_CONTEXT_BUDGET,
    FALLBACK_TEMPLATE,
    ContextWindow,
    PromptBuilder,
    safe_draft,
)
from localmind.engine.turn_runner import CancelFlag, FallBack, TurnRunner
from localmind.engine.typeahead import read_ahead
from localmind.engine.types import (
    ChatMessage,
    EngineError,
    GenerationOptions,
    LoadInfo,
    LoadOptions,
    StreamEvent,
    TurnFinished,
)
from localmind.engine.validate import ModelFolder
from localmind.errors import Phrase


class _Counter:
    value = 0


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
        self.window = ContextWindow()
        self.prompts = PromptBuilder(self.window)
        self.kv = KVCache(self.window)
        self.runner = TurnRunner(self.prompts, self.kv, self._cancel)
        self.folder: ModelFolder | None = None
        self._options = LoadOptions()
        self.info: LoadInfo | None = None

    @property
    def min_reply_reserve(self) -> int:
        return self.window.min_reply_reserve

    @min_reply_reserve.setter
    def min_reply_reserve(self, value: int) -> None:
        self.window.min_reply_reserve = value

    # -- loading -------------------------------------------------------------------------------------------------
    def load(self, model_dir: str, options: LoadOptions | None = None) -> LoadInfo:
        options = options or LoadOptions()
        started = time.perf_counter()
        opened = open_model(model_dir, options, self._factory, release=self.unload)
        folder, warnings = opened.folder, opened.warnings
        self.folder, self._options = folder, options
        self.window.budget = opened.budget
        self.prompts.attach(opened.tokenizer, folder.chat_template)
        self.kv.attach(
            opened.og,
            opened.model,
            chunk=options.prefill_chunk,
            turn_sized=options.single_turn or options.kv_after_first_turn,
            kv_after_first_turn=options.kv_after_first_turn,
        )
        self.runner.eos = opened.eos
        self.runner.vocab_size = int(folder.config.get("model", {}).get("vocab_size") or 0)
        try:
            self.prompts.render([ChatMessage("user", "hi")])
        except EngineError as exc:
            if folder.chat_template is None:
                raise
            warnings.append(
                Phrase(
                    "The model's chat template failed ({reason}); LocalMind uses a generic one (ChatML).", reason=exc
                )
            )
            self.prompts.template = FALLBACK_TEMPLATE
        self.info = LoadInfo(
            model_dir=str(folder.user_path),
            model_name=folder.name,
            model_type=folder.model_type,
            device=opened.device,
            fallback_reasons=tuple((a.device, a.reason) for a in opened.attempts if not a.ok),
            context_length=folder.context_length,
            context_budget=opened.budget,
            threads=opened.threads,
            has_chat_template=folder.chat_template is not None,
            thinking_switch=supports_thinking_switch(self.prompts.template),
            load_s=time.perf_counter() - started,
            warnings=tuple(warnings),
            memory_bytes=resident_bytes(),
            kv_bytes_per_token=kv_bytes_per_token(folder, opened.device),
        )
        return self.info

    def unload(self) -> None:
        self.kv.detach()
        self.prompts.attach(None, None)
        self.folder = None
        self.info = None

    def close(self) -> None:
        self.unload()

    def cancel(self) -> None:
        self._cancel.set()

    def _require_model(self) -> None:
        if self.kv.model is None:
            raise EngineError.say("No model is loaded.", "Open a model first.")

    # -- prompts -------------------------------------------------------------------------------------------------
    def count_tokens(self, messages: Sequence[ChatMessage]) -> int:
        self._require_model()
        return self.prompts.count(messages)

    def fit_to_budget(
        self, messages: Sequence[ChatMessage], options: GenerationOptions
    ) -> tuple[list[ChatMessage], str, int, int]:
        """Render the prompt, dropping the oldest turns (never the system prompt) until it fits.

        Returns (messages kept, prompt text, prompt token count, messages dropped).
        """
        fitted = self.prompts.fit(messages, options)
        return fitted.messages, fitted.text, fitted.tokens, fitted.dropped

    # -- og's buffer -----------------------------------------------------------------------------------------------
    def prepare_first_turn(self) -> None:
        """Do now what the first message would otherwise wait for: allocate og's KV buffer (og does it when a
        Generator is made: ~0.1 s per 200 MB) and import numpy's random generator for sampling (~60 ms). For a
        caller with idle time after a load: the engine child, between its answer to ``load`` and the first request.
        """
        import numpy.random  # noqa: F401 - imported for its side effect: loaded now, not at the first sample

        self.kv.prepare()

    @property
    def kv_pending(self) -> bool:
        """Whether ``reserve_kv`` has the context budget's KV buffer still to make."""
        return self.kv.kv_pending

    def reserve_kv(self, on_chunk: Callable[[], None] | None = None) -> bool:
        """With ``kv_after_first_turn``, after the first turn: reserve the context budget's KV buffer and read what
        the cache holds into it (``on_chunk`` after each chunk), so the next turn reuses it as before. For the
        engine child's idle time; nothing to do otherwise. True if it was reserved now."""
        return self.kv.reserve(on_chunk)

    # -- generation ----------------------------------------------------------------------------------------------
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
        fall_back: FallBack | None = self._answer_on_cpu if self._can_fall_back() else None
        return self.runner.run(messages, options, fall_back)

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
            return len(self.kv.record.tokens)
        return read_ahead(
            self.prompts, self.kv, messages, draft, lambda: self.typeahead_epoch() == epoch, on_chunk, whole
        )

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


__all__ = ["DEFAULT_CONTEXT_BUDGET", "FALLBACK_TEMPLATE", "LocalEngine", "kv_bytes_per_token", "safe_draft"]
