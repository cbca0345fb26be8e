"""The message box grows with its text and shows no scroll bar until it reaches its maximum height."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt

from localmind.ui.composer import MAX_VISIBLE_LINES, Composer


def make(qtbot: Any) -> Composer:
    composer = Composer()
    qtbot.addWidget(composer)
    composer.resize(700, 200)
    composer.show()
    qtbot.waitExposed(composer)
    return composer


def test_chinese_and_emoji_fit_without_a_scroll_bar(qtbot: Any) -> None:
    composer = make(qtbot)
    for text in ("你好！请再说一次。", "한국어 日本語 😀🎉", "第一行\n第二行\n第三行"):
        composer.input.setPlainText(text)
        qtbot.wait(20)
        bar = composer.input.verticalScrollBar()
        assert not bar.isVisible() or bar.maximum() == 0, text


def test_long_text_scrolls_once_the_box_is_full(qtbot: Any) -> None:
    composer = make(qtbot)
    composer.input.setPlainText("\n".join(f"line {i}" for i in range(MAX_VISIBLE_LINES * 3)))
    qtbot.wait(20)
    assert composer.input.verticalScrollBar().maximum() > 0


def test_typing_chinese_character_by_character_shows_no_scroll_bar(qtbot: Any) -> None:
    composer = make(qtbot)
    for ch in "你好！请再说一次。":
        composer.input.insertPlainText(ch)
        qtbot.wait(5)
    bar = composer.input.verticalScrollBar()
    assert not bar.isVisible() or bar.maximum() == 0


def _loading(qtbot: Any, text: str) -> tuple[Composer, list[str], list[bool]]:
    composer = make(qtbot)
    sent: list[str] = []
    queued: list[bool] = []
    composer.send_requested.connect(sent.append)
    composer.send_queued.connect(queued.append)
    composer.set_can_send(False, "Loading the model…", queue=True)
    composer.set_text(text)  # the cursor at the end, as after typing it
    qtbot.keyClick(composer.input, Qt.Key.Key_Return)
    assert composer.queued and queued == [True] and sent == []
    assert composer.text == text  # Enter added nothing (it used to leave a line break that was sent with the text)
    return composer, sent, queued


def test_enter_while_loading_sends_exactly_the_text_once_the_model_is_ready(qtbot: Any) -> None:
    composer, sent, queued = _loading(qtbot, "Hello there")
    qtbot.keyClick(composer.input, Qt.Key.Key_Return)  # pressed again: still one queued message
    assert queued == [True]
    composer.set_can_send(True)
    qtbot.waitUntil(lambda: sent == ["Hello there"])
    assert composer.text == "" and not composer.queued and queued == [True, False]


def test_a_queued_message_is_held_back_by_an_edit_esc_or_a_failed_load(qtbot: Any) -> None:
    composer, sent, queued = _loading(qtbot, "Hello")
    qtbot.keyClicks(composer.input, " again")  # not final any more: waits for the next Enter
    assert not composer.queued and queued == [True, False]
    qtbot.keyClick(composer.input, Qt.Key.Key_Return)
    qtbot.keyClick(composer.input, Qt.Key.Key_Escape)
    assert not composer.queued and queued == [True, False, True, False]
    qtbot.keyClick(composer.input, Qt.Key.Key_Return)
    composer.set_can_send(False, "Open a model first")  # the load failed: nothing is sent, the text stays
    assert not composer.queued
    composer.set_can_send(True)
    qtbot.wait(50)
    assert sent == [] and composer.text == "Hello again"


def test_enter_without_a_model_adds_no_line_break_to_the_message(qtbot: Any) -> None:
    """Issue 21: Enter with no model left a line break in the box, and it was sent with the message later."""
    composer = make(qtbot)
    composer.set_can_send(False, "Open a model first")
    sent: list[str] = []
    composer.send_requested.connect(sent.append)
    qtbot.keyClicks(composer.input, "hello")
    with qtbot.waitSignal(composer.send_blocked):
        qtbot.keyClick(composer.input, Qt.Key.Key_Return)
    assert composer.text == "hello"
    composer.set_can_send(True)
    qtbot.keyClick(composer.input, Qt.Key.Key_Return)
    assert sent == ["hello"]


def test_line_breaks_after_the_last_word_are_not_sent(qtbot: Any) -> None:
    composer = make(qtbot)
    sent: list[str] = []
    composer.send_requested.connect(sent.append)
    composer.set_text("first line\nsecond line\n\n")
    qtbot.keyClick(composer.input, Qt.Key.Key_Return)
    assert sent == ["first line\nsecond line"]
