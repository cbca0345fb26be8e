"""The engine service's rules, with a step-by-step engine behind the real engine interface.

The engine here stands in for the model only: it runs turns token by token and reads chunk by chunk, checking
the cancel flag and the read epoch at each step as the real engine child does, and records what ran. The real
engine process with the tiny model is driven through the same service in tests/gui/test_engine_service_window.py.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Sequence
from typing import Any

import pytest

from localmind.engine.service import (
    CountTokens,
    Dropped,
    EngineService,
    Failed,
    JobEvent,
    Priority,
    QueueFull,
    Read,
    Result,
    Started,
    Ticket,
    Turn,
    is_final,
)
from localmind.engine.types import (
    ChatMessage,
    EngineError,
    FinishReason,
    GenerationOptions,
    LoadInfo,
    LoadOptions,
    ReadsAhead,
    StreamEvent,
    TextDelta,
    TurnFinished,
    TurnStats,
)

STEP_S = 0.005


class StepEngine:
    """Turns of ``max_new_tokens`` tokens and reads of ``len(draft)`` chunks, one step at a time. ``hold`` pauses
    every step until it is set again (a job that holds the engine as long as a test needs)."""

    def __init__(self) -> None:
        self.ran: list[str] = []  # the name (last message) of each job as it starts
        self.steps: dict[str, int] = {}  # steps each job took
        self.hold = threading.Event()
        self.hold.set()
        self.cancel_flag = threading.Event()
        self.epoch = 0
        self.closed = False

    def _step(self, name: str) -> None:
        assert self.hold.wait(30)
        time.sleep(STEP_S)
        self.steps[name] = self.steps.get(name, 0) + 1

    def load(self, model_dir: str, options: LoadOptions) -> LoadInfo:
        self.ran.append(f"load {model_dir}")
        return LoadInfo(model_dir, "step", "step", "cpu")

    def unload(self) -> None:
        self.ran.append("unload")

    def count_tokens(self, messages: Sequence[ChatMessage]) -> int:
        if messages and messages[-1].content == "boom":
            raise EngineError("the count failed")
        return sum(len(m.content) for m in messages)

    def generate(self, messages: Sequence[ChatMessage], options: GenerationOptions) -> Iterator[StreamEvent]:
        self.cancel_flag.clear()
        name = messages[-1].content
        return self._turn(name, options.max_new_tokens)

    def _turn(self, name: str, tokens: int) -> Iterator[StreamEvent]:
        self.ran.append(name)
        for i in range(tokens):
            if self.cancel_flag.is_set():
                yield TurnFinished(FinishReason.CANCELLED, TurnStats(generated_tokens=i))
                return
            self._step(name)
            yield TextDelta("x")
        yield TurnFinished(FinishReason.END_OF_TURN, TurnStats(generated_tokens=tokens))

    def cancel(self) -> None:
        self.cancel_flag.set()

    def close(self) -> None:
        self.closed = True

    # ReadsAhead
    def typeahead_epoch(self) -> int:
        return self.epoch

    def preempt_prefill(self) -> None:
        self.epoch += 1

    def prefill(
        self, messages: Sequence[ChatMessage], draft: str = "", epoch: int | None = None, whole: bool = False
    ) -> int:
        name = f"read {draft}"
        self.ran.append(name)
        read = 0
        for _ in range(len(draft)):
            if epoch is not None and self.epoch != epoch:
                break
            self._step(name)
            read += 1
        return read


class Recorder:
    """A job's events, kept as they come (on the service's thread)."""

    def __init__(self) -> None:
        self.events: list[JobEvent] = []
        self.done = threading.Event()

    def __call__(self, event: JobEvent) -> None:
        self.events.append(event)
        if is_final(event):
            self.done.set()

    @property
    def final(self) -> JobEvent:
        assert self.done.wait(30), "the job never ended"
        return self.events[-1]

    @property
    def texts(self) -> int:
        return sum(isinstance(e, TextDelta) for e in self.events)


@pytest.fixture
def engine() -> StepEngine:
    return StepEngine()


@pytest.fixture
def service(engine: StepEngine) -> Iterator[EngineService]:
    s = EngineService(engine)  # type: ignore[arg-type]
    yield s
    engine.hold.set()
    s.close()


def turn(name: str, tokens: int = 3) -> Turn:
    return Turn([ChatMessage("user", name)], GenerationOptions(max_new_tokens=tokens))


def submit(service: EngineService, job: Any, priority: Priority, client: str = "") -> tuple[Ticket, Recorder]:
    recorder = Recorder()
    return service.submit(job, priority=priority, client=client, on_event=recorder), recorder


def wait_until(condition: Any, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.005)


def hold_engine(service: EngineService, engine: StepEngine) -> Recorder:
    """A first job that holds the engine until ``engine.hold`` is set."""
    engine.hold.clear()
    _, first = submit(service, turn("first", 2), Priority.API, "first")
    wait_until(lambda: engine.ran == ["first"])
    return first


def test_the_window_goes_first_then_api_clients_in_turn_then_background_reads(
    service: EngineService, engine: StepEngine
) -> None:
    hold_engine(service, engine)
    jobs = [
        submit(service, Read([ChatMessage("user", "chat")], "ab", supersede="typeahead"), Priority.BACKGROUND, "w"),
        submit(service, turn("a1"), Priority.API, "a"),
        submit(service, turn("a2"), Priority.API, "a"),
        submit(service, turn("a3"), Priority.API, "a"),
        submit(service, turn("b1"), Priority.API, "b"),
        submit(service, turn("b2"), Priority.API, "b"),
        submit(service, turn("window"), Priority.WINDOW, "w"),
    ]
    assert service.waiting(Priority.API) == 5 and service.waiting() == 7
    engine.hold.set()
    for _, recorder in jobs:
        assert is_final(recorder.final)
    assert engine.ran == ["first", "window", "a1", "b1", "a2", "b2", "a3", "read ab"]


def test_each_job_reports_started_then_its_events_then_one_final_event(
    service: EngineService, engine: StepEngine
) -> None:
    _, recorder = submit(service, turn("hello", 3), Priority.WINDOW)
    final = recorder.final
    assert isinstance(recorder.events[0], Started)
    assert recorder.texts == 3
    assert isinstance(final, TurnFinished) and final.reason is FinishReason.END_OF_TURN
    assert service.run(CountTokens([ChatMessage("user", "four")]), priority=Priority.WINDOW) == 4
    _, failed = submit(service, CountTokens([ChatMessage("user", "boom")]), Priority.WINDOW)
    assert isinstance(failed.final, Failed) and "the count failed" in str(failed.final.error)
    # The failure did not take the service down.
    assert service.run(CountTokens([ChatMessage("user", "ok")]), priority=Priority.API) == 2


def test_an_iterator_gets_the_same_events_without_a_callback(service: EngineService) -> None:
    ticket = service.submit(turn("hi", 2), priority=Priority.WINDOW)
    events = list(ticket.events(timeout=30))
    assert isinstance(events[0], Started) and isinstance(events[-1], TurnFinished)
    assert sum(isinstance(e, TextDelta) for e in events) == 2


def test_a_full_api_queue_refuses_with_a_retry_after(service: EngineService, engine: StepEngine) -> None:
    hold_engine(service, engine)
    for i in range(2):
        service.submit(turn(f"q{i}"), priority=Priority.API, client="c", max_waiting=2)
    with pytest.raises(QueueFull) as refused:
        service.submit(turn("q2"), priority=Priority.API, client="c", max_waiting=2)
    assert refused.value.waiting == 2 and refused.value.retry_after_s >= 1
    # The bound is the API's: the window's own turn is still taken.
    service.submit(turn("window"), priority=Priority.WINDOW, client="w", max_waiting=None)
    assert service.waiting() == 3


@pytest.mark.parametrize("priority", list(Priority))
def test_a_waiting_job_of_any_kind_is_cancelled_without_running(
    service: EngineService, engine: StepEngine, priority: Priority
) -> None:
    hold_engine(service, engine)
    job = Read([], "abc") if priority is Priority.BACKGROUND else turn("waiting")
    ticket, recorder = submit(service, job, priority, "x")
    assert ticket.cancel() is True
    assert recorder.final == Dropped("cancelled") and recorder.events == [Dropped("cancelled")]
    engine.hold.set()
    service.run(CountTokens([]), priority=Priority.BACKGROUND)  # everything before it has run
    assert engine.ran == ["first"]


@pytest.mark.parametrize("priority", [Priority.WINDOW, Priority.API])
def test_a_running_turn_stops_within_one_step(service: EngineService, engine: StepEngine, priority: Priority) -> None:
    ticket, recorder = submit(service, turn("long", 10_000), priority, "x")
    wait_until(lambda: recorder.texts >= 5)
    seen = engine.steps["long"]
    assert ticket.cancel() is False  # it was running
    final = recorder.final
    assert isinstance(final, TurnFinished) and final.reason is FinishReason.CANCELLED
    assert engine.steps["long"] <= seen + 1


def test_a_running_read_stops_within_one_chunk_on_cancel(service: EngineService, engine: StepEngine) -> None:
    ticket, recorder = submit(service, Read([], "r" * 10_000), Priority.BACKGROUND, "w")
    wait_until(lambda: engine.steps.get(f"read {'r' * 10_000}", 0) >= 5)
    name = f"read {'r' * 10_000}"
    seen = engine.steps[name]
    ticket.cancel()
    final = recorder.final
    assert isinstance(final, Result) and final.value <= seen + 1
    assert engine.steps[name] <= seen + 1


@pytest.mark.parametrize("priority", [Priority.WINDOW, Priority.API])
def test_a_job_above_a_running_read_stops_it_at_its_next_chunk(
    service: EngineService, engine: StepEngine, priority: Priority
) -> None:
    draft = "r" * 10_000
    _, read = submit(service, Read([], draft), Priority.BACKGROUND, "w")
    wait_until(lambda: engine.steps.get(f"read {draft}", 0) >= 5)
    seen = engine.steps[f"read {draft}"]
    _, urgent = submit(service, turn("urgent", 1), priority, "someone")
    assert isinstance(urgent.final, TurnFinished)
    assert isinstance(read.final, Result) and read.final.value <= seen + 1
    assert engine.ran == [f"read {draft}", "urgent"]


def test_a_newer_read_supersedes_the_older_one_of_its_client_and_key(
    service: EngineService, engine: StepEngine
) -> None:
    _, running = submit(service, Read([], "x" * 10_000, supersede="typeahead"), Priority.BACKGROUND, "w")
    wait_until(lambda: engine.steps.get(f"read {'x' * 10_000}", 0) >= 3)
    engine.hold.clear()
    _, waiting = submit(service, Read([], "yy", supersede="typeahead"), Priority.BACKGROUND, "w")
    _, other_key = submit(service, Read([], "dd", supersede="documents"), Priority.BACKGROUND, "w")
    _, newest = submit(service, Read([], "zz", supersede="typeahead"), Priority.BACKGROUND, "w")
    engine.hold.set()
    assert isinstance(running.final, Result)  # stopped at its next chunk, with what it read
    assert waiting.final == Dropped("superseded")
    assert other_key.final == Result(2) and newest.final == Result(2)
    assert engine.ran == [f"read {'x' * 10_000}", "read dd", "read zz"]


def test_close_drops_what_waits_stops_what_runs_and_closes_the_engine(engine: StepEngine) -> None:
    service = EngineService(engine)  # type: ignore[arg-type]
    _, running = submit(service, turn("long", 10_000), Priority.API, "a")
    wait_until(lambda: running.texts >= 2)
    engine.hold.clear()
    _, waiting = submit(service, turn("later"), Priority.WINDOW, "w")
    threading.Timer(0.05, engine.hold.set).start()
    service.close(timeout=10)
    assert waiting.final == Dropped("closed")
    assert isinstance(running.final, TurnFinished) and running.final.reason is FinishReason.CANCELLED
    assert engine.closed
    with pytest.raises(RuntimeError):
        service.submit(turn("after"), priority=Priority.WINDOW)


def test_listeners_see_each_job_start_and_end(service: EngineService) -> None:
    seen: list[tuple[str, bool]] = []
    remove = service.on_running(lambda ticket, running: seen.append((ticket.client, running)))
    service.run(CountTokens([]), priority=Priority.API, client="api")
    remove()
    service.run(CountTokens([]), priority=Priority.API, client="later")
    assert seen == [("api", True), ("api", False)]


def test_the_step_engine_is_a_reading_engine() -> None:
    assert isinstance(StepEngine(), ReadsAhead)
