"""Settings → Server → Remote models → "Test connection", against LocalMind's own server and a closed port."""

from __future__ import annotations

from typing import Any

import pytest

from localmind.settings import Settings
from localmind.ui.server_settings import ServerSettingsTab
from tests.server.serving import Server, free_port

pytestmark = [pytest.mark.gui]


def check_from_settings(qtbot: Any, url: str) -> tuple[bool, str]:
    tab = ServerSettingsTab(Settings())
    qtbot.addWidget(tab)
    tab.remote_enabled.setChecked(True)
    tab.remote_url.setText(url)
    with qtbot.waitSignal(tab.connection_tested, timeout=20000) as signal:
        tab.test_button.click()
    qtbot.waitUntil(lambda: tab.test_result.text() == signal.args[1], timeout=5000)
    return bool(signal.args[0]), str(signal.args[1])


def test_a_server_that_answers_lists_its_models(qtbot: Any, tiny_server: Server) -> None:
    ok, message = check_from_settings(qtbot, tiny_server.url)
    assert ok, message
    host = tiny_server.url.removeprefix("http://")
    assert message.startswith(f"Connected to {host}: 1 models (") and "tiny" in message


def test_a_closed_port_says_so(qtbot: Any) -> None:
    ok, message = check_from_settings(qtbot, f"http://127.0.0.1:{free_port()}")
    assert not ok
    assert "refused the connection" in message
