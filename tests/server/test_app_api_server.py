"""The app's local API server: the window's model shared with API clients, turn by turn (workers/api_server.py)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest
from PySide6.QtCore import QElapsedTimer, Qt, QTimer

from localmind import paths
from localmind.workers.api_server import AppApiServer
from tests.helpers.app_window import Launch, greedy_settings, launch_fixture, stored, type_and_send
from tests.helpers.memory_keyring import MemoryKeyring
from tests.server.serving import free_port

pytestmark = [pytest.mark.gui, pytest.mark.slow]


@pytest.fixture
def launch(qtbot: Any, tiny_model: Path) -> Iterator[Launch]:
    yield from launch_fixture(qtbot, tiny_model)


class GapMeter:
    """The longest the GUI thread went without running a 10 ms timer (a frozen window shows as a long gap)."""

    def __init__(self) -> None:
        self.clock = QElapsedTimer()
        self.clock.start()
        self.last = 0
        self.longest = 0
        self.timer = QTimer()
        self.timer.setInterval(10)
        self.timer.timeout.connect(self._tick)
        self.timer.start()

    def _tick(self) -> None:
        now = self.clock.elapsed()
        self.longest = max(self.longest, now - self.last)
        self.last = now


def api_stream(url: str, tokens: int, out: dict[str, Any]) -> None:
    body = {
        "model": "slow",
        "messages": [{"role": "user", "content": "from the API"}],
        "max_tokens": tokens,
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    pieces = 0
    with httpx.stream("POST", url + "/v1/chat/completions", json=body, timeout=60) as r:
        out["status"] = r.status_code
        for line in r.iter_lines():
            if line.startswith("data: {"):
                chunk = json.loads(line[6:])
                if chunk.get("usage"):
                    out["usage"], out["timings"] = chunk["usage"], chunk["timings"]
                for choice in chunk.get("choices") or []:
                    out.setdefault("finish", choice.get("finish_reason"))
                    if choice.get("finish_reason"):
                        out["finish"] = choice["finish_reason"]
                    pieces += bool(choice["delta"].get("content"))
    out["pieces"] = pieces


def test_window_and_api_take_turns_and_stop_never_kills_an_api_request(
    qtbot: Any, launch: Launch, slow_model: Path
) -> None:
    settings = greedy_settings()
    settings.generation.max_new_tokens = 25
    settings.api_server, settings.api_server_port = True, free_port()
    mind = launch(slow_model, settings=settings)
    # Once the keyring has answered and the server listens (both in a task).
    qtbot.waitUntil(lambda: mind.api_status.isVisible(), timeout=10000)
    assert mind.api_status.text() == "API on" and mind.api_server.running
    url = mind.api_server.url.removesuffix("/v1")  # type: ignore[union-attr]
    meter = GapMeter()

    # 1. An API request is running: the window says so; a window message waits for it; Stop in the window stops
    #    only the window's own (waiting) turn.
    api: dict[str, Any] = {}
    thread = threading.Thread(target=api_stream, args=(url, 40, api))
    thread.start()
    qtbot.waitUntil(lambda: mind.api_status.text() == "API: answering a request…", timeout=10000)
    type_and_send(qtbot, mind, "from the window")
    # Sent (waiting for the API's turn) once the window's own model is ready; on a slow machine it may still be loading
    # here, and the message is queued until then.
    qtbot.waitUntil(lambda: mind.session.generating, timeout=20000)
    qtbot.keyClick(mind.window.composer.input, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not mind.session.generating, timeout=10000)
    qtbot.waitUntil(lambda: not thread.is_alive(), timeout=60000)  # the GUI thread keeps running meanwhile
    assert api["status"] == 200 and api["finish"] == "length" and api["usage"]["completion_tokens"] == 40
    qtbot.waitUntil(lambda: mind.api_status.text() == "API on", timeout=5000)

    # 2. The window's turn is running: an API request waits for it, then runs; both complete.
    type_and_send(qtbot, mind, "window again")
    qtbot.waitUntil(lambda: mind.session.generating, timeout=5000)
    api2: dict[str, Any] = {}
    thread = threading.Thread(target=api_stream, args=(url, 10, api2))
    thread.start()
    qtbot.waitUntil(lambda: not mind.session.generating, timeout=30000)
    qtbot.waitUntil(lambda: not thread.is_alive(), timeout=60000)  # the GUI thread keeps running meanwhile
    assert api2["usage"]["completion_tokens"] == 10 and api2["timings"]["queued_ms"] > 100  # it waited its turn
    messages = stored(mind)
    assert messages[-2][:2] == ("user", "window again") and messages[-1][2] == "complete"
    assert len(messages[-1][1]) == 25  # the slow model writes one letter per token: the whole reply
    # The window kept painting throughout (a freeze would be a gap as long as a whole turn).
    assert meter.longest < 1000, meter.longest


def test_settings_turn_the_server_on_and_off_and_lan_needs_a_key(
    qtbot: Any, launch: Launch, memory_keyring: MemoryKeyring
) -> None:
    mind = launch()
    assert not mind.api_server.running and not mind.api_status.isVisible()
    dialog = mind.open_settings()
    tab = dialog.server_tab
    qtbot.waitUntil(lambda: tab.keys_loaded, timeout=10000)  # read in a task
    dialog.tabs.setCurrentWidget(tab)
    port = free_port()
    qtbot.mouseClick(tab.server_enabled, Qt.MouseButton.LeftButton)
    tab.port.setValue(port)
    qtbot.mouseClick(tab.lan, Qt.MouseButton.LeftButton)
    assert "API key" in tab.server_error.text()
    dialog.accept()  # refused: it stays open on the Server tab with the reason
    assert dialog.isVisible() and dialog.tabs.currentWidget() is tab and not mind.api_server.running
    qtbot.mouseClick(tab.lan, Qt.MouseButton.LeftButton)
    tab.api_key.setFocus()
    qtbot.keyClicks(tab.api_key, "sekrit")
    dialog.accept()
    qtbot.waitUntil(lambda: mind.api_server.running, timeout=10000)
    assert mind.settings.api_server and mind.settings.api_server_port == port
    r = httpx.get(f"http://127.0.0.1:{port}/v1/models", headers={"Authorization": "Bearer sekrit"})
    assert r.status_code == 200 and r.json()["data"][0]["id"] == "tiny"
    assert httpx.get(f"http://127.0.0.1:{port}/v1/models").status_code == 401
    # The key went to the keyring, not to the settings file.
    assert memory_keyring.store[("LocalMind", "api-server-key")] == "sekrit"
    assert "sekrit" not in paths.settings_path().read_text(encoding="utf-8")
    dialog = mind.open_settings()
    dialog.tabs.setCurrentWidget(dialog.server_tab)  # a click on a tab that is not shown does nothing
    qtbot.mouseClick(dialog.server_tab.server_enabled, Qt.MouseButton.LeftButton)
    assert not dialog.server_tab.server_enabled.isChecked()
    dialog.accept()
    assert not mind.api_status.isVisible()  # at once; the server itself stops in a task
    qtbot.waitUntil(lambda: not mind.api_server.running, timeout=15000)
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"http://127.0.0.1:{port}/health", timeout=2)


def test_a_slow_server_start_and_stop_never_freeze_the_window(
    qtbot: Any, launch: Launch, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Starting imports the web framework and waits for the port; stopping lets a streaming request end: seconds on
    a slow computer. Both run in a task: the window keeps painting (here each is held back 1.5 s)."""
    real_start, real_stop = AppApiServer.start, AppApiServer.stop
    threads: list[threading.Thread] = []

    def slow_start(self: AppApiServer, *args: Any) -> str:
        threads.append(threading.current_thread())
        time.sleep(1.5)
        return real_start(self, *args)

    def slow_stop(self: AppApiServer) -> None:
        if self.running:
            threads.append(threading.current_thread())
            time.sleep(1.5)
        real_stop(self)

    monkeypatch.setattr(AppApiServer, "start", slow_start)
    monkeypatch.setattr(AppApiServer, "stop", slow_stop)
    settings = greedy_settings()
    settings.api_server, settings.api_server_port = True, free_port()
    meter = GapMeter()
    mind = launch(settings=settings)
    qtbot.waitUntil(lambda: mind.api_status.isVisible(), timeout=15000)  # the status bar shows it on
    port = settings.api_server_port
    assert httpx.get(f"http://127.0.0.1:{port}/health", timeout=5).status_code == 200
    dialog = mind.open_settings()
    dialog.tabs.setCurrentWidget(dialog.server_tab)
    qtbot.mouseClick(dialog.server_tab.server_enabled, Qt.MouseButton.LeftButton)
    meter.longest = 0
    dialog.accept()
    qtbot.waitUntil(lambda: not mind.api_server.running, timeout=15000)
    assert meter.longest < 1000, meter.longest  # 1.5 s on the GUI thread would show here
    assert len(threads) == 2 and threading.main_thread() not in threads


def test_the_windows_server_closes_a_client_that_never_finishes_its_headers(qtbot: Any, launch: Launch) -> None:
    """The window's API server has serve's guards (issue 21): a slow client gets 408 and is closed."""
    import socket

    mind = launch()
    mind.api_server.header_timeout = 0.5
    port = free_port()
    mind.api_server.start(port, None, False)
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
            sock.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # and never the blank line
            answer = sock.recv(4096)
        assert answer.startswith(b"HTTP/1.1 408"), answer
    finally:
        mind.api_server.stop()
