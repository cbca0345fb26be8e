"""The engine in a child process: same replies, cancel across processes, crash recovery."""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

import pytest

from localmind.engine.process import EngineProcess
from localmind.engine.types import (
    ChatMessage,
    EngineError,
    FinishReason,
    GenerationOptions,
    LoadOptions,
    ModelLoadError,
    PromptTooLongError,
    TextDelta,
    TurnFinished,
)
from tests.helpers.tiny_model import REPLIES

GREEDY = GenerationOptions(temperature=0)


@pytest.fixture
def engine(tiny_model: Path):  # type: ignore[no-untyped-def]
    e = EngineProcess()
    e.load(str(tiny_model), LoadOptions(device="cpu"))
    yield e
    e.close()


def text(events: list) -> str:  # type: ignore[type-arg]
    return "".join(e.text for e in events if isinstance(e, TextDelta))


def test_same_reply_as_in_process(engine: EngineProcess) -> None:
    events = list(engine.generate([ChatMessage("user", "hi")], GREEDY))
    assert text(events) in REPLIES
    assert isinstance(events[-1], TurnFinished) and events[-1].reason is FinishReason.END_OF_TURN
    assert engine.count_tokens([ChatMessage("user", "hi")]) == events[-1].stats.prompt_tokens


def test_errors_keep_their_kind_and_message(engine: EngineProcess, tmp_path: Path) -> None:
    with pytest.raises(ModelLoadError, match="not found"):
        engine.load(str(tmp_path / "nope"))
    with pytest.raises(PromptTooLongError):
        list(engine.generate([ChatMessage("user", "word " * 3000)], GREEDY))
    # Still serving, with the earlier model.
    assert text(list(engine.generate([ChatMessage("user", "hi")], GREEDY))) in REPLIES


def test_cancel_from_the_parent_stops_the_turn(tiny_model: Path) -> None:
    engine = EngineProcess()
    try:
        # One token per prefill chunk makes a long prompt take a while: the Stop lands mid-prefill.
        engine.load(str(tiny_model), LoadOptions(device="cpu", prefill_chunk=1))
        started = time.perf_counter()
        it = engine.generate([ChatMessage("user", "fox " * 900)], GREEDY)
        engine.cancel()  # before the child even starts: must not be lost
        events = list(it)
        assert isinstance(events[-1], TurnFinished) and events[-1].reason is FinishReason.CANCELLED
        assert events[-1].stats.generated_tokens == 0
        assert time.perf_counter() - started < 0.5
        assert text(list(engine.generate([ChatMessage("user", "hi")], GREEDY))) in REPLIES
    finally:
        engine.close()


def test_abandoned_iterator_leaves_the_pipe_clean(engine: EngineProcess) -> None:
    it = engine.generate([ChatMessage("user", "hello")], GREEDY)
    next(it)
    it.close()
    assert text(list(engine.generate([ChatMessage("user", "hi")], GREEDY))) in REPLIES


@pytest.mark.skipif(sys.platform == "win32", reason="freezes the engine process with SIGSTOP (POSIX only)")
def test_a_crash_is_reported_and_the_next_call_recovers(engine: EngineProcess) -> None:
    proc = engine._proc
    assert proc is not None
    os.kill(proc.pid, signal.SIGSTOP)  # so it dies mid-turn, whatever the timing
    it = engine.generate([ChatMessage("user", "hello")], GREEDY)
    os.kill(proc.pid, signal.SIGKILL)
    with pytest.raises(EngineError, match="stopped unexpectedly"):
        list(it)
    time.sleep(0.1)
    # Restarted with the last model, transparently.
    assert text(list(engine.generate([ChatMessage("user", "hi")], GREEDY))) in REPLIES
    assert engine.restarts == 1
