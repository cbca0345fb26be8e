"""Documents read-ahead through the window and its real engine process (issue 19): typing a question with "Use my
documents" on reads its passages before Enter; the stats line's first-token label says so, in its tooltip."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

from localmind.documents.index import DocumentIndex
from localmind.documents.library import Library, index_path
from tests.helpers.app_window import Launch, greedy_settings, launch_fixture

pytestmark = pytest.mark.gui
QUESTION = "What did the Kestrel Ridge rain gauge record?"


@pytest.fixture
def launch(qtbot: Any, tiny_model: Path) -> Iterator[Launch]:
    yield from launch_fixture(qtbot, tiny_model)


def test_a_typed_question_s_passages_are_read_ahead_and_the_stats_line_says_so(
    qtbot: Any, launch: Launch, roomy_model: Path, corpus: Path
) -> None:
    library = Library(DocumentIndex(index_path()))
    library.add([corpus])
    library.close()
    settings = greedy_settings()
    settings.use_documents = True
    mind = launch(roomy_model, settings=settings)
    assert mind.documents is not None and mind.documents.chat.active
    box = mind.window.composer.input
    box.setFocus()
    for word in QUESTION.split(" "):
        qtbot.keyClicks(box, word + ("" if word.endswith("?") else " "))
        qtbot.wait(150)
    qtbot.wait(500)  # Enter half a second after the last key
    with qtbot.waitSignal(mind.session.turn_finished, timeout=15000):
        qtbot.keyClick(box, Qt.Key.Key_Return)
    assert mind.session.conversation_id is not None
    stats = mind.store.messages(mind.session.conversation_id)[-1].stats or {}
    assert stats["passages_read_ahead"] == 1
    assert stats["prompt_tokens"] - stats["reused_tokens"] <= 12
    label = mind.window.status.ttft_label
    assert label.toolTip() == "1 passage(s) from your documents were read while you typed the question."
    assert label.accessibleDescription() == label.toolTip()
