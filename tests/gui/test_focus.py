"""The window's focus rule (ui/focus.py), action by action: after anything that does not take typing, the message box
has the keyboard; printable keys typed into a list go where typing belongs; Tab still reaches every control.

The same rule is walked with real X clicks and keys in tests/e2e/test_focus_x.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QApplication, QDialog, QPlainTextEdit, QTextEdit, QWidget

from localmind.app import LocalMind
from localmind.ui.documents_chat import SourceDialog
from tests.helpers.app_window import Launch, fake, launch_fixture, send_and_wait

pytestmark = pytest.mark.gui


@pytest.fixture
def launch(qtbot: Any, tiny_model: Path) -> Iterator[Launch]:
    yield from launch_fixture(qtbot, tiny_model)


def started(qtbot: Any, launch: Launch) -> LocalMind:
    mind = launch("/models/fake", engine=fake("An answer with several words in it."))
    mind.window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is mind.window, timeout=5000)
    send_and_wait(qtbot, mind, "first question")
    return mind


def focus_on(qtbot: Any, widget: QWidget) -> None:
    widget.setFocus(Qt.FocusReason.OtherFocusReason)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is widget, timeout=2000)


def answer_text(mind: LocalMind) -> QTextEdit | QPlainTextEdit:
    views = [v for v in mind.window.chat_view.findChildren(QTextEdit) if "several words" in v.toPlainText()]
    assert views, [v.toPlainText() for v in mind.window.chat_view.findChildren(QTextEdit)]
    return views[-1]


def composer_has_focus(mind: LocalMind) -> bool:
    return QApplication.focusWidget() is mind.window.composer.input


def test_closing_a_source_dialog_gives_the_keyboard_back_to_the_message_box(qtbot: Any, launch: Launch) -> None:
    mind = started(qtbot, launch)
    answer = answer_text(mind)
    focus_on(qtbot, answer)  # where a click on a source link leaves the focus
    dialog = SourceDialog(mind.window, "notes.txt", "A passage.", None)
    dialog.open()
    qtbot.waitUntil(lambda: QApplication.activeModalWidget() is dialog, timeout=3000)
    dialog.reject()
    mind.window.activateWindow()  # the window manager's part once the dialog is gone (offscreen Qt has none)
    qtbot.waitUntil(lambda: composer_has_focus(mind), timeout=3000)
    qtbot.keyClicks(QApplication.focusWidget(), "next")
    assert mind.window.composer.text == "next"


def test_a_dialog_that_leaves_the_focus_on_a_button_gives_it_back(qtbot: Any, launch: Launch) -> None:
    mind = started(qtbot, launch)
    button = mind.window.sidebar.new_chat_button
    focus_on(qtbot, button)
    dialog = QDialog(mind.window)
    dialog.open()
    qtbot.waitUntil(lambda: QApplication.activeModalWidget() is dialog, timeout=3000)
    dialog.reject()
    mind.window.activateWindow()  # the window manager's part once the dialog is gone (offscreen Qt has none)
    qtbot.waitUntil(lambda: composer_has_focus(mind), timeout=3000)


def test_selected_answer_text_keeps_the_focus_for_copying(qtbot: Any, launch: Launch) -> None:
    mind = started(qtbot, launch)
    answer = answer_text(mind)
    cursor = answer.textCursor()
    cursor.select(cursor.SelectionType.Document)
    answer.setTextCursor(cursor)
    assert answer.textCursor().hasSelection()
    focus_on(qtbot, answer)
    mind.window.focus_keeper.settle()
    assert QApplication.focusWidget() is answer


def test_a_printable_key_in_the_chat_list_goes_to_the_message_box(qtbot: Any, launch: Launch) -> None:
    mind = started(qtbot, launch)
    qtbot.keyClick(mind.window, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    send_and_wait(qtbot, mind, "banana question")
    chats = mind.window.sidebar.list_view
    shown = mind.session.conversation_id
    focus_on(qtbot, chats)
    qtbot.keyClicks(chats, "first")  # "f…" would select the chat titled "first question" (the list's own search)
    assert mind.session.conversation_id == shown
    assert composer_has_focus(mind)
    assert mind.window.composer.text == "first"


def test_a_printable_key_in_the_search_results_goes_to_the_search_box(qtbot: Any, launch: Launch) -> None:
    mind = started(qtbot, launch)
    sidebar = mind.window.sidebar
    focus_on(qtbot, sidebar.search_field)
    qtbot.keyClicks(sidebar.search_field, "first")
    qtbot.waitUntil(lambda: sidebar.results.rowCount() > 0, timeout=5000)
    qtbot.keyClick(sidebar.search_field, Qt.Key.Key_Down)  # the window moves the focus to the results itself
    qtbot.wait(50)
    assert QApplication.focusWidget() is sidebar.results_view  # kept: the user went there with a key
    qtbot.keyClicks(sidebar.results_view, " q")
    assert QApplication.focusWidget() is sidebar.search_field
    assert sidebar.search_field.text() == "first q"


def test_tab_still_reaches_the_controls(qtbot: Any, launch: Launch) -> None:
    mind = started(qtbot, launch)
    box = mind.window.composer.input
    focus_on(qtbot, box)
    qtbot.keyClick(box, Qt.Key.Key_Tab)
    qtbot.wait(50)
    moved = QApplication.focusWidget()
    assert moved is not None and moved is not box
    qtbot.wait(100)
    assert QApplication.focusWidget() is moved  # not pulled back to the message box


def test_a_click_on_a_chat_in_the_sidebar_leaves_the_keyboard_in_the_message_box(qtbot: Any, launch: Launch) -> None:
    mind = started(qtbot, launch)
    first = mind.session.conversation_id
    qtbot.keyClick(mind.window, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    send_and_wait(qtbot, mind, "second question")
    chats = mind.window.sidebar.list_view
    row = mind.conversations.row_of(first)
    rect = chats.visualRect(mind.conversations.index(row))
    qtbot.mouseClick(chats.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(rect.center()))
    qtbot.waitUntil(lambda: mind.session.conversation_id == first, timeout=3000)
    qtbot.waitUntil(lambda: composer_has_focus(mind), timeout=3000)
