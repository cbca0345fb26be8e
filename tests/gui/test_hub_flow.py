"""Issue 8's "done when", in the real window with the real engine: search "smollm2" against the fake hub, see which
results run here, download one (only what it needs), load it and chat."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from localmind.ui.model_manager import ModelManagerPage
from tests.helpers.app_window import Launch, launch_fixture, send_and_wait, stored, type_text
from tests.helpers.fake_hub import FakeHub, FakeRepo, community_repo_files
from tests.helpers.hub_env import allow_hub_access, use_keyring

# The random-weight onnx-community fixture comes with the formats work (tests/helpers/community_model.py).
cached = pytest.importorskip("tests.helpers.community_model", reason="needs formats' fixture builder").cached

pytestmark = [pytest.mark.gui, pytest.mark.slow]
SMOL = "onnx-community/SmolLM2-135M-Instruct-ONNX"
WHISPER = "onnx-community/smollm2-whisper-ONNX"


@pytest.fixture
def hub(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeHub]:
    allow_hub_access(monkeypatch)
    use_keyring(monkeypatch)
    server = FakeHub()
    server.add_repo(FakeRepo(SMOL, community_repo_files(cached("smollm2-tiny")), info={"downloads": 50}))
    whisper = {"model_type": "whisper", "architectures": ["WhisperForConditionalGeneration"]}
    server.add_repo(FakeRepo(WHISPER, community_repo_files(config=whisper), info={"downloads": 90}))
    with server:
        monkeypatch.setenv("HF_ENDPOINT", server.endpoint)
        yield server


@pytest.fixture
def launch(qtbot: QtBot, tiny_model: Path) -> Iterator[Launch]:
    yield from launch_fixture(qtbot, tiny_model)


def test_search_download_and_chat(qtbot: QtBot, hub: FakeHub, launch: Launch) -> None:
    mind = launch(None)
    mind.window.show_model_manager()
    page = mind.window.model_manager
    assert isinstance(page, ModelManagerPage)
    panel = page.search
    panel.input.setFocus()
    type_text(qtbot, panel.input, "smollm2")
    qtbot.keyClick(panel.input, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: "run on this computer;" in panel.note.text(), timeout=20_000)
    verdicts = {panel.results[r].repo: panel.table.item(r, 1).text() for r in range(panel.table.rowCount())}
    assert verdicts == {SMOL: "✓ Prepared", WHISPER: "✗ Not supported"}

    row = next(r for r in range(panel.table.rowCount()) if panel.results[r].repo == SMOL)
    rect = panel.table.visualItemRect(panel.table.item(row, 0))
    qtbot.mouseClick(panel.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    with qtbot.waitSignal(page.controller.download_succeeded, timeout=60_000) as done:
        qtbot.mouseClick(panel.download_button, Qt.MouseButton.LeftButton)
    model = done.args[1]
    served = {p for p, n in hub.bytes_served.items() if n and p.startswith("onnx/")}
    assert served == {"onnx/model_q4.onnx"}  # only the variant for this CPU
    # No model was loaded: the new one loads at once, and the note under the installed list says so.
    assert "loading in the chat" in page.installed_note.text()
    assert page.selected_installed() is not None and page.selected_installed().id == model.id
    assert "Quantization: 4-bit" in page.installed_details.text()
    qtbot.waitUntil(lambda: mind.session.model is not None, timeout=30_000)
    assert mind.session.model.model_dir == str(model.folder)
    send_and_wait(qtbot, mind, "Hello")
    messages = stored(mind)
    assert messages[0][:2] == ("user", "Hello") and messages[-1][0] == "assistant" and messages[-1][1]
    page.refresh()
    page.select_installed(model.id)
    assert "when loaded" in page.installed_details.text()  # the memory measured after the load
