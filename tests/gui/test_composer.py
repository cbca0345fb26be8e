"""The message box grows with its text and shows no scroll bar until it reaches its maximum height."""

from __future__ import annotations

from typing import Any

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
