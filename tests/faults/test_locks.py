"""Issue 10 item 6: another process holding the database's lock never freezes the window.

Before: the window waited ~3 s (SQLite's busy timeout, on the GUI thread) before "database is busy".
The terminal commands keep sharing the database with the running window.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from localmind import paths
from localmind.ui import store_dialogs
from tests.faults import helpers
from tests.faults.test_disk_full import STORY, db_rows
from tests.helpers.app_window import Launch, fake, send_and_wait, type_and_send


def test_sending_while_another_process_holds_the_lock_returns_at_once(qtbot: Any, launch: Launch) -> None:
    mind = launch(engine=fake("Noted.", delay=0.0))
    send_and_wait(qtbot, mind, "first")
    with helpers.lock_held(paths.database_path(), "write"):
        start = time.perf_counter()
        type_and_send(qtbot, mind, "second")
        blocked = time.perf_counter() - start
        assert blocked < 1.0, f"the window was blocked {blocked:.2f} s"  # it was 3 s
        assert mind.window.composer.text == "second"
        assert mind.window.banner.title.text() == "Your message was not sent."
        assert "Another program is using your conversations" in mind.window.banner.detail.text()
    type_and_send(qtbot, mind, "")  # Enter again once the other program is done
    qtbot.waitUntil(lambda: not mind.session.generating and len(mind.session.messages) == 4, timeout=5000)
    assert [r[0] for r in db_rows("SELECT content FROM messages ORDER BY id")] == [
        "first",
        "Noted.",
        "second",
        "Noted.",
    ]


def test_a_reply_ending_under_a_lock_is_stored_when_the_lock_goes(qtbot: Any, launch: Launch) -> None:
    mind = launch(engine=fake(STORY, delay=0.003))
    type_and_send(qtbot, mind, "long one")
    qtbot.waitUntil(lambda: mind.session.generating, timeout=5000)
    with helpers.lock_held(paths.database_path(), "write"):
        qtbot.waitUntil(lambda: not mind.session.generating, timeout=30000)
        assert mind.session.saver.pending
        # Past the grace period a lock that lasts is told (a short one is not).
        qtbot.waitUntil(lambda: "another program" in mind.window.banner.title.text(), timeout=5000)
    qtbot.waitUntil(lambda: not mind.session.saver.pending, timeout=5000)
    assert db_rows("SELECT content, status FROM messages WHERE role = 'assistant'") == [(STORY, "complete")]
    assert store_dialogs.GUI_BUSY_TIMEOUT_MS <= 100


def test_terminal_import_and_export_while_the_window_streams(qtbot: Any, launch: Launch, tmp_path: Path) -> None:
    mind = launch(engine=fake(STORY, delay=0.004))
    source = helpers.write_json(tmp_path / "in.json", helpers.export_data(150))
    type_and_send(qtbot, mind, "stream while the terminal works")
    qtbot.waitUntil(lambda: mind.session.generating, timeout=5000)
    env_cmd = [sys.executable, "-m", "localmind", "--data-dir", str(paths.data_dir())]
    # Their output goes to files: an export of 150 chats is more than a pipe holds, and a pipe read only after the
    # process ends would block it (whether the export saw the imported chats depends on which ran first).
    with (
        (tmp_path / "import.out").open("wb") as import_out,
        (tmp_path / "import.err").open("wb") as import_err,
        (tmp_path / "export.out").open("wb") as export_out,
        (tmp_path / "export.err").open("wb") as export_err,
    ):
        imported = subprocess.Popen([*env_cmd, "import", str(source)], stdout=import_out, stderr=import_err)
        exported = subprocess.Popen(
            [*env_cmd, "export", "--all", "--format", "json"], stdout=export_out, stderr=export_err
        )
        qtbot.waitUntil(lambda: imported.poll() is not None and exported.poll() is not None, timeout=60000)
    assert exported.returncode == 0, (tmp_path / "export.err").read_text()
    json.loads((tmp_path / "export.out").read_bytes())  # a whole, valid export
    assert (tmp_path / "import.err").read_bytes() == b"" and imported.returncode == 0
    qtbot.waitUntil(lambda: not mind.session.generating and not mind.session.saver.pending, timeout=30000)
    assert db_rows(
        "SELECT content, status FROM messages WHERE role = 'assistant' AND conversation_id = ?",
        mind.session.conversation_id,
    ) == [(STORY, "complete")]
    assert db_rows("SELECT COUNT(*) FROM conversations") == [(151,)]
