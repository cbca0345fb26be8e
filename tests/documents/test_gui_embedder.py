"""The Documents page's "Get search by meaning" button in the real window, against the fake hub on loopback:
the model manager downloads the catalog's embedding model, Documents switches to search by meaning and embeds what was
indexed before, and the chat's model menu never offers the embedding model."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

from localmind.documents.library import index_path
from tests.documents.embedding_repo import E5_ID, e5_hub
from tests.documents.test_gui import drop, wait_idle
from tests.helpers.app_window import Launch, launch_fixture
from tests.helpers.fake_hub import FakeHub

pytestmark = pytest.mark.gui


@pytest.fixture
def launch(qtbot: Any, roomy_model: Path) -> Iterator[Launch]:
    yield from launch_fixture(qtbot, roomy_model)


@pytest.fixture
def hub(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeHub]:
    with e5_hub(tmp_path_factory, monkeypatch) as server:
        monkeypatch.setenv("HF_ENDPOINT", server.endpoint)
        yield server


def vector_count() -> int:
    import sqlite3

    db = sqlite3.connect(index_path())
    try:
        return int(db.execute("SELECT count(*) FROM vectors WHERE model = ?", (E5_ID,)).fetchone()[0])
    finally:
        db.close()


def test_the_button_downloads_the_embedding_model_and_documents_use_it(
    qtbot: Any, launch: Launch, hub: FakeHub, corpus: Path
) -> None:
    mind = launch()
    feature = mind.documents
    page = feature.page
    qtbot.mouseClick(mind.window.sidebar.documents_button, Qt.MouseButton.LeftButton)
    assert page.get_embedder_button.isVisible() and "Searching by words only" in page.embedder_note.text()
    drop(page, [corpus])
    wait_idle(qtbot, feature)
    chunks = sum(page.files.rows[r][0].chunks for r in range(page.files.rowCount()))
    assert chunks > 0 and vector_count() == 0

    qtbot.mouseClick(page.get_embedder_button, Qt.MouseButton.LeftButton)
    manager = mind.window.model_manager
    assert manager is not None and mind.window.main_stack.currentWidget() is mind.window.manager_holder
    assert not page.get_embedder_button.isEnabled()  # not twice
    qtbot.waitUntil(lambda: feature.library.embedder is not None, timeout=60000)
    assert "Documents now uses it" in manager.message_text()
    wait_idle(qtbot, feature)
    assert vector_count() == chunks  # what was indexed before got its vectors, in the background
    assert feature.library.model_id == E5_ID
    assert not page.get_embedder_button.isVisibleTo(page) and E5_ID in page.details.text()
    assert feature.library.retriever.dense("Kestrel Ridge rain gauge", feature.library.embedder)

    # In the model manager it is installed and ready, but cannot be loaded in the chat; the model menu omits it.
    manager.select_installed(E5_ID)
    assert manager.selected_installed().kind == "embedding"
    assert not manager.load_button.isEnabled()
    row = next(r for r in range(manager.installed_table.rowCount()) if manager.installed_table.item(r, 0).data(
        Qt.ItemDataRole.UserRole) == E5_ID)  # fmt: skip
    assert "Documents" in manager.installed_table.item(row, 3).text()
    mind.window.refresh_model_menu()
    names = [a.text() for a in mind.window.header._model_actions]  # installed models only (the tiny one is a folder)
    assert not any("E5" in n for n in names), names
    assert mind.session.model is not None and Path(mind.session.model.model_dir).name != E5_ID

    shots = Path(__file__).resolve().parents[2] / "build" / "screenshots"
    shots.mkdir(parents=True, exist_ok=True)
    mind.window.resize(1180, 760)
    manager.reveal(manager.installed_box)
    qtbot.wait(200)
    mind.window.grab().save(str(shots / "documents-embedder-manager.png"))
    feature.show_page()
    qtbot.wait(100)
    mind.window.grab().save(str(shots / "documents-embedder-page.png"))
