"""The model manager's "Import folder…" with an onnx-community export: one variant is installed as a package."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from localmind.core.hub import list_installed
from localmind.engine.formats import genai_config
from localmind.ui.model_manager import ModelManagerPage
from tests.gui import test_model_manager as manager
from tests.helpers import community_model
from tests.unit.formats.test_prepare import snapshot

pytestmark = [pytest.mark.gui, pytest.mark.slow]
hub, opened, page = manager.hub, manager.opened, manager.page  # the model manager tests' page and what it needs


def test_import_folder_installs_the_q4_variant_as_a_package(
    qtbot: QtBot, page: ModelManagerPage, tmp_path: Path
) -> None:
    user = community_model.copy_of("smollm2-tiny", tmp_path / "SmolLM2-tiny-ONNX")
    before = snapshot(user)
    with qtbot.waitSignal(page.controller.task_succeeded, timeout=30_000):
        page.import_path(str(user))  # what "Import folder…" does with the folder the user picked (copy)
    (model,) = list_installed()
    assert model.id == "smollm2-tiny-onnx-q4" and model.manifest.name == "SmolLM2-tiny-ONNX (q4)"
    rows = [page.installed_table.item(r, 0).text() for r in range(page.installed_table.rowCount())]
    assert any("SmolLM2-tiny-ONNX (q4)" in text for text in rows)
    assert "GroupQueryAttention" in genai_config.read_graph_io(model.model_path / "onnx/model_q4.onnx").op_types
    assert not (model.model_path / "onnx/model.onnx").exists()
    assert snapshot(user) == before
    page.select_installed(model.id)
    assert page.load_button.isEnabled()
