"""The inference worker in its QThread: loads in the background, streams batches, cancels, drops late output."""

from __future__ import annotations

import itertools
import threading
import time
from pathlib import Path

import pytest
from PySide6.QtCore import QTimer

from localmind.engine.fake import FakeEngine
from localmind.engine.local import LocalEngine
from localmind.engine.types import (
    ChatMessage,
    FinishReason,
    GenerationOptions,
    LoadInfo,
    LoadOptions,
    TextDelta,
    TurnFinished,
    TurnStats,
)
from localmind.workers.inference import InferenceService
from tests.helpers.tiny_model import REPLIES

GREEDY = GenerationOptions(temperature=0)


@pytest.fixture
def make_service(qtbot):  # type: ignore[no-untyped-def]
    services: list[InferenceService] = []

    def make(factory):  # type: ignore[no-untyped-def]
        service = InferenceService(engine_factory=factory)
        services.append(service)
        return service

    yield make
    for s in services:
        s.shutdown()


def test_load_and_stream_the_exact_reply_with_the_real_engine(qtbot, make_service, tiny_model: Path) -> None:  # type: ignore[no-untyped-def]
    service = make_service(LocalEngine)
    with qtbot.waitSignal(service.loaded, timeout=10000) as loaded:
        service.load(str(tiny_model), LoadOptions(device="cpu"))
    info: LoadInfo = loaded.args[0]
    assert info.device == "cpu"
    batches: list[str] = []
    service.tokens_ready.connect(lambda rid, text: batches.append(text))
    with qtbot.waitSignal(service.finished, timeout=10000) as done:
        rid = service.generate([ChatMessage("user", "hi")], GREEDY)
    assert done.args[0] == rid
    assert "".join(batches) in REPLIES
    assert done.args[1].reason is FinishReason.END_OF_TURN
    assert not service.busy


def test_load_failure_is_reported_and_the_service_stays_usable(
    qtbot, make_service, tiny_model: Path, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    service = make_service(LocalEngine)
    with qtbot.waitSignal(service.load_failed, timeout=10000) as failed:
        service.load(str(tmp_path / "missing"))
    assert "not found" in failed.args[0]
    with qtbot.waitSignal(service.loaded, timeout=10000):
        service.load(str(tiny_model), LoadOptions(device="cpu"))


def test_tokens_arrive_in_batches_not_per_token(qtbot, make_service) -> None:  # type: ignore[no-untyped-def]
    engine = FakeEngine(replies=["x" * 300], chars_per_token=1, token_delay_s=0.002)
    service = make_service(lambda: engine)
    with qtbot.waitSignal(service.loaded):
        service.load("fake")
    batches: list[str] = []
    service.tokens_ready.connect(lambda rid, text: batches.append(text))
    with qtbot.waitSignal(service.finished, timeout=10000):
        service.generate([ChatMessage("user", "hi")], GREEDY)
    assert "".join(batches) == "x" * 300
    # 300 tokens over ~0.6 s in ~30 ms batches: far fewer signals than tokens.
    assert 5 <= len(batches) <= 60


def test_cancel_stops_quickly_and_late_output_is_dropped(qtbot, make_service) -> None:  # type: ignore[no-untyped-def]
    engine = FakeEngine(replies=["abcdefghij" * 50, "second reply"], chars_per_token=1, token_delay_s=0.01)
    service = make_service(lambda: engine)
    with qtbot.waitSignal(service.loaded):
        service.load("fake")
    received: list[tuple[int, str]] = []
    finished: list[tuple[int, TurnFinished]] = []
    service.tokens_ready.connect(lambda rid, text: received.append((rid, text)))
    service.finished.connect(lambda rid, fin: finished.append((rid, fin)))
    first = service.generate([ChatMessage("user", "hi")], GREEDY)
    qtbot.waitUntil(lambda: len(received) >= 2, timeout=5000)
    # Regenerate while streaming: the first turn is cancelled and nothing more of it reaches the GUI.
    second = service.generate([ChatMessage("user", "hi")], GREEDY)
    qtbot.waitUntil(lambda: any(rid == second for rid, _ in finished), timeout=5000)
    assert all(rid == second for rid, _ in finished)
    assert "".join(t for rid, t in received if rid == second) == "second reply"
    first_text = "".join(t for rid, t in received if rid == first)
    assert 0 < len(first_text) < 100


def test_stop_reports_cancelled(qtbot, make_service) -> None:  # type: ignore[no-untyped-def]
    engine = FakeEngine(replies=["z" * 500], chars_per_token=1, token_delay_s=0.01)
    service = make_service(lambda: engine)
    with qtbot.waitSignal(service.loaded):
        service.load("fake")
    got: list[str] = []
    service.tokens_ready.connect(lambda rid, text: got.append(text))
    service.generate([ChatMessage("user", "hi")], GREEDY)
    qtbot.waitUntil(lambda: bool(got), timeout=5000)
    started = time.perf_counter()
    with qtbot.waitSignal(service.finished, timeout=5000) as done:
        service.cancel()
    assert done.args[1].reason is FinishReason.CANCELLED
    assert time.perf_counter() - started < 0.5


def test_generation_failure_is_reported(qtbot, make_service) -> None:  # type: ignore[no-untyped-def]
    engine = FakeEngine(replies=["abcdefghijkl"], generate_error="boom: out of memory")
    service = make_service(lambda: engine)
    with qtbot.waitSignal(service.loaded):
        service.load("fake")
    with qtbot.waitSignal(service.finished, timeout=5000) as done:
        service.generate([ChatMessage("user", "hi")], GREEDY)
    assert done.args[1].reason is FinishReason.ERROR and "out of memory" in done.args[1].error


def test_the_gui_thread_stays_responsive_while_the_child_process_works(qtbot, make_service, tiny_model: Path) -> None:  # type: ignore[no-untyped-def]
    from localmind.engine.process import EngineProcess

    service = make_service(EngineProcess)
    with qtbot.waitSignal(service.loaded, timeout=20000):
        service.load(str(tiny_model), LoadOptions(device="cpu", prefill_chunk=1))
    ticks: list[float] = []
    timer = QTimer()
    timer.timeout.connect(lambda: ticks.append(time.perf_counter()))
    timer.start(5)
    with qtbot.waitSignal(service.finished, timeout=20000):
        service.generate([ChatMessage("user", "fox " * 900)], GREEDY)
    timer.stop()
    gaps = [b - a for a, b in itertools.pairwise(ticks)]
    assert gaps and max(gaps) < 0.25  # a coarse guard; bench/ui_lag.py measures the real figures


def test_the_first_words_are_shown_at_once_not_with_the_next_batch(qtbot, make_service) -> None:  # type: ignore[no-untyped-def]
    """A first token that comes at once (type-ahead read the whole prompt) reaches the window before the second
    is even computed: it used to wait in the 30 ms batch for the next token (one forward pass later)."""
    second_may_come = threading.Event()

    class FirstAtOnce(FakeEngine):
        def _stream(self, reply, options):  # type: ignore[no-untyped-def]
            yield TextDelta("Hello")
            second_may_come.wait(10)
            yield TextDelta(" there")
            yield TurnFinished(FinishReason.END_OF_TURN, TurnStats(generated_tokens=2))

    service = make_service(FirstAtOnce)
    with qtbot.waitSignal(service.loaded):
        service.load("fake")
    batches: list[str] = []
    finished: list[int] = []
    service.tokens_ready.connect(lambda rid, text: batches.append(text))
    service.finished.connect(lambda rid, fin: finished.append(rid))
    try:
        service.generate([ChatMessage("user", "hi")], GREEDY)
        qtbot.waitUntil(lambda: batches == ["Hello"], timeout=5000)
    finally:
        second_may_come.set()
    qtbot.waitUntil(lambda: bool(finished), timeout=10000)
    assert "".join(batches) == "Hello there"
