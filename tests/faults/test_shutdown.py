"""Issue 9 item 11: quitting while a reply streams must not touch a closed database.

Before: ``session.shutdown()`` marked the session closed only after ending the turn, so a listener that sends the
next queued message when the session goes idle started a turn during shutdown; its save timer then fired after
``store.close()``: ``sqlite3.ProgrammingError: Cannot operate on a closed database`` from ``save_partial_reply``.
"""

from __future__ import annotations

from typing import Any

from tests.faults.test_disk_full import STORY, db_rows
from tests.helpers.app_window import Launch, fake, type_and_send


def test_quitting_mid_reply_saves_it_and_starts_nothing_after(qtbot: Any, launch: Launch) -> None:
    mind = launch(engine=fake(STORY, delay=0.003))
    session = mind.session
    sent_during_shutdown: list[bool] = []

    def send_next_queued(generating: bool) -> None:
        if not generating:  # like a composer that sends what was typed while the reply streamed
            sent_during_shutdown.append(session.send("queued while streaming"))

    type_and_send(qtbot, mind, "stream")
    qtbot.waitUntil(lambda: session.turn_progress is not None and session.turn_progress[1] > 50, timeout=5000)
    session.generating_changed.connect(send_next_queued)
    mind.window.close()
    qtbot.wait(1200)  # two save intervals: a turn started during shutdown would try to save now
    assert sent_during_shutdown == [False]
    assert not session.generating
    [(status, content)] = db_rows("SELECT status, content FROM messages WHERE role = 'assistant'")
    assert status == "stopped" and STORY.startswith(content) and content
    assert db_rows("SELECT COUNT(*) FROM messages WHERE role = 'user'") == [(1,)]
