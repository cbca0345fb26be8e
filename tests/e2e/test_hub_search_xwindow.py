"""Issue 8's "done when", typed like a person: the real app under Xvfb + openbox, real X key events (xdotool).

Ctrl+Shift+M opens the model manager with the cursor in the search box; "smollm2" + Enter searches the fake hub;
Tab Tab reaches the results and Enter downloads the first (the most downloaded, which runs here); with no model
loaded the new one loads at once; Ctrl+N goes to the chat, and a typed message gets a reply from it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers.fake_hub import FakeHub, FakeRepo, community_repo_files
from tests.helpers.hub_env import allow_hub_access
from tests.helpers.xwindow import XDisplay, require_x, wait_until

# The random-weight onnx-community fixture comes with the formats work (tests/helpers/community_model.py).
cached = pytest.importorskip("tests.helpers.community_model", reason="needs formats' fixture builder").cached

pytestmark = pytest.mark.slow
SMOL = "onnx-community/SmolLM2-135M-Instruct-ONNX"
WHISPER = "onnx-community/smollm2-whisper-ONNX"
SHOTS = Path(__file__).resolve().parents[2] / "build" / "screenshots"


@pytest.fixture
def hub(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeHub]:
    allow_hub_access(monkeypatch)
    server = FakeHub()
    server.add_repo(FakeRepo(SMOL, community_repo_files(cached("smollm2-tiny")), info={"downloads": 500}))
    whisper = {"model_type": "whisper", "architectures": ["WhisperForConditionalGeneration"]}
    server.add_repo(FakeRepo(WHISPER, community_repo_files(config=whisper), info={"downloads": 90}))
    with server:
        yield server


def configs_read(hub: FakeHub) -> set[str]:
    return {
        r.path.split("/resolve/")[0].lstrip("/") for r in hub.requests(method="GET") if r.path.endswith("/config.json")
    }


def test_a_person_searches_downloads_and_chats(hub: FakeHub, tmp_path: Path) -> None:
    require_x()
    data = tmp_path / "data"
    env = {"HF_ENDPOINT": hub.endpoint, "HF_HUB_OFFLINE": "0", "HF_HUB_DISABLE_TELEMETRY": "1"}
    with XDisplay() as x:
        app = x.start_app(data, env=env)
        app.activate()
        x.key("ctrl+shift+m")
        x.type("smollm2")
        x.key("Return")
        wait_until(lambda: configs_read(hub) == {SMOL, WHISPER}, 30, "both results to be checked")
        x.screenshot(SHOTS / "hub-xwindow-results.png")
        x.key("Tab", "Tab", "Return")  # the results list, then Enter on its first row
        manifest = data / "models" / "smollm2-135m-instruct-onnx-q4" / "localmind-manifest.json"
        wait_until(manifest.is_file, 60, "the download to be installed")
        served = {p for p, n in hub.bytes_served.items() if n and p.startswith("onnx/")}
        assert served == {"onnx/model_q4.onnx"}
        app.wait_model_loaded(manifest.parent, timeout=60)
        x.key("ctrl+n")
        x.type("Hello there")
        x.key("Return")
        reply = app.wait_until(lambda: [m for m in app.messages("assistant") if m[1]], 60, "a reply")
        assert app.messages("user")[0][1] == "Hello there"
        assert reply[0][1]
        x.screenshot(SHOTS / "hub-xwindow-chat.png")
