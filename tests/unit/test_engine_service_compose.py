"""A read's ``compose`` (documents read-ahead, issue 19): run on the engine service's thread when the read starts,
its text read in place of the draft; never run for a read superseded while it waited; a failing one reads the draft."""

from __future__ import annotations

import threading

from localmind.engine.service import Dropped, EngineService, Priority, Read, Result
from tests.unit.test_engine_service import StepEngine, submit, wait_until


def test_compose_runs_on_the_service_thread_and_its_text_is_read() -> None:
    engine = StepEngine()
    service = EngineService(engine)  # type: ignore[arg-type]
    threads: list[threading.Thread] = []

    def compose() -> str:
        threads.append(threading.current_thread())
        return "passages+question"

    try:
        _, read = submit(service, Read([], "q", compose=compose, supersede="typeahead"), Priority.BACKGROUND, "w")
        assert read.final == Result(len("passages+question"))
        assert engine.ran == ["read passages+question"]
        assert threads and threads[0] is not threading.current_thread()
    finally:
        service.close(timeout=10)


def test_a_superseded_read_never_composes_and_a_failing_compose_reads_the_draft() -> None:
    engine = StepEngine()
    service = EngineService(engine)  # type: ignore[arg-type]
    composed: list[str] = []

    def failing() -> str:
        composed.append("failing")
        raise RuntimeError("the index is locked")

    try:
        _, running = submit(service, Read([], "x" * 10_000, supersede="typeahead"), Priority.BACKGROUND, "w")
        wait_until(lambda: engine.steps.get(f"read {'x' * 10_000}", 0) >= 2)
        engine.hold.clear()
        _, waiting = submit(
            service, Read([], "a", compose=lambda: composed.append("old") or "old", supersede="typeahead"),
            Priority.BACKGROUND, "w",
        )  # fmt: skip
        _, newest = submit(service, Read([], "draft", compose=failing, supersede="typeahead"), Priority.BACKGROUND, "w")
        engine.hold.set()
        assert isinstance(running.final, Result)
        assert waiting.final == Dropped("superseded")
        assert newest.final == Result(len("draft"))
        assert composed == ["failing"]  # the superseded read never searched
    finally:
        service.close(timeout=10)
