"""The real app under Xvfb with its API server on: typed into with real X key events while an API client streams."""

from __future__ import annotations

import json
import os
import shutil
import threading
import time
from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest

from tests.helpers.xwindow import wait_until, x_display
from tests.server.serving import free_port
from tests.server.test_app_api_server import api_stream

pytestmark = [pytest.mark.gui, pytest.mark.slow]
SHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


def _healthy(url: str) -> bool:
    try:
        return httpx.get(url + "/health", timeout=2).status_code == 200
    except httpx.TransportError:
        return False  # not listening yet


def test_window_typed_into_while_an_api_request_runs(tmp_path: Path, slow_model: Path) -> None:
    port = free_port()
    data = tmp_path / "data"
    data.mkdir()
    settings = {
        "api_server": True,
        "api_server_port": port,
        "theme": "light",
        "language": "en",
        "generation": {"temperature": 0.0, "max_new_tokens": 20},
    }
    (data / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    with x_display() as x:
        app = x.start_app(data, slow_model)
        app.wait_model_loaded(slow_model)
        url = f"http://127.0.0.1:{port}"
        wait_until(lambda: _healthy(url), 30, "the API server")  # it starts in the background
        api: dict[str, Any] = {}
        thread = threading.Thread(target=api_stream, args=(url, 60, api))
        thread.start()
        app.activate()
        x.type("typed while the API answers")
        x.key("Return")
        wait_until(lambda: app.messages("user"), 20, "the typed message to be stored")
        time.sleep(1.0)  # let the window paint the message and its waiting reply
        shot = x.screenshot(tmp_path / "window.png")
        if os.environ.get("LOCALMIND_KEEP_SCREENSHOTS"):
            shutil.copy(shot, SHOTS / "server-window-api-busy-en-light.png")
        thread.join(120)
        assert api["status"] == 200 and api["usage"]["completion_tokens"] == 60 and api["finish"] == "length"
        # The reply as it ended (any final status), so a failure says how it ended, not only that it did not.
        ended = app.wait_until(
            lambda: [m for m in app.messages("assistant") if m[2] != "streaming"], 120, "the window's reply to end"
        )
        replies = [m for m in ended if m[2] == "complete"]
        assert replies, f"the window's reply ended as {ended}; the app said: {app.output()[-2000:]}"
        assert [content for _, content, _ in app.messages("user")] == ["typed while the API answers"]
        assert len(replies[0][1]) == 20  # the slow model writes one letter per token: the whole reply
