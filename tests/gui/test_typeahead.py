"""Type-ahead through the real window and the real engine process (issue 12).

Keys go to the real composer; the engine child reads the chat and the message while "the user" pauses; Enter
sends. The reply must be exactly the tiny model's reply for the conversation (the one a fresh prefill gives),
and the stats must show that the prompt was read ahead.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

from localmind.settings import Settings
from localmind.workers.typeahead import IDLE_MS, WORD_MS
from tests.helpers.app_window import Launch, greedy_settings, launch_fixture, send_and_wait, stored, tiny_reply

pytestmark = pytest.mark.gui

QUESTION = "Tell me a story about a cat. The quick brown fox jumps over the lazy dog. What is 2 + 2?"


@pytest.fixture
def launch(qtbot: Any, tiny_model: Path) -> Iterator[Launch]:
    yield from launch_fixture(qtbot, tiny_model)


def type_slowly(qtbot: Any, mind: Any, text: str, pause_every: int = 20) -> None:
    """Type with real key events, pausing now and then as people do (long enough for type-ahead to start)."""
    box = mind.window.composer.input
    box.setFocus()
    for start in range(0, len(text), pause_every):
        qtbot.keyClicks(box, text[start : start + pause_every])
        qtbot.wait(IDLE_MS + 80)


def wait_prepared(qtbot: Any, mind: Any) -> None:
    """Until the engine has read what was typed so far (its answer to the last type-ahead request)."""
    with qtbot.waitSignal(mind.service.prefilled, timeout=10000):
        mind.typeahead.prepare_now()


def last_stats(mind: Any) -> dict[str, Any]:
    assert mind.session.conversation_id is not None
    stats = mind.store.messages(mind.session.conversation_id)[-1].stats
    assert stats is not None
    return dict(stats)


def press_enter_and_wait(qtbot: Any, mind: Any) -> None:
    with qtbot.waitSignal(mind.session.turn_finished, timeout=15000):
        qtbot.keyClick(mind.window.composer.input, Qt.Key.Key_Return)


def test_typing_then_enter_reads_only_the_tail_and_the_reply_is_exact(
    qtbot: Any, launch: Launch, tiny_model: Path
) -> None:
    mind = launch()
    send_and_wait(qtbot, mind, "hello")
    first = stored(mind)[-1][1]
    type_slowly(qtbot, mind, QUESTION)
    wait_prepared(qtbot, mind)
    assert mind.typeahead.requests >= 3
    press_enter_and_wait(qtbot, mind)
    expected = tiny_reply(tiny_model, [("user", "hello"), ("assistant", first), ("user", QUESTION)])
    assert stored(mind)[-1] == ("assistant", expected, "complete")
    stats = last_stats(mind)
    # Only the message's last words and the reply header were left to read after Enter.
    assert stats["prompt_tokens"] - stats["reused_tokens"] <= 12
    assert stats["time_to_first_token_s"] > 0


def test_deleting_pasting_and_editing_the_draft_still_gives_the_exact_reply(
    qtbot: Any, launch: Launch, tiny_model: Path
) -> None:
    mind = launch()
    box = mind.window.composer.input
    type_slowly(qtbot, mind, "The quick brown fox jumps over the lazy dog and then")
    wait_prepared(qtbot, mind)
    for _ in range(20):
        qtbot.keyClick(box, Qt.Key.Key_Backspace)
    qtbot.keyClicks(box, " sleeps.")
    wait_prepared(qtbot, mind)
    pasted = " Tell me a story about a cat." * 20
    cursor = box.textCursor()
    cursor.insertText(pasted)  # as a paste does
    wait_prepared(qtbot, mind)
    text = box.toPlainText()
    press_enter_and_wait(qtbot, mind)
    assert stored(mind)[-1] == ("assistant", tiny_reply(tiny_model, [("user", text)]), "complete")
    stats = last_stats(mind)
    assert stats["reused_tokens"] > 100 and stats["prompt_tokens"] - stats["reused_tokens"] <= 12


def test_switching_chats_and_regenerating_after_type_ahead(qtbot: Any, launch: Launch, tiny_model: Path) -> None:
    mind = launch()
    send_and_wait(qtbot, mind, "hello hi how are you")
    first_chat = mind.session.conversation_id
    first_reply = stored(mind)[-1][1]
    type_slowly(qtbot, mind, "What is 2 + 2? Tell me")
    mind.new_chat()  # switch away while a draft was being prepared
    mind.window.composer.input.clear()
    send_and_wait(qtbot, mind, "Tell me a story about a cat.")
    assert stored(mind)[-1][1] == tiny_reply(tiny_model, [("user", "Tell me a story about a cat.")])
    assert first_chat is not None
    mind.open_conversation(first_chat)  # back: its history is read again in the background
    mind.window.composer.input.clear()
    type_slowly(qtbot, mind, "The quick brown fox jumps over the lazy dog.")
    wait_prepared(qtbot, mind)
    press_enter_and_wait(qtbot, mind)
    turns = [("user", "hello hi how are you"), ("assistant", first_reply)]
    turns.append(("user", "The quick brown fox jumps over the lazy dog."))
    expected = tiny_reply(tiny_model, turns)
    assert stored(mind)[-1] == ("assistant", expected, "complete")
    with qtbot.waitSignal(mind.session.turn_finished, timeout=15000):
        mind.session.regenerate()
    assert stored(mind)[-1] == ("assistant", expected, "complete")


def test_the_setting_turns_it_off(qtbot: Any, launch: Launch, tiny_model: Path) -> None:
    settings: Settings = greedy_settings()
    settings.prepare_replies = False
    mind = launch(settings=settings)
    prefilled: list[int] = []
    mind.service.prefilled.connect(prefilled.append)
    type_slowly(qtbot, mind, QUESTION)
    qtbot.wait(IDLE_MS * 2)
    assert mind.typeahead.requests == 0 and prefilled == []
    press_enter_and_wait(qtbot, mind)
    assert stored(mind)[-1] == ("assistant", tiny_reply(tiny_model, [("user", QUESTION)]), "complete")
    assert last_stats(mind)["reused_tokens"] == 0


def test_finished_words_are_read_while_typing_without_pauses(qtbot: Any, launch: Launch, tiny_model: Path) -> None:
    """A person typing steadily never pauses for the idle time; each finished word is read soon after its space."""
    mind = launch()
    box = mind.window.composer.input
    box.setFocus()
    gap = (IDLE_MS + WORD_MS) // 2  # shorter than a pause, longer than the wait after a word
    words = QUESTION.split(" ")
    mind.typeahead.stop()  # the empty chat's read, asked for when the model was ready: done now, counted before
    wait_prepared(qtbot, mind)
    before = mind.typeahead.requests
    for word in words[:-1]:
        qtbot.keyClicks(box, word + " ")
        qtbot.wait(gap)
    asked_while_typing = mind.typeahead.requests - before
    qtbot.keyClicks(box, words[-1])
    assert asked_while_typing > 0
    wait_prepared(qtbot, mind)
    press_enter_and_wait(qtbot, mind)
    assert stored(mind)[-1] == ("assistant", tiny_reply(tiny_model, [("user", QUESTION)]), "complete")
    stats = last_stats(mind)
    assert stats["prompt_tokens"] - stats["reused_tokens"] <= 12
