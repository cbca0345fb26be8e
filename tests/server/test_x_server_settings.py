"""Settings → Server in the real app under Xvfb, typed into with real X key events: share the model with a key,
press Enter, and the API answers with that key only. The key is read and stored off the GUI thread (this machine
has no keyring: it is kept for the session, never in settings.json)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import httpx2 as httpx
import pytest

from tests.helpers.xwindow import wait_until, x_display
from tests.server.serving import free_port

pytestmark = [pytest.mark.gui, pytest.mark.slow]
SHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


def test_share_the_model_with_a_key_from_the_settings(tmp_path: Path, tiny_model: Path) -> None:
    port = free_port()
    data = tmp_path / "data"
    data.mkdir()
    (data / "settings.json").write_text(json.dumps({"theme": "light", "language": "en"}), encoding="utf-8")
    with x_display() as x:
        app = x.start_app(data, tiny_model)
        app.wait_model_loaded(tiny_model)
        app.activate()
        x.key("ctrl+comma")
        dialog = x.find_window("^Settings$", 30)
        x.focus(dialog)
        x.key("ctrl+Tab", "ctrl+Tab")  # This chat → App → Server (the tab bar has the focus)
        x.key("Tab", "space")  # into the tab: "Share the loaded model with other programs"
        x.key("Tab", "ctrl+a")
        x.type(str(port))
        x.key("Tab")
        x.type("x-key-42")
        shot = x.screenshot(tmp_path / "settings.png", dialog)
        if os.environ.get("LOCALMIND_KEEP_SCREENSHOTS"):
            shutil.copy(shot, SHOTS / "server-settings-typed-en-light.png")
        x.key("Return")  # OK
        models = f"http://127.0.0.1:{port}/v1/models"

        def answers() -> bool:
            try:
                return httpx.get(models, headers={"Authorization": "Bearer x-key-42"}, timeout=2).status_code == 200
            except httpx.TransportError:
                return False

        wait_until(answers, 30, "the API server to answer with the typed key")
        assert httpx.get(models, timeout=5).status_code == 401
        saved = app.settings()
        assert saved.get("api_server") is True and saved.get("api_server_port") == port
        assert "x-key-42" not in (data / "settings.json").read_text(encoding="utf-8")
