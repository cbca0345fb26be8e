"""Issue 10 item 5: a small rolling set of automatic backups, and "Restore from backup…" in the window."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QDialog

from localmind.core import backup
from localmind.core.store import ConversationStore
from localmind.ui import store_dialogs
from tests.helpers.app_window import Launch, fake, send_and_wait


def test_daily_and_on_a_new_version_a_few_kept(data_dir: Path) -> None:
    with ConversationStore() as store:
        store.create_conversation("first")
        assert backup.due(store, "1.0") == "daily"
        made = backup.backup_if_due(store, "1.0")
        assert made is not None and made.name.endswith("-daily-v1.0.sqlite3")
        assert backup.backup_if_due(store, "1.0") is None  # one a day
        upgrade = backup.backup_if_due(store, "1.1")
        assert upgrade is not None and "-upgrade-v1.1" in upgrade.name
        # Older days: copies named as if made before, then pruned to KEEP.
        for day in range(1, 9):
            shutil.copy(made, made.with_name(f"202001{day:02d}-120000-daily-v1.0.sqlite3"))
        backup.prune(store)
        kept = backup.list_backups(store)
        assert len(kept) == backup.KEEP and kept[0].path == upgrade
        assert all(b.conversation_count() == 1 for b in kept)


def test_the_start_up_backup_runs_in_the_task_runner(qtbot: Any, data_dir: Path) -> None:
    from localmind.workers.tasks import TaskRunner

    runner = TaskRunner()
    with ConversationStore() as store:
        store.create_conversation("kept")
        with qtbot.waitSignal(runner.task_finished, timeout=10_000) as finished:
            store_dialogs.start_backup(store, runner)
            assert runner.running() == ["backup"]  # off the GUI thread, drained with every other task at exit
        assert finished.args == ["backup", "succeeded"]
        [made] = backup.list_backups(store)
        assert made.reason == "daily" and made.conversation_count() == 1
    runner.shutdown()


def test_a_full_disk_makes_no_backup_and_no_fuss(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with ConversationStore() as store:

        def full(*_: Any) -> None:
            raise OSError(28, "No space left on device")

        monkeypatch.setattr(backup.os, "replace", full)
        assert backup.backup_if_due(store) is None
        assert not list((data_dir / "backups").glob("*.part"))


def test_restore_from_backup_in_the_window(qtbot: Any, launch: Launch, monkeypatch: pytest.MonkeyPatch) -> None:
    mind = launch(engine=fake("Noted."))
    send_and_wait(qtbot, mind, "before the backup")
    backup.make_backup(mind.store, "daily")
    mind.new_chat()
    send_and_wait(qtbot, mind, "after the backup")
    assert len(mind.store.list_conversations()) == 2

    monkeypatch.setattr(store_dialogs.RestoreDialog, "exec", lambda self: QDialog.DialogCode.Accepted)
    mind.window.restore_action.trigger()
    assert [c.title for c in mind.store.list_conversations()] == ["before the backup"]
    assert mind.window.banner.title.text() == "The backup was restored."
    assert mind.conversations.rowCount() == 1  # the sidebar shows what is there now
    # The conversations replaced are kept as a backup of their own, so the restore can be undone.
    [safety] = [b for b in backup.list_backups(mind.store) if b.reason == "before-restore"]
    assert safety.conversation_count() == 2
    send_and_wait(qtbot, mind, "still works")
    assert len(mind.store.list_conversations()) == 2


def test_an_update_backs_up_before_its_migrations_run(data_dir: Path, qapp: Any) -> None:
    import sqlite3

    from localmind import paths
    from localmind.core.store import MIGRATIONS

    # A database as the first release left it (schema 1), with one chat.
    db = sqlite3.connect(paths.database_path())
    MIGRATIONS[0](db)
    db.execute("PRAGMA user_version = 1")
    db.execute("INSERT INTO conversations (id, title, created_at, updated_at) VALUES ('c1', 'old', 1, 1)")
    db.commit()
    db.close()
    store = store_dialogs.open_store(lambda *_: store_dialogs.QUIT)
    assert store is not None
    [made] = backup.list_backups(store)
    assert made.reason == "upgrade"
    copy = sqlite3.connect(made.path)
    assert copy.execute("PRAGMA user_version").fetchone()[0] == 1  # taken before the migration
    copy.close()
    store.close()
