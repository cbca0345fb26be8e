"""One engine, one owner (issue 18): the window and two API clients at once, through the real engine process.

The window's handle (InferenceService) and its API server (AppApiServer, real HTTP with the official ``openai``
client from two loopback addresses, so the server sees two clients) share the engine service. A first API
request holds the engine — its child is frozen mid-prefill with SIGSTOP, so the others arrive while it runs,
exactly, not by timing. Then: the two API clients' requests and the window's turn all wait in the service's
queue (nobody blocks on a lock: the window's call returns at once, the server keeps answering), and once the
child runs again the window's turn is started before both API requests. Cancelling any job — waiting, or
running (a turn mid-prefill, a read-ahead) — stops it within one engine step (the child's heartbeat counts
its steps: one per prefill chunk or token).
"""

from __future__ import annotations

import dataclasses
import os
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import openai
import pytest

from localmind.engine.process import EngineProcess
from localmind.engine.service import Dropped, Priority, Turn
from localmind.engine.types import ChatMessage, FinishReason, GenerationOptions, LoadInfo, LoadOptions
from localmind.workers.api_server import AppApiServer
from localmind.workers.inference import InferenceService
from tests.helpers.processes import freeze
from tests.server.serving import free_port

pytestmark = [pytest.mark.gui, pytest.mark.skipif(not hasattr(signal, "SIGSTOP"), reason="POSIX signals")]

LONG = "fox " * 400  # ~800 tokens: read one token per chunk, so a turn or a read can be caught mid-way
GREEDY = GenerationOptions(temperature=0, max_new_tokens=8)


class OneTokenChunks(EngineProcess):
    """The real engine process, reading prompts one token per chunk (each chunk is one heartbeat)."""

    def load(self, model_dir: str, options: LoadOptions | None = None) -> LoadInfo:
        return super().load(model_dir, dataclasses.replace(options or LoadOptions(), prefill_chunk=1))


@pytest.fixture
def window(qtbot: Any, tiny_model: Path) -> Iterator[InferenceService]:
    service = InferenceService(OneTokenChunks)
    with qtbot.waitSignal(service.loaded, timeout=120000):
        service.load(str(tiny_model), LoadOptions(device="cpu"))
    yield service
    service.shutdown()


def wait_until(qtbot: Any, condition: Any, timeout_ms: int = 30000) -> None:
    qtbot.waitUntil(condition, timeout=timeout_ms)


def beats(service: InferenceService) -> int:
    engine = service.engine
    assert isinstance(engine, EngineProcess)
    return int(engine._beats.value)


def client_from(address: str, url: str) -> openai.OpenAI:
    transport = httpx2.HTTPTransport(local_address=address)
    return openai.OpenAI(
        base_url=url, api_key="unused", max_retries=0, timeout=120, http_client=httpx2.Client(transport=transport)
    )


def ask(address: str, url: str, text: str, out: dict[str, Any]) -> None:
    try:
        with client_from(address, url) as client:
            reply = client.chat.completions.create(
                model="tiny", messages=[{"role": "user", "content": text}], max_tokens=8, temperature=0
            )
        out["finish"] = reply.choices[0].finish_reason
    except Exception as exc:  # the test asserts on it
        out["error"] = exc


def test_the_windows_turn_starts_before_two_waiting_api_clients_and_nobody_waits_on_a_lock(
    qtbot: Any, window: InferenceService
) -> None:
    api = AppApiServer(window)
    url = api.start(free_port(), None, False)
    engine_service = window.engine_service
    started: list[tuple[str, Priority]] = []
    engine_service.on_running(lambda t, running: started.append((t.client, t.priority)) if running else None)
    try:
        results: dict[str, dict[str, Any]] = {a: {} for a in ("127.0.0.1", "127.0.0.2", "127.0.0.3")}
        first = threading.Thread(target=ask, args=("127.0.0.1", url, LONG, results["127.0.0.1"]))
        first.start()
        wait_until(qtbot, lambda: started == [("127.0.0.1", Priority.API)])
        at = beats(window)
        wait_until(qtbot, lambda: beats(window) >= at + 20)  # mid-prefill
        frozen = freeze(window.engine.pid)  # type: ignore[attr-defined]
        try:
            others = [threading.Thread(target=ask, args=(a, url, "hi", results[a])) for a in ("127.0.0.2", "127.0.0.3")]
            for n, thread in enumerate(others, 1):
                thread.start()
                wait_until(qtbot, lambda n=n: engine_service.waiting(Priority.API) == n)
            asked = time.monotonic()
            request_id = window.generate([ChatMessage("user", "hi")], GREEDY)
            assert time.monotonic() - asked < 0.5, "the window's call waited"
            assert engine_service.waiting(Priority.WINDOW) == 1 and engine_service.waiting(Priority.API) == 2
            # The server is not blocked either: it answers while the engine is held.
            health = httpx2.get(url.removesuffix("/v1") + "/health", timeout=10)
            assert health.json()["waiting"] == 2 and health.json()["busy"] is True
        finally:
            os.kill(frozen, signal.SIGCONT)
        with qtbot.waitSignal(window.finished, timeout=60000) as finished:
            pass
        assert finished.args[0] == request_id and finished.args[1].reason in (
            FinishReason.END_OF_TURN,
            FinishReason.LENGTH,
        )
        for thread in [first, *others]:
            thread.join(60)
        assert all(r.get("finish") in ("stop", "length") for r in results.values()), results
        assert started == [
            ("127.0.0.1", Priority.API),
            ("window", Priority.WINDOW),
            ("127.0.0.2", Priority.API),
            ("127.0.0.3", Priority.API),
        ]
    finally:
        api.stop()


def test_a_running_window_turn_stops_within_one_engine_step(qtbot: Any, window: InferenceService) -> None:
    with qtbot.waitSignal(window.finished, timeout=60000) as finished:
        window.generate([ChatMessage("user", LONG)], GREEDY)
        at = beats(window)
        wait_until(qtbot, lambda: beats(window) >= at + 20)
        window.cancel()
        at_cancel = beats(window)
    assert finished.args[1].reason is FinishReason.CANCELLED
    assert beats(window) - at_cancel <= 2  # the chunk in flight, and the check that saw the flag


def test_a_running_read_ahead_stops_within_one_engine_step(qtbot: Any, window: InferenceService) -> None:
    with qtbot.waitSignal(window.prefilled, timeout=60000) as prefilled:
        assert window.prefill([ChatMessage("user", LONG)], "", whole=True)
        at = beats(window)
        wait_until(qtbot, lambda: beats(window) >= at + 20)
        running = window.engine_service.running
        assert running is not None and running.priority is Priority.BACKGROUND
        running.cancel()
        at_cancel = beats(window)
    assert prefilled.args[0] < 700  # stopped part-way
    assert beats(window) - at_cancel <= 2


def test_a_waiting_window_turn_and_a_waiting_api_request_end_at_once_and_never_run(
    qtbot: Any, window: InferenceService
) -> None:
    engine_service = window.engine_service
    started: list[str] = []
    engine_service.on_running(lambda t, running: started.append(t.client) if running else None)
    holder = engine_service.submit(
        Turn([ChatMessage("user", LONG)], GREEDY),
        priority=Priority.API,
        client="holder",
    )
    at = beats(window)
    wait_until(qtbot, lambda: beats(window) >= at + 20)
    frozen = freeze(window.engine.pid)  # type: ignore[attr-defined]
    try:
        api_job = engine_service.submit(
            Turn([ChatMessage("user", "hi")], GREEDY),
            priority=Priority.API,
            client="api",
        )
        with qtbot.waitSignal(window.finished, timeout=1000) as finished:
            window.generate([ChatMessage("user", "hi")], GREEDY)
            window.cancel()
        assert finished.args[1].reason is FinishReason.CANCELLED
        assert api_job.cancel() is True
        assert engine_service.waiting() == 0
    finally:
        os.kill(frozen, signal.SIGCONT)
    list(holder.events(timeout=60))
    assert list(api_job.events(timeout=5)) == [Dropped("cancelled")]
    assert started == ["holder"]
