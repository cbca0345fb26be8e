"""A reasoning model's thinking in the chat view: collapsed above the answer, expandable, never in the answer."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication

from localmind.ui.chat.message_widget import MessageWidget
from localmind.ui.chat.segments import MarkdownView
from localmind.ui.chat.thinking import ThinkingSection
from localmind.ui.chat_view import ChatView
from tests.gui.test_chat_view import msg, settle

pytestmark = pytest.mark.gui
SHOTS = Path(os.environ.get("LOCALMIND_SCREENSHOTS", Path(__file__).resolve().parents[2] / "build" / "screenshots"))


@pytest.fixture
def view(qtbot) -> Iterator[ChatView]:  # type: ignore[no-untyped-def]
    widget = ChatView()
    qtbot.addWidget(widget)
    widget.resize(760, 560)
    widget.show()
    qtbot.waitExposed(widget)
    yield widget


def answer_text(widget: MessageWidget) -> str:
    return "\n".join(w.document().toPlainText() for w in widget._segments if isinstance(w, MarkdownView))


def section(widget: MessageWidget) -> ThinkingSection:
    assert widget._thinking is not None
    return widget._thinking


def test_a_stored_reply_shows_its_thinking_collapsed_and_the_answer_alone(view: ChatView) -> None:
    reply = "<think>\nThe user greets me. I should greet back <b>briefly</b>.\n</think>\n\n**Hello!** How can I help?"
    view.set_messages([msg(1, "user", "hi"), msg(2, "assistant", reply)])
    settle()
    widget = view.message_widget(2)
    assert widget is not None
    thinking = section(widget)
    assert thinking.isVisible() and not thinking.body.isVisible()
    assert thinking.toggle.text() == "Thoughts"
    assert answer_text(widget) == "Hello! How can I help?"
    assert view.last_assistant_text() == "**Hello!** How can I help?"
    thinking.toggle.click()
    settle()
    assert thinking.body.isVisible()
    assert thinking.body.text() == "The user greets me. I should greet back <b>briefly</b>."  # plain text, as written
    SHOTS.mkdir(parents=True, exist_ok=True)
    view.grab().save(str(SHOTS / "thinking-expanded.png"))


def test_streaming_thinking_then_answer(view: ChatView, qtbot) -> None:  # type: ignore[no-untyped-def]
    view.set_messages([msg(1, "user", "2+2?")])
    view.append_message(msg(2, "assistant", "", "streaming"))
    widget = view.message_widget(2)
    assert widget is not None
    thinking = section(widget)
    view.append_to_last("<think>\nAdd two")
    view.append_to_last(" and two.")
    settle()
    assert thinking.isVisible() and thinking.toggle.text() == "Thinking…"
    assert answer_text(widget) == ""
    SHOTS.mkdir(parents=True, exist_ok=True)
    view.grab().save(str(SHOTS / "thinking-streaming.png"))
    qtbot.wait(1100)
    view.append_to_last("\n</think>\n\nIt is **4**.")
    settle()
    assert thinking.done and thinking.toggle.text() == "Thought for 1 s"
    view.update_message(2, status="complete")
    settle()
    assert answer_text(widget) == "It is 4."
    assert thinking.toggle.text() == "Thought for 1 s"  # the measured time survives the final render
    assert thinking.text == "Add two and two."
    view.grab().save(str(SHOTS / "thinking-collapsed.png"))


def test_an_r1_style_reply_moves_the_shown_text_into_the_thinking(view: ChatView) -> None:
    view.set_messages([msg(1, "user", "why?")])
    view.append_message(msg(2, "assistant", "", "streaming"))
    widget = view.message_widget(2)
    assert widget is not None
    view.append_to_last("Okay, the user asks why.")
    settle()
    assert "the user asks why" in answer_text(widget)
    view.append_to_last("</think>\n\nBecause.")
    settle()
    assert answer_text(widget) == "Because."
    assert section(widget).text == "Okay, the user asks why."


def test_a_plain_reply_has_no_thinking_section(view: ChatView) -> None:
    view.set_messages([msg(1, "user", "hi"), msg(2, "assistant", "Just an answer.")])
    settle()
    widget = view.message_widget(2)
    assert widget is not None and not section(widget).isVisible()
    assert answer_text(widget) == "Just an answer."


def test_the_thinking_texts_follow_the_ui_language(view: ChatView) -> None:
    from localmind.ui.i18n import Translations

    app = QApplication.instance()
    assert app is not None
    translations = Translations.for_app(app)
    view.set_messages([msg(1, "user", "hi"), msg(2, "assistant", "<think>hmm</think>Hi!")])
    settle()
    widget = view.message_widget(2)
    assert widget is not None
    try:
        assert translations.apply("zh_CN") == "zh_CN"
        settle()
        assert section(widget).toggle.text() == "思考过程"
        SHOTS.mkdir(parents=True, exist_ok=True)
        section(widget).toggle.click()
        settle()
        view.grab().save(str(SHOTS / "thinking-zh_CN.png"))
    finally:
        translations.apply("en")
    settle()
    assert section(widget).toggle.text() == "Thoughts"
