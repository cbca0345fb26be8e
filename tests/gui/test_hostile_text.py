"""Text that is not ours is shown as text: titles, paths, repo ids never render as HTML (issues 9.14, 10.7)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import Qt as GuiQt
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QLabel, QWidget

from localmind.core.store import ConversationStore
from localmind.viewmodels.conversation_list import ConversationListModel
from tests.helpers.app_window import Launch, fake, launch_fixture

pytestmark = pytest.mark.gui

LOGO = "/usr/share/pixmaps/debian-logo.png"
HOSTILE = f'<a href="https://example.com/x">CLICKME</a> <img src="{LOGO}"> <b>bold</b>'


@pytest.fixture
def launch(qtbot: Any, tiny_model: Path) -> Iterator[Launch]:
    yield from launch_fixture(qtbot, tiny_model)


def _tooltip_reads(tip: str) -> str:
    """What a tooltip shows: Qt renders it as HTML when it looks like HTML."""
    if not GuiQt.mightBeRichText(tip):
        return tip
    doc = QTextDocument()
    doc.setHtml(tip)
    return doc.toPlainText()


def _rich_labels(root: QWidget) -> list[str]:
    """Labels that guess whether their text is HTML (Qt's default), or render untrusted text as HTML."""
    labels = root.findChildren(QLabel) + ([root] if isinstance(root, QLabel) else [])
    return [
        f"{label.objectName() or type(label.parent()).__name__}: {label.text()[:60]!r}"
        for label in labels
        if label.textFormat() == Qt.TextFormat.AutoText
        or (label.textFormat() == Qt.TextFormat.RichText and ("CLICKME" in label.text() or "<img" in label.text()))
    ]


def _hostile_chat(data_dir: Path) -> str:
    store = ConversationStore(data_dir / "conversations.sqlite3")
    conversation = store.create_conversation(title=HOSTILE)
    store.append_message(conversation.id, "user", "findme please")
    store.append_message(conversation.id, "assistant", "found")
    store.close()
    return conversation.id


def test_a_hostile_title_shows_literally_everywhere(qtbot: Any, launch: Launch, data_dir: Path) -> None:
    conversation_id = _hostile_chat(data_dir)
    mind = launch(None, engine=fake("ok"))
    window = mind.window
    mind.open_conversation(conversation_id)

    # Chat header and window title: the markup itself, nothing rendered, no image loaded.
    assert window.title_label.textFormat() == Qt.TextFormat.PlainText
    assert window.title_label.text() == HOSTILE
    assert window.title_label.sizeHint().height() < 40  # the 48 px logo is not in it
    assert window.windowTitle().startswith(HOSTILE)

    # Sidebar: the row's text and its tooltip read as the markup.
    model = window.sidebar.list_view.model()
    assert isinstance(model, ConversationListModel)
    index = model.index(model.row_of(conversation_id), 0)
    assert model.data(index, Qt.ItemDataRole.DisplayRole) == HOSTILE
    assert _tooltip_reads(model.data(index, Qt.ItemDataRole.ToolTipRole)).startswith(HOSTILE)

    # Search results: the hit's title and tooltip.
    mind.search("findme")
    results = window.sidebar.results
    assert results.rowCount() == 1
    hit_index = results.index(0, 0)
    assert _tooltip_reads(results.data(hit_index, Qt.ItemDataRole.ToolTipRole)).startswith(HOSTILE)

    # Banners (a hostile file name in an error) and the undo note after deleting the chat.
    window.show_error(f"Import failed: {HOSTILE}", f"{HOSTILE} is not a LocalMind export.")
    assert window.banner.title.text() == f"Import failed: {HOSTILE}"
    mind.delete_conversation(conversation_id)
    assert "CLICKME" in window.sidebar.undo_label.text() or "<a" in window.sidebar.undo_label.text()

    # Every label in the window, the settings dialog and the model manager is plain text.
    dialog = mind.open_settings()
    window.show_model_manager()
    assert window.model_manager is not None
    assert _rich_labels(window) == []
    assert _rich_labels(dialog) == []
    dialog.reject()


def test_a_model_folder_with_markup_in_its_path_shows_as_text(qtbot: Any, launch: Launch, tmp_path: Path) -> None:
    folder = tmp_path / '<img src="x.png">'
    folder.mkdir()
    mind = launch(None)
    mind.load_model(str(folder))
    qtbot.waitUntil(lambda: mind.window.banner.kind == "error", timeout=30000)
    banner = mind.window.banner
    assert '<img src="x.png">' in banner.detail.text()
    assert banner.detail.textFormat() == Qt.TextFormat.PlainText
    assert _rich_labels(mind.window) == []


def test_markup_in_a_tooltip_is_escaped() -> None:
    from localmind.viewmodels.plain_text import tooltip

    assert _tooltip_reads(tooltip(HOSTILE)) == HOSTILE
    assert _tooltip_reads(tooltip("two\nlines")) == "two\nlines"
