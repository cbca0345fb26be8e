"""The engine in a child process: same replies, cancel across processes, crash recovery."""

from __future__ import annotations

import dataclasses
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from localmind.engine.process import EngineProcess
from localmind.engine.types import (
    ChatMessage,
    ContextLengthExceededError,
    EngineError,
    FinishReason,
    GenerationOptions,
    LoadOptions,
    ModelLoadError,
    PromptTooLongError,
    StreamEvent,
    TextDelta,
    TurnFinished,
)
from tests.helpers.processes import freeze, gone
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


def test_a_conversation_too_long_for_the_api_keeps_its_class_and_counts_across_the_pipe(
    engine: EngineProcess,
) -> None:
    turns = [ChatMessage("user" if i % 2 == 0 else "assistant", "word " * 300) for i in range(9)]
    options = dataclasses.replace(GREEDY, drop_oldest=False, max_new_tokens=64)
    with pytest.raises(ContextLengthExceededError) as refused:
        list(engine.generate(turns, options))
    error = refused.value
    assert error.prompt_tokens > error.max_context > 0 and error.max_tokens == 64 and error.reply_reserve > 0
    assert error.sources() is not None  # its words are still translatable


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
    pid = engine.pid
    assert pid is not None
    os.kill(pid, signal.SIGSTOP)  # so it dies mid-turn, whatever the timing
    turn = _Turn(engine.generate([ChatMessage("user", "hello")], GREEDY))
    time.sleep(0.3)  # the request is in the pipe
    os.kill(pid, signal.SIGKILL)
    turn.result()
    assert isinstance(turn.error, EngineError)
    assert str(turn.error).startswith("The engine stopped unexpectedly (stopped by signal 9).")
    assert "None" not in str(turn.error)
    # Restarted with the last model, transparently.
    assert text(list(engine.generate([ChatMessage("user", "hi")], GREEDY))) in REPLIES
    assert engine.restarts == 1


# -- a child that stops answering (issue 9 item 13) ----------------------------------------------------------------
class _Turn(threading.Thread):
    """Reads a turn in another thread (as the app's worker does), keeping its events or its error."""

    def __init__(self, events: Iterator[StreamEvent]) -> None:
        super().__init__(daemon=True)
        self.events, self.got, self.error = events, list[StreamEvent](), None  # type: ignore[var-annotated]
        self.start()

    def run(self) -> None:
        try:
            self.got.extend(self.events)
        except Exception as exc:
            self.error = exc

    def result(self, timeout: float = 10) -> list[StreamEvent]:
        self.join(timeout)
        assert not self.is_alive(), "the turn never ended"
        return self.got


def _slow_turn(tiny_model: Path, **kwargs: float) -> tuple[EngineProcess, _Turn]:
    """A turn whose prefill takes a while (one token per chunk), with the child caught in the middle of it."""
    engine = EngineProcess(**kwargs)
    engine.load(str(tiny_model), LoadOptions(device="cpu", prefill_chunk=1))
    start = engine._beats.value
    turn = _Turn(engine.generate([ChatMessage("user", "fox " * 900)], GREEDY))
    deadline = time.monotonic() + 10
    while engine._beats.value < start + 20 and time.monotonic() < deadline:
        time.sleep(0.002)
    assert engine._beats.value >= start + 20, "the child never started the prefill"
    return engine, turn


def _freeze(engine: EngineProcess) -> int:
    return freeze(engine.pid)


@pytest.mark.skipif(sys.platform == "win32", reason="freezes the engine process with SIGSTOP (POSIX only)")
def test_stop_ends_a_frozen_turn_within_two_seconds_and_the_next_message_is_answered(tiny_model: Path) -> None:
    engine, turn = _slow_turn(tiny_model)
    try:
        frozen = _freeze(engine)
        started = time.monotonic()
        engine.cancel()
        events = turn.result()
        assert time.monotonic() - started < 2.0
        assert turn.error is None
        assert isinstance(events[-1], TurnFinished) and events[-1].reason is FinishReason.CANCELLED
        assert engine.kills == 1 and engine.pid != frozen and gone(frozen)
        # A fresh child reloaded the model in the background: the next message gets the exact reply.
        assert text(list(engine.generate([ChatMessage("user", "hi")], GREEDY))) in REPLIES
    finally:
        engine.close()


@pytest.mark.skipif(sys.platform == "win32", reason="freezes the engine process with SIGSTOP (POSIX only)")
def test_a_turn_that_stalls_ends_with_an_error_and_the_engine_recovers(tiny_model: Path) -> None:
    engine, turn = _slow_turn(tiny_model, stall_timeout_s=1.0)
    try:
        _freeze(engine)
        turn.result()
        assert isinstance(turn.error, EngineError) and "stopped responding" in turn.error.message
        assert text(list(engine.generate([ChatMessage("user", "hi")], GREEDY))) in REPLIES
    finally:
        engine.close()


@pytest.mark.skipif(sys.platform == "win32", reason="freezes the engine process with SIGSTOP (POSIX only)")
def test_a_child_frozen_between_turns_is_replaced_and_the_message_answered(tiny_model: Path) -> None:
    engine = EngineProcess(ack_timeout_s=1.0)
    try:
        engine.load(str(tiny_model), LoadOptions(device="cpu"))
        frozen = _freeze(engine)
        assert text(list(engine.generate([ChatMessage("user", "hi")], GREEDY))) in REPLIES
        assert engine.kills == 1 and gone(frozen)
        _freeze(engine)
        assert engine.count_tokens([ChatMessage("user", "hi")]) > 0
        assert engine.kills == 2
    finally:
        engine.close()


@pytest.mark.skipif(sys.platform == "win32", reason="freezes the engine process with SIGSTOP (POSIX only)")
def test_close_from_another_thread_never_hangs_on_a_frozen_child(tiny_model: Path) -> None:
    engine, turn = _slow_turn(tiny_model)
    frozen = _freeze(engine)
    started = time.monotonic()
    engine.close()  # the turn's thread holds the pipe: close kills instead of talking
    turn.result(timeout=2)
    assert time.monotonic() - started < 1.0
    assert isinstance(turn.error, EngineError)
    assert gone(frozen)


# -- type-ahead in the child ----------------------------------------------------------------------------------------
def _prefill_in_thread(engine: EngineProcess) -> tuple[threading.Thread, dict[str, int]]:
    result: dict[str, int] = {}
    epoch = engine.typeahead_epoch()
    start = engine._beats.value
    thread = threading.Thread(target=lambda: result.update(n=engine.prefill([], "fox " * 900, epoch)), daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while engine._beats.value < start + 20 and time.monotonic() < deadline:
        time.sleep(0.002)
    return thread, result


def test_a_send_preempts_type_ahead_without_killing_a_working_child(tiny_model: Path) -> None:
    engine = EngineProcess()
    try:
        engine.load(str(tiny_model), LoadOptions(device="cpu", prefill_chunk=1))
        thread, result = _prefill_in_thread(engine)
        started = time.monotonic()
        engine.preempt_prefill()
        thread.join(5)
        assert not thread.is_alive() and time.monotonic() - started < 0.5
        assert engine.kills == 0 and 0 < result["n"] < 900
        assert text(list(engine.generate([ChatMessage("user", "hi")], GREEDY))) in REPLIES
    finally:
        engine.close()


@pytest.mark.skipif(sys.platform == "win32", reason="freezes the engine process with SIGSTOP (POSIX only)")
def test_a_child_frozen_during_type_ahead_is_replaced_when_a_send_comes(tiny_model: Path) -> None:
    engine = EngineProcess(preempt_patience_s=1.0)
    try:
        engine.load(str(tiny_model), LoadOptions(device="cpu", prefill_chunk=1))
        thread, _ = _prefill_in_thread(engine)
        frozen = _freeze(engine)  # ~20 of ~1,000 chunks read: mid-prefill
        assert thread.is_alive(), "the prefill ended before the freeze: make it longer"
        started = time.monotonic()
        engine.preempt_prefill()
        thread.join(5)
        assert not thread.is_alive() and time.monotonic() - started < 2.0
        assert engine.kills == 1 and gone(frozen)
        assert text(list(engine.generate([ChatMessage("user", "hi")], GREEDY))) in REPLIES
    finally:
        engine.close()
