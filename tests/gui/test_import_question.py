"""Importing a model folder asks a real question with Cancel; Esc cancels (issue 9.8)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QFileDialog, QMessageBox, QPushButton

from localmind.core.hub import list_installed
from localmind.ui.model_manager import ModelManagerPage

pytestmark = pytest.mark.gui


@pytest.fixture
def page(qtbot: Any, tiny_model: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[ModelManagerPage]:
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", lambda *a, **k: str(tiny_model))
    widget = ModelManagerPage()
    qtbot.addWidget(widget)
    widget.show()
    yield widget
    widget.controller.shutdown()


def _answer(qtbot: Any, act: Any) -> dict[str, Any]:
    """Answer the question box that opens next with ``act(box)``; report what it showed."""
    seen: dict[str, Any] = {}

    def answer() -> None:
        box = QApplication.activeModalWidget()
        if not isinstance(box, QMessageBox):
            QTimer.singleShot(50, answer)
            return
        seen.update(text=box.text(), detail=box.informativeText(), format=box.textFormat())
        seen["buttons"] = [b.text() for b in box.buttons()]
        act(box)

    QTimer.singleShot(0, answer)
    return seen


def test_escape_cancels_the_import(qtbot: Any, page: ModelManagerPage, tiny_model: Path) -> None:
    seen = _answer(qtbot, lambda box: qtbot.keyClick(box, Qt.Key.Key_Escape))
    page.import_folder_button.click()
    assert seen["text"] == "Copy the model into LocalMind's folder?"  # the question itself, not the window title
    assert str(tiny_model) in seen["detail"]
    assert seen["format"] == Qt.TextFormat.PlainText
    assert {"Copy it", "Use it where it is", "Cancel"} <= set(seen["buttons"])
    qtbot.wait(300)
    assert not page.controller.is_running(f"import:{tiny_model}")
    assert list_installed() == []


def test_use_it_where_it_is_imports_in_place(qtbot: Any, page: ModelManagerPage, tiny_model: Path) -> None:
    def in_place(box: QMessageBox) -> None:
        (button,) = [b for b in box.buttons() if b.text() == "Use it where it is"]
        assert isinstance(button, QPushButton)
        button.click()

    _answer(qtbot, in_place)
    page.import_folder_button.click()
    qtbot.waitUntil(lambda: len(list_installed()) == 1, timeout=15000)
    (model,) = list_installed()
    assert model.model_path.resolve() == tiny_model.resolve()  # used where it is, not copied
