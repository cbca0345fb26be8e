"""Issue 21, data on disk: a private data folder (0700) and databases (0600), and a read-only data folder where
``localmind export`` and ``localmind docs search`` still work (they only read)."""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from localmind import paths
from localmind.core import backup
from localmind.core.store import ConversationStore
from tests.faults import helpers

pytestmark = pytest.mark.skipif(os.name == "nt", reason="POSIX modes")


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def localmind(data: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "localmind", "--data-dir", str(data), *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_a_new_data_folder_and_its_databases_are_private(tmp_path: Path) -> None:
    data = tmp_path / "fresh"
    old_umask = os.umask(0o022)  # the usual umask, under which both came out readable by everyone
    try:
        with ConversationStore(data / "conversations.sqlite3") as store:
            c = store.create_conversation("secret")
            store.append_message(c.id, "user", "my private question")
            made = backup.make_backup(store, "daily")
        from localmind.documents.index import DocumentIndex

        DocumentIndex(data / "documents.sqlite3").close()
    finally:
        os.umask(old_umask)
    assert mode(data) == 0o700
    assert mode(data / "conversations.sqlite3") == 0o600
    assert mode(data / "documents.sqlite3") == 0o600
    assert mode(made.parent) == 0o700 and mode(made) == 0o600
    for sidecar in data.glob("*-wal"):
        assert mode(sidecar) == 0o600, sidecar


def test_an_existing_world_readable_folder_and_database_are_tightened_on_open(tmp_path: Path) -> None:
    data = tmp_path / "old"
    with ConversationStore(data / "conversations.sqlite3") as store:
        store.create_conversation("from an older version")
    db = data / "conversations.sqlite3"
    os.chmod(data, 0o755)
    os.chmod(db, 0o644)
    with ConversationStore(db) as store:
        assert len(store.list_conversations()) == 1
        wal = Path(f"{db}-wal")
        assert not wal.exists() or mode(wal) == 0o600
    assert mode(data) == 0o700 and mode(db) == 0o600
    paths.set_data_dir(data)
    try:
        os.chmod(data, 0o755)
        assert paths.ensure_data_dir() == data and mode(data) == 0o700
    finally:
        paths.set_data_dir(None)


@pytest.fixture
def read_only_data(tmp_path: Path) -> Path:
    if not helpers.can_mount():
        pytest.skip("needs root to mount a tmpfs that can be made read-only (root ignores file modes)")
    data = tmp_path / "data"
    with helpers.small_disk(data, "8m"):
        yield data


def test_export_all_from_a_read_only_data_folder(read_only_data: Path, tmp_path: Path) -> None:
    """It used to refuse: "cannot be written … can be read and exported", while it could not be exported."""
    with ConversationStore(read_only_data / "conversations.sqlite3") as store:
        for n in range(3):
            c = store.create_conversation(f"Chat {n}")
            store.append_message(c.id, "user", f"question {n}")
    helpers.remount(read_only_data, "ro")
    try:
        out = tmp_path / "all.json"
        done = localmind(read_only_data, "export", "--all", "-o", str(out))
        assert done.returncode == 0, done.stderr
        exported = json.loads(out.read_text(encoding="utf-8"))
        assert sorted(c["title"] for c in exported["conversations"]) == ["Chat 0", "Chat 1", "Chat 2"]
        listed = localmind(read_only_data, "export", "--list")
        assert listed.returncode == 0 and listed.stdout.count("Chat ") == 3, listed.stderr
    finally:
        helpers.remount(read_only_data, "rw")


def test_docs_search_in_a_read_only_data_folder(read_only_data: Path, tmp_path: Path) -> None:
    """It used to fail and advise deleting the index."""
    notes = tmp_path / "notes.md"
    notes.write_text("# Harbour\n\nThe harbour wall was rebuilt in 1887 with granite from Penryn.\n", encoding="utf-8")
    added = localmind(read_only_data, "docs", "add", "--no-embeddings", str(notes))
    assert added.returncode == 0, added.stderr
    helpers.remount(read_only_data, "ro")
    try:
        found = localmind(read_only_data, "docs", "search", "granite harbour", "--json")
        assert found.returncode == 0, found.stderr
        assert "delete" not in found.stderr
        passages = json.loads(found.stdout)
        assert passages and "Penryn" in passages[0]["text"]
    finally:
        helpers.remount(read_only_data, "rw")


def test_an_older_database_in_a_read_only_folder_is_exported_without_sources_lines(
    read_only_data: Path, tmp_path: Path
) -> None:
    """A schema-2 file (answers with their sources line in the text) cannot be migrated there: it is read as is."""
    db_path = read_only_data / "conversations.sqlite3"
    with ConversationStore(db_path) as store:
        c = store.create_conversation("Old documents chat")
        store.append_message(c.id, "user", "What did the gauge record?")
        answer = "It recorded 417 millimetres [1]."
        store.append_message(c.id, "assistant", "placeholder")
    line = "\n\n**Sources:** [\\[1\\] notes.pdf p. 3](localmind-source:7)"
    stats = {"sources": [{"number": 1, "file": "/d/notes.pdf", "page": 3, "text": "…"}], "sources_at": len(answer)}
    db = sqlite3.connect(db_path)
    db.execute(
        "UPDATE messages SET content = ?, stats = ? WHERE role = 'assistant'", (answer + line, json.dumps(stats))
    )
    db.execute("DROP TABLE message_versions")
    db.execute("ALTER TABLE messages DROP COLUMN version")
    db.execute("PRAGMA user_version = 2")
    db.commit()
    db.close()
    helpers.remount(read_only_data, "ro")
    try:
        out = tmp_path / "old.json"
        done = localmind(read_only_data, "export", "--all", "-o", str(out))
        assert done.returncode == 0, done.stderr
        messages = json.loads(out.read_text(encoding="utf-8"))["conversations"][0]["messages"]
        assert messages[1]["content"] == answer
        assert messages[1]["stats"]["sources"][0]["page"] == 3 and "sources_at" not in messages[1]["stats"]
    finally:
        helpers.remount(read_only_data, "rw")
