"""A scripted engine for UI tests: fixed replies at a chosen pace, and injectable failures.

It implements the same :class:`~localmind.engine.types.ChatEngine` interface as the real
engines, so the window and worker cannot tell the difference. Use it only where the
tiny real model cannot help: replies slow enough to stop mid-stream, or faults.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from localmind.engine.types import (
    ChatMessage,
    EngineError,
    FinishReason,
    GenerationOptions,
    LoadInfo,
    LoadOptions,
    ModelLoadError,
    StreamEvent,
    TextDelta,
    TurnFinished,
    TurnStats,
)


@dataclass
class FakeEngine:
    replies: list[str] = field(default_factory=lambda: ["Hello from the fake engine."])
    token_delay_s: float = 0.0
    chars_per_token: int = 3
    load_error: str | None = None
    generate_error: str | None = None
    context_budget: int = 4096
    calls: list[list[ChatMessage]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._cancel = threading.Event()
        self._turn = 0
        self.info: LoadInfo | None = None

    def load(self, model_dir: str, options: LoadOptions | None = None) -> LoadInfo:
        if self.load_error:
            raise ModelLoadError(self.load_error)
        self.info = LoadInfo(
            model_dir=model_dir,
            model_name="fake",
            model_type="fake",
            device="cpu",
            context_length=self.context_budget,
            context_budget=self.context_budget,
            threads=1,
        )
        return self.info

    def unload(self) -> None:
        self.info = None

    def close(self) -> None:
        self.info = None

    def cancel(self) -> None:
        self._cancel.set()

    def count_tokens(self, messages: Sequence[ChatMessage]) -> int:
        return sum(len(m.content) // self.chars_per_token + 4 for m in messages)

    def generate(
        self, messages: Sequence[ChatMessage], options: GenerationOptions | None = None
    ) -> Iterator[StreamEvent]:
        if self.info is None:
            raise EngineError.say("No model is loaded.", "Open a model first.")
        self._cancel.clear()
        self.calls.append(list(messages))
        reply = self.replies[self._turn % len(self.replies)]
        self._turn += 1
        return self._stream(reply, options or GenerationOptions())

    def _stream(self, reply: str, options: GenerationOptions) -> Iterator[StreamEvent]:
        started = time.perf_counter()
        n = 0
        reason = FinishReason.END_OF_TURN
        for i in range(0, len(reply), self.chars_per_token):
            if self._cancel.is_set():
                reason = FinishReason.CANCELLED
                break
            if n >= options.max_new_tokens:
                reason = FinishReason.LENGTH
                break
            if self.generate_error and n == 2:
                yield TurnFinished(FinishReason.ERROR, TurnStats(generated_tokens=n), error=self.generate_error)
                return
            if self.token_delay_s:
                time.sleep(self.token_delay_s)
            n += 1
            yield TextDelta(reply[i : i + self.chars_per_token])
        elapsed = time.perf_counter() - started
        yield TurnFinished(
            reason,
            TurnStats(
                prompt_tokens=10,
                generated_tokens=n,
                time_to_first_token_s=self.token_delay_s,
                tokens_per_second=n / elapsed if elapsed > 0 else 0.0,
                total_s=elapsed,
                context_tokens=10 + n,
                context_budget=self.context_budget,
            ),
        )
