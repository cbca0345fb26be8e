"""Settings → Server with a keyring that blocks (a locked keychain waiting for its password, a keyring service
still starting): the dialog opens, takes typing and closes while the keyring has not answered, and the keys
arrive (read into the fields; stored, then used by the API server) once it does."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2 as httpx
import keyring
import pytest
from PySide6.QtCore import Qt

from tests.helpers.app_window import Launch, launch_fixture
from tests.helpers.memory_keyring import MemoryKeyring
from tests.server.serving import free_port
from tests.server.test_app_api_server import GapMeter

pytestmark = [pytest.mark.gui, pytest.mark.slow]
SHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
SERVICE = "LocalMind"


class HeldKeyring(MemoryKeyring):
    """A working keyring whose every call waits while ``hold`` is set, until ``release`` (or 30 s: no deadlock)."""

    def __init__(self) -> None:
        super().__init__()
        self.hold = threading.Event()
        self.released = threading.Event()
        self.waiting = 0
        self.threads: list[threading.Thread] = []
        self._lock = threading.Lock()

    def _wait(self) -> None:
        self.threads.append(threading.current_thread())
        if not self.hold.is_set():
            return
        with self._lock:
            self.waiting += 1
        self.released.wait(30)
        with self._lock:
            self.waiting -= 1

    def get_password(self, service: str, username: str) -> str | None:
        self._wait()
        return super().get_password(service, username)

    def set_password(self, service: str, username: str, password: str) -> None:
        self._wait()
        super().set_password(service, username, password)

    def delete_password(self, service: str, username: str) -> None:
        self._wait()
        super().delete_password(service, username)

    def block(self) -> None:
        self.released.clear()
        self.hold.set()

    def answer(self) -> None:
        self.hold.clear()
        self.released.set()


@pytest.fixture
def held_keyring() -> Iterator[HeldKeyring]:
    previous = keyring.get_keyring()
    backend = HeldKeyring()
    keyring.set_keyring(backend)
    yield backend
    backend.answer()
    keyring.set_keyring(previous)


@pytest.fixture
def launch(qtbot: Any, tiny_model: Path) -> Iterator[Launch]:
    yield from launch_fixture(qtbot, tiny_model)


def test_a_blocking_keyring_never_freezes_the_server_settings(
    qtbot: Any, launch: Launch, held_keyring: HeldKeyring, tmp_path: Path
) -> None:
    held_keyring.store[(SERVICE, "api-server-key")] = "old-key"
    mind = launch()
    qtbot.waitUntil(lambda: not mind.tasks.running(), timeout=10000)  # the start-up read has answered
    held_keyring.block()
    meter = GapMeter()
    dialog = mind.open_settings()
    tab = dialog.server_tab
    dialog.tabs.setCurrentWidget(tab)
    # The dialog is up while the keyring still has not answered its read.
    qtbot.waitUntil(lambda: held_keyring.waiting >= 1, timeout=10000)
    assert not tab.keys_loaded and tab.api_key.placeholderText() == "Reading the keyring…"
    if os.environ.get("LOCALMIND_KEEP_SCREENSHOTS"):
        dialog.grab().save(str(SHOTS / "server-settings-reading-keyring-en-light.png"))
    port = free_port()
    qtbot.mouseClick(tab.server_enabled, Qt.MouseButton.LeftButton)
    tab.port.setValue(port)
    assert tab.server_enabled.isChecked() and tab.port.isEnabled()  # it takes input meanwhile
    qtbot.wait(300)  # the window keeps painting while the keyring waits
    assert held_keyring.waiting >= 1 and meter.longest < 1000, meter.longest
    held_keyring.answer()
    qtbot.waitUntil(lambda: tab.keys_loaded, timeout=10000)
    assert tab.api_key.text() == "old-key"

    tab.api_key.clear()
    tab.api_key.setFocus()
    qtbot.keyClicks(tab.api_key, "new-key")
    held_keyring.block()
    meter.longest = 0
    dialog.accept()  # closes at once: the key is stored by a task
    assert not dialog.isVisible()
    qtbot.waitUntil(lambda: held_keyring.waiting >= 1, timeout=10000)
    qtbot.wait(300)
    assert held_keyring.waiting >= 1 and not mind.api_server.running and meter.longest < 1000, meter.longest
    held_keyring.answer()
    qtbot.waitUntil(lambda: mind.api_server.running, timeout=15000)
    assert held_keyring.store[(SERVICE, "api-server-key")] == "new-key"
    models = f"http://127.0.0.1:{port}/v1/models"
    assert httpx.get(models, headers={"Authorization": "Bearer new-key"}).status_code == 200
    assert httpx.get(models, headers={"Authorization": "Bearer old-key"}).status_code == 401
    # Not once on the GUI thread.
    assert held_keyring.threads and threading.main_thread() not in held_keyring.threads
    mind.settings.api_server = False
    mind.api_server.stop()
