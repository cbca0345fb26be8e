"""Issue 21: an answer's sources are its metadata; Regenerate keeps versions (‹ 1/2 ›); quitting mid-stream keeps stats."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication

from localmind.core import chat_files
from localmind.core.store import ConversationStore
from tests.helpers.app_window import Launch, fake, launch_fixture, send_and_wait

pytestmark = pytest.mark.gui

FIRST, SECOND, THIRD = "Paris is the capital.", "The capital is Paris, on the Seine.", "Paris."


@pytest.fixture
def launch(qtbot: Any, tiny_model: Path) -> Iterator[Launch]:
    yield from launch_fixture(qtbot, tiny_model)


def regenerate(qtbot: Any, mind: Any) -> None:
    with qtbot.waitSignal(mind.session.turn_finished, timeout=15000):
        mind.window.chat_view.regenerate_requested.emit()


def answer_widget(mind: Any) -> Any:
    answer = mind.session.messages[-1]
    widget = mind.window.chat_view.message_widget(answer.id)
    assert widget is not None and answer.role == "assistant"
    return widget


def test_regenerate_keeps_the_earlier_answer_as_a_version(qtbot: Any, launch: Launch, tmp_path: Path) -> None:
    engine = fake(FIRST)()
    engine.replies = [FIRST, SECOND, THIRD]
    mind = launch("/models/fake", engine=lambda: engine)
    send_and_wait(qtbot, mind, "What is the capital of France?")
    regenerate(qtbot, mind)
    cid = mind.session.conversation_id
    question, answer = mind.store.messages(cid)
    assert answer.content == SECOND and (answer.version, answer.versions) == (1, 2)
    assert [v.content for v in mind.store.versions(answer.id)] == [FIRST]  # it used to be deleted

    # The answer shows ‹ 2/2 ›, with names a screen reader says; the previous one is a click away.
    widget = answer_widget(mind)
    switcher = widget.version_switcher
    assert switcher.isVisible() and switcher.count.text() == "2/2"
    assert switcher.previous_button.accessibleName() == "Previous answer"
    assert switcher.next_button.accessibleName() == "Next answer" and not switcher.next_button.isEnabled()
    assert switcher.accessibleName() == "Answer 2 of 2"
    assert switcher.previous_button.focusPolicy() == Qt.FocusPolicy.TabFocus  # keyboard: Tab reaches it
    mind.window.activateWindow()
    mind.window.composer.input.setFocus()
    qtbot.waitUntil(mind.window.composer.input.hasFocus, timeout=5000)
    qtbot.mouseClick(switcher.previous_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: mind.window.chat_view.last_assistant_text() == FIRST, timeout=5000)
    assert mind.window.composer.input.hasFocus()  # a click on ‹ leaves the keyboard in the message box
    chosen = mind.store.messages(cid)[1]
    assert chosen.content == FIRST and chosen.version == 0 and chosen.versions == 2
    assert answer_widget(mind).version_switcher.count.text() == "1/2"
    # The model reads the version shown.
    assert [m.content for m in mind.session.engine_history() if m.role == "assistant"] == [FIRST]

    # A third version; Space on the focused ‹ goes back one (keyboard only).
    regenerate(qtbot, mind)
    third = mind.store.messages(cid)[1]
    assert third.content == THIRD and third.versions == 3
    previous = answer_widget(mind).version_switcher.previous_button
    previous.setFocus()
    qtbot.keyClick(previous, Qt.Key.Key_Space)
    qtbot.waitUntil(lambda: mind.store.messages(cid)[1].content in (FIRST, SECOND), timeout=5000)

    # Export keeps every version, and an import brings them back.
    exported = json.loads(chat_files.to_json(chat_files.collect(mind.store, [cid])))
    kept = exported["conversations"][0]["messages"][1]
    assert sorted([kept["content"], *(v["content"] for v in kept["versions"])]) == sorted([FIRST, SECOND, THIRD])
    with ConversationStore(tmp_path / "other.sqlite3") as other:
        (imported,) = chat_files.import_json(other, json.dumps(exported))
        copy = other.messages(imported.id)[1]
        assert copy.content == kept["content"] and copy.versions == 3
        assert sorted(v.content for v in other.versions(copy.id)) == sorted({FIRST, SECOND, THIRD} - {kept["content"]})
    assert question.role == "user"


def test_a_regenerate_that_fails_at_once_gives_the_answer_back(qtbot: Any, launch: Launch) -> None:
    engine = fake(FIRST)()
    engine.replies = [FIRST, SECOND]
    mind = launch("/models/fake", engine=lambda: engine)
    send_and_wait(qtbot, mind, "Capital of France?")
    info, engine.info = engine.info, None  # the engine refuses the next turn before its first word
    with qtbot.waitSignal(mind.session.error, timeout=15000):
        mind.window.chat_view.regenerate_requested.emit()
    qtbot.waitUntil(lambda: not mind.session.generating, timeout=5000)
    (_, answer) = mind.store.messages(mind.session.conversation_id)
    assert answer.content == FIRST and answer.versions == 1 and answer.status == "complete"  # not deleted
    assert mind.window.chat_view.last_assistant_text() == FIRST
    engine.info = info
    regenerate(qtbot, mind)
    assert [m.content for m in mind.store.messages(mind.session.conversation_id)] == ["Capital of France?", SECOND]


def test_quitting_mid_stream_keeps_the_replys_stats(qtbot: Any, launch: Launch, data_dir: Path) -> None:
    """An Esc-stopped reply kept the engine's figures; one cut by closing the window kept none."""
    mind = launch("/models/fake", engine=fake(delay=0.02))
    box = mind.window.composer.input
    box.setFocus()
    qtbot.keyClicks(box, "count")
    qtbot.keyClick(box, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: len(mind.window.chat_view.last_assistant_text()) > 10, timeout=5000)
    mind.window.close()
    with ConversationStore(data_dir / "conversations.sqlite3") as store:
        (conversation,) = store.list_conversations()
        reply = store.messages(conversation.id)[1]
    assert reply.status == "stopped"
    assert reply.stats is not None and reply.stats["finish_reason"] == "cancelled"
    assert reply.stats["generated_tokens"] > 3 and reply.stats["tokens_per_second"] > 0  # the engine's own figures


def test_sources_are_shown_translated_and_kept_out_of_copy_and_search(qtbot: Any, launch: Launch) -> None:
    mind = launch("/models/fake", engine=fake("unused"))
    store = mind.store
    chat = store.create_conversation("Rain")
    store.append_message(chat.id, "user", "What did the gauge record?")
    answer = "It recorded 417 millimetres [1]."
    sources = [{"number": 1, "file": "/docs/field-notes.pdf", "page": 3, "text": "417 mm", "chunk_id": 7}]
    stored = store.append_message(chat.id, "assistant", answer, stats={"sources": sources})
    # An answer written as before sources were metadata (the line in its text, from "sources_at" on) comes in without
    # it (an older database is migrated: tests/unit/test_store.py).
    old = store.create_conversation("Old rain")
    store.append_message(old.id, "user", "And last year?")
    line = "\n\n**Sources:** [\\[1\\] field-notes.pdf p. 3](localmind-source:7)"
    legacy = store.append_message(
        old.id, "assistant", answer + line, stats={"sources": sources, "sources_at": len(answer)}
    )
    mind.open_conversation(chat.id)
    widget = mind.window.chat_view.message_widget(stored.id)
    footer = widget._sources_view
    assert footer is not None and "Sources: [1] field-notes.pdf p. 3" in footer.toPlainText()
    assert "localmind-source:7" in footer.toMarkdown()
    widget._copy.click()
    assert QGuiApplication.clipboard().text() == answer  # the sources line is not copied with the answer
    assert store.search("field-notes") == []  # nor found by search

    mind.translations.apply("zh_CN")  # it stayed in English: it was part of the stored text
    qtbot.waitUntil(lambda: "来源" in widget._sources_view.toPlainText(), timeout=5000)
    assert "field-notes.pdf p. 3" in widget._sources_view.toPlainText()
    mind.translations.apply("en")

    mind.open_conversation(old.id)
    assert store.messages(old.id)[1].content == answer  # read without the old line
    legacy_widget = mind.window.chat_view.message_widget(legacy.id)
    assert legacy_widget.record.content == answer and legacy_widget._sources_view is not None
