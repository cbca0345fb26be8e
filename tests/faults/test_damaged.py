"""Issue 10 item 4: one bad page after 300 imported conversations.

Before: no warning at start, opening an affected chat raised an unhandled DatabaseError, and ``export --all``
crashed with a traceback and wrote nothing.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from localmind import paths
from localmind.core import chat_files, recovery
from localmind.core.store import DAMAGED, ConversationStore, StoreError
from tests.faults import helpers
from tests.helpers.app_window import Launch, fake

COUNT = 300


@pytest.fixture
def damaged(data_dir: Path) -> list[str]:
    """300 imported conversations, one page overwritten; returns the ids whose messages can no longer be read."""
    with ConversationStore() as store:
        chat_files.import_json(store, json.dumps(helpers.export_data(COUNT)))
    helpers.damage_page(paths.database_path())
    affected = []
    with ConversationStore() as store:
        for id, _, _ in store.readable_conversation_rows():
            try:
                store.messages(id)
            except StoreError as exc:
                assert exc.kind == DAMAGED
                affected.append(id)
    assert affected, "the damaged page should hold messages"
    return affected


def test_quick_check_at_start_finds_the_damage(damaged: list[str]) -> None:
    with pytest.raises(StoreError) as caught:
        ConversationStore(check=True)
    assert caught.value.kind == DAMAGED
    assert "move the file aside" not in str(caught.value).lower()


def test_opening_an_affected_chat_says_so_and_the_others_still_open(
    qtbot: Any, launch: Launch, damaged: list[str]
) -> None:
    mind = launch(engine=fake("ok"))
    mind.open_conversation(damaged[0])  # raised an unhandled DatabaseError before
    assert mind.window.banner.title.text() == "This conversation cannot be opened."
    assert "damaged" in mind.window.banner.detail.text() and "other" in mind.window.banner.detail.text()
    good = next(c.id for c in mind.store.list_conversations() if c.id not in damaged)
    mind.open_conversation(good)
    assert mind.session.conversation_id == good and len(mind.session.messages) == 4


def test_export_all_writes_every_readable_conversation_and_names_the_rest(damaged: list[str], tmp_path: Path) -> None:
    out = tmp_path / "rescue.json"
    result = subprocess.run(
        [sys.executable, "-m", "localmind", "export", "--all", "-o", str(out)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert "Traceback" not in result.stderr
    assert result.returncode == 1  # not everything: a script must notice
    exported = json.loads(out.read_text(encoding="utf-8"))["conversations"]
    assert len(exported) == COUNT - len(damaged)
    assert f"{len(damaged)} conversation" in result.stderr and "could not be read" in result.stderr
    for id in damaged:
        assert id in result.stderr


@pytest.mark.parametrize("use_cli", [True, False], ids=["sqlite3-recover-if-usable", "row-by-row"])
def test_salvage_keeps_everything_readable_and_the_damaged_file(
    damaged: list[str], data_dir: Path, use_cli: bool
) -> None:
    if use_cli and shutil.which("sqlite3") is None:
        pytest.skip("no sqlite3 command here; the row-by-row copy is tested below")
    db = paths.database_path()
    before = db.stat().st_size
    report = recovery.salvage(db, use_sqlite_cli=use_cli)
    assert report.conversations == COUNT
    # Everything but the messages on the damaged page (a 4 KB page holds a few of these messages).
    assert COUNT * 4 - 12 <= report.messages < COUNT * 4
    assert report.damaged_copy is not None and report.damaged_copy.stat().st_size == before
    assert set(report.partial) >= {t for t in report.partial}  # named by title
    assert len(report.partial) == len(damaged)
    with ConversationStore(check=True) as store:  # the new one passes the check, search works
        assert len(store.list_conversations()) == COUNT
        assert store.search("alpha")
        fresh = sqlite3.connect(db)
        assert fresh.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        fresh.close()
    # The same export again after recovery: nothing is lost twice, nothing duplicated.
    with ConversationStore() as store:
        result = chat_files.merge_json(store, json.dumps(helpers.export_data(COUNT)))
        assert len(result.added) == 0 and len(result.skipped) + len(result.updated) == COUNT
        assert len(result.updated) == len(damaged)  # the lost messages come back from the export
        assert sum(len(store.messages(c.id)) for c in store.list_conversations()) == COUNT * 4
