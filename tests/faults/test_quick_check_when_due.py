"""The window's start-up quick_check runs only when due (issue 12, cold start): after an exit that left the
database open, when the last clean check is a day old, or for a file it never checked. Damage is still found
then, and by any read in between (tests/faults/test_damaged.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from localmind import paths
from localmind.core import chat_files
from localmind.core.store import DAMAGED, QUICK_CHECK_EVERY_S, WHEN_DUE, ConversationStore, StoreError
from tests.faults import helpers

COUNT = 300


def _stamp(db: Path) -> Path:
    return db.with_name(db.name + ".checked")


@pytest.fixture
def database(data_dir: Path) -> Path:
    with ConversationStore() as store:
        chat_files.import_json(store, json.dumps(helpers.export_data(COUNT)))
    return paths.database_path()


def _exit_without_closing(db: Path) -> None:
    """Another process opens the database, writes, and dies without closing it (as a crash or a kill does)."""
    script = (
        "import os, sqlite3, sys\n"
        "db = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
        "db.execute('PRAGMA journal_mode = WAL')\n"
        "db.execute('PRAGMA wal_autocheckpoint = 0')\n"
        "db.execute(\"UPDATE conversations SET title = title || '' WHERE rowid = 1\")\n"
        "os._exit(0)\n"
    )
    subprocess.run([sys.executable, "-c", script, str(db)], check=True, timeout=60)
    assert Path(str(db) + "-wal").exists()


def test_a_database_never_checked_is_checked_and_damage_found(database: Path) -> None:
    helpers.damage_page(database)
    with pytest.raises(StoreError) as caught:
        ConversationStore(check=WHEN_DUE)
    assert caught.value.kind == DAMAGED
    assert not _stamp(database).exists()


def test_after_a_clean_check_and_a_clean_exit_the_next_start_skips_it(database: Path) -> None:
    with ConversationStore(check=WHEN_DUE) as store:  # checked: the file is sound
        assert len(store.list_conversations()) == COUNT
    assert _stamp(database).exists()
    helpers.damage_page(database)  # damage that only a whole-file check would see at start
    with ConversationStore(check=WHEN_DUE) as store:  # not due: the start does not read the whole file
        assert len(store.list_conversations()) == COUNT
    with pytest.raises(StoreError) as caught:  # an explicit check still reads everything
        ConversationStore(check=True)
    assert caught.value.kind == DAMAGED


def test_an_exit_that_left_the_database_open_makes_the_next_start_check(database: Path) -> None:
    ConversationStore(check=WHEN_DUE).close()
    helpers.damage_page(database)
    _exit_without_closing(database)
    with pytest.raises(StoreError) as caught:
        ConversationStore(check=WHEN_DUE)
    assert caught.value.kind == DAMAGED


def test_a_day_after_the_last_check_it_runs_again(database: Path) -> None:
    ConversationStore(check=WHEN_DUE).close()
    helpers.damage_page(database)
    checked, inode = _stamp(database).read_text(encoding="ascii").split()
    _stamp(database).write_text(f"{float(checked) - QUICK_CHECK_EVERY_S - 60:.0f} {inode}\n", encoding="ascii")
    with pytest.raises(StoreError) as caught:
        ConversationStore(check=WHEN_DUE)
    assert caught.value.kind == DAMAGED


def test_another_file_in_its_place_is_checked(database: Path, tmp_path: Path) -> None:
    """A restored backup or a recovered database is a new file: the old stamp does not vouch for it."""
    ConversationStore(check=WHEN_DUE).close()
    copy = tmp_path / "copy.sqlite3"
    copy.write_bytes(database.read_bytes())
    helpers.damage_page(copy)
    os.replace(copy, database)
    assert time.time() - float(_stamp(database).read_text(encoding="ascii").split()[0]) < QUICK_CHECK_EVERY_S
    with pytest.raises(StoreError) as caught:
        ConversationStore(check=WHEN_DUE)
    assert caught.value.kind == DAMAGED
