"""What the window says and shows after the user acts (issues 9.7, 9.10, 10.12)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QToolButton

from localmind.engine.fake import FakeEngine
from localmind.engine.types import FinishReason, GenerationOptions, StreamEvent, TurnFinished, TurnStats
from tests.helpers.app_window import LONG_REPLY, Launch, fake, launch_fixture, send_and_wait, stored, type_and_send

pytestmark = pytest.mark.gui

CODE_REPLY = "Here:\n\n```python\nprint(1)\n```\n"


@pytest.fixture
def launch(qtbot: Any, tiny_model: Path) -> Iterator[Launch]:
    yield from launch_fixture(qtbot, tiny_model)


class SlowStart(FakeEngine):
    """A model slow to its first word that stops as soon as it is asked to (as the real engine does mid-prefill)."""

    def _stream(self, reply: str, options: GenerationOptions) -> Iterator[StreamEvent]:
        if self._cancel.wait(5):
            yield TurnFinished(FinishReason.CANCELLED, TurnStats(prompt_tokens=10, total_s=0.1))
            return
        yield from super()._stream(reply, options)


def _buttons(mind: Any) -> set[str]:
    return {b.text() for b in mind.window.chat_view.findChildren(QToolButton) if b.text()}


def test_switching_language_translates_the_buttons_of_messages_already_shown(qtbot: Any, launch: Launch) -> None:
    mind = launch("/models/fake", engine=fake(CODE_REPLY))
    send_and_wait(qtbot, mind, "Show me code")
    assert {"Copy", "Edit", "Regenerate"} <= _buttons(mind)
    mind.translations.apply("zh_CN")
    qtbot.waitUntil(lambda: "复制" in _buttons(mind), timeout=3000)
    shown = _buttons(mind)
    assert {"复制", "编辑"} <= shown
    assert not {"Copy", "Edit", "Regenerate"} & shown, shown
    mind.translations.apply("en")
    qtbot.waitUntil(lambda: "Copy" in _buttons(mind), timeout=3000)


def test_stopping_before_the_first_word_leaves_no_empty_answer(qtbot: Any, launch: Launch) -> None:
    mind = launch("/models/fake", engine=SlowStart)
    type_and_send(qtbot, mind, "Are you there?")
    qtbot.waitUntil(lambda: mind.session.generating, timeout=3000)
    with qtbot.waitSignal(mind.session.generating_changed, timeout=10000):
        mind.window.composer.stop_requested.emit()
    assert stored(mind) == [("user", "Are you there?", "complete")]
    assert [m.role for m in mind.session.messages] == ["user"]
    # The question stays, with a way to have it answered.
    assert mind.window.composer.regenerate_button.isVisible()


def test_a_stopped_answer_keeps_its_figures_and_each_chat_shows_its_own(qtbot: Any, launch: Launch) -> None:
    mind = launch("/models/fake", engine=fake(LONG_REPLY, delay=0.02))
    status = mind.window.status
    type_and_send(qtbot, mind, "Count for me")
    qtbot.waitUntil(lambda: (mind.session.turn_progress or (0, 0))[1] > 20, timeout=10000)
    with qtbot.waitSignal(mind.session.turn_finished, timeout=10000):
        mind.window.composer.stop_requested.emit()
    first = mind.session.conversation_id
    assert stored(mind)[-1][2] == "stopped"
    assert status.speed_label.isVisible()
    # A new chat has no answer yet: no speed from the chat before (issue 9.10).
    qtbot.keyClick(mind.window, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    assert not status.speed_label.isVisible() and not status.ttft_label.isVisible()
    # Back to the first chat: its stopped answer's figures (issue 9.7).
    assert first is not None
    mind.open_conversation(first)
    assert status.speed_label.isVisible()
    assert status.ttft_label.text().startswith("First token")


def test_enter_without_a_model_says_why_and_keeps_the_text(qtbot: Any, launch: Launch) -> None:
    mind = launch(None)
    type_and_send(qtbot, mind, "hello")
    banner = mind.window.banner
    assert banner.isVisible()
    assert banner.title.text() == "Your message was not sent yet."
    assert "No model is loaded" in banner.detail.text()
    assert mind.window.composer.text.strip() == "hello"


def test_enter_while_an_answer_streams_says_so_and_never_merges_messages(qtbot: Any, launch: Launch) -> None:
    mind = launch("/models/fake", engine=fake(LONG_REPLY, delay=0.05))
    type_and_send(qtbot, mind, "first")
    qtbot.waitUntil(lambda: mind.session.generating, timeout=3000)
    type_and_send(qtbot, mind, "second")
    type_and_send(qtbot, mind, "third")
    assert "An answer is being written" in mind.window.banner.detail.text()
    assert mind.window.composer.text.split("\n")[:2] == ["second", "third"]
    assert [c for r, c, _ in stored(mind) if r == "user"] == ["first"]


def test_a_refused_first_message_leaves_no_empty_chat_behind(qtbot: Any, launch: Launch) -> None:
    """Issue 10.11: a first message too long for the context created a chat that stayed in the sidebar."""
    mind = launch()
    too_long = "All work and no play makes a very long paste. " * 2000
    mind.window.composer.set_text(too_long)
    with qtbot.waitSignal(mind.session.error, timeout=30000) as error:
        qtbot.keyClick(mind.window.composer.input, Qt.Key.Key_Return)
    assert "too long" in error.args[1]
    assert mind.window.composer.text == too_long
    assert mind.store.list_conversations() == []
    assert mind.conversations.rowCount() == 0
    assert mind.session.conversation is None
    assert mind.window.title_label.text() == "New chat"


def test_unsent_drafts_survive_a_restart_per_chat(qtbot: Any, launch: Launch) -> None:
    """Issue 10.12: what was typed but not sent is there again after closing the app, in the chat it belongs to."""
    mind = launch("/models/fake", engine=fake("ok"))
    send_and_wait(qtbot, mind, "first chat")
    first = mind.session.conversation_id
    mind.window.composer.input.insertPlainText("half a thought for the first chat")
    qtbot.keyClick(mind.window, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    assert mind.window.composer.text == ""
    mind.window.composer.input.insertPlainText("an idea for a new chat")
    assert first is not None
    mind.open_conversation(first)
    assert mind.window.composer.text == "half a thought for the first chat"
    mind.window.close()

    again = launch("/models/fake", engine=fake("ok"))
    assert again.window.composer.text == "an idea for a new chat"
    again.open_conversation(first)
    assert again.window.composer.text == "half a thought for the first chat"
    # Sent, it is no longer a draft.
    qtbot.keyClick(again.window.composer.input, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not again.session.generating and again.window.composer.text == "", timeout=10000)
    again.window.close()
    third = launch("/models/fake", engine=fake("ok"))
    third.open_conversation(first)
    assert third.window.composer.text == ""


def test_a_click_on_the_message_box_padding_puts_the_cursor_in_it(qtbot: Any, launch: Launch) -> None:
    mind = launch(None)
    composer = mind.window.composer
    mind.window.sidebar.search_field.setFocus()
    assert mind.window.focusWidget() is mind.window.sidebar.search_field
    qtbot.mouseClick(composer.frame, Qt.MouseButton.LeftButton, pos=composer.frame.rect().topLeft() + QPoint(4, 4))
    assert mind.window.focusWidget() is composer.input
