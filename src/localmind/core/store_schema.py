"""The conversation database's tables and the steps that bring an older file up to date."""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Callable

from localmind.core.conversations import LEGACY_SOURCES_AT_KEY, without_sources_line

log = logging.getLogger(__name__)


# --- schema -----------------------------------------------------------------------------------------

_V1_TABLES = [
    # ``num`` gives conversations a stable integer rowid for the title index (VACUUM may renumber implicit rowids).
    """CREATE TABLE conversations (
        num INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        title TEXT NOT NULL,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL,
        system_prompt TEXT NOT NULL DEFAULT '',
        settings TEXT NOT NULL DEFAULT '{}',
        model TEXT,
        deleted_at REAL
    )""",
    "CREATE INDEX conversations_by_updated ON conversations (updated_at)",
    # AUTOINCREMENT: a regenerated reply must never get the id of the one it replaced, or a late save
    # aimed at the old message would land in the new one.
    """CREATE TABLE messages (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        role TEXT NOT NULL CHECK (role IN ('system', 'user', 'assistant')),
        content TEXT NOT NULL,
        created_at REAL NOT NULL,
        status TEXT NOT NULL DEFAULT 'complete' CHECK (status IN ('complete', 'streaming', 'stopped', 'error')),
        stats TEXT,
        UNIQUE (conversation_id, position)
    )""",
    # Finding replies interrupted by a crash must not scan every message at startup.
    "CREATE INDEX messages_streaming ON messages (id) WHERE status = 'streaming'",
]

# The search index leaves out replies that are still streaming: re-indexing a growing reply on every
# periodic save would make each save cost more as the answer gets longer. The view is the index's
# content table, so FTS5's own integrity-check and rebuild agree with that choice.
_SEARCH_INDEX = [
    "CREATE VIEW IF NOT EXISTS searchable_messages AS SELECT id, content FROM messages WHERE status != 'streaming'",
    """CREATE VIRTUAL TABLE IF NOT EXISTS message_search USING fts5 (
        content, content = 'searchable_messages', content_rowid = 'id', tokenize = 'trigram')""",
    """CREATE VIRTUAL TABLE IF NOT EXISTS title_search USING fts5 (
        title, content = 'conversations', content_rowid = 'num', tokenize = 'trigram')""",
    """CREATE TRIGGER IF NOT EXISTS messages_search_insert AFTER INSERT ON messages
        WHEN new.status != 'streaming' BEGIN
        INSERT INTO message_search (rowid, content) VALUES (new.id, new.content);
    END""",
    """CREATE TRIGGER IF NOT EXISTS messages_search_delete AFTER DELETE ON messages
        WHEN old.status != 'streaming' BEGIN
        INSERT INTO message_search (message_search, rowid, content) VALUES ('delete', old.id, old.content);
    END""",
    # One trigger, two statements: the order (remove old, then add new) must be fixed.
    """CREATE TRIGGER IF NOT EXISTS messages_search_update AFTER UPDATE OF content, status ON messages BEGIN
        INSERT INTO message_search (message_search, rowid, content)
            SELECT 'delete', old.id, old.content WHERE old.status != 'streaming';
        INSERT INTO message_search (rowid, content) SELECT new.id, new.content WHERE new.status != 'streaming';
    END""",
    """CREATE TRIGGER IF NOT EXISTS conversations_search_insert AFTER INSERT ON conversations BEGIN
        INSERT INTO title_search (rowid, title) VALUES (new.num, new.title);
    END""",
    """CREATE TRIGGER IF NOT EXISTS conversations_search_delete AFTER DELETE ON conversations BEGIN
        INSERT INTO title_search (title_search, rowid, title) VALUES ('delete', old.num, old.title);
    END""",
    """CREATE TRIGGER IF NOT EXISTS conversations_search_update AFTER UPDATE OF title ON conversations BEGIN
        INSERT INTO title_search (title_search, rowid, title) VALUES ('delete', old.num, old.title);
        INSERT INTO title_search (rowid, title) VALUES (new.num, new.title);
    END""",
]


def trigram_search_available(db: sqlite3.Connection) -> bool:
    """FTS5 with the trigram tokenizer needs SQLite 3.34 built with FTS5; some Linux Pythons lack it."""
    try:
        db.execute("CREATE VIRTUAL TABLE temp.trigram_probe USING fts5 (x, tokenize = 'trigram')")
    except sqlite3.OperationalError:
        return False
    db.execute("DROP TABLE temp.trigram_probe")
    return True


def _create_tables(db: sqlite3.Connection) -> None:
    for statement in _V1_TABLES:
        db.execute(statement)


def create_search_index(db: sqlite3.Connection) -> None:
    if not trigram_search_available(db):
        log.warning("SQLite %s has no FTS5 trigram tokenizer; search falls back to slower LIKE", sqlite3.sqlite_version)
        return
    fresh = db.execute("SELECT 1 FROM sqlite_master WHERE name = 'message_search'").fetchone() is None
    for statement in _SEARCH_INDEX:
        db.execute(statement)
    if fresh:
        db.execute("INSERT INTO message_search (message_search) VALUES ('rebuild')")
        db.execute("INSERT INTO title_search (title_search) VALUES ('rebuild')")


def _sources_out_of_text(db: sqlite3.Connection) -> None:
    """Answers from documents carried a "Sources: ..." line in their text (in English, searched, copied): cut it
    off; the sources stay in the stats, where the window shows them in the user's language."""
    rows = db.execute("SELECT id, content, stats FROM messages WHERE stats LIKE ?", (f'%"{LEGACY_SOURCES_AT_KEY}"%',))
    for message_id, content, raw in rows.fetchall():
        try:
            stats = json.loads(raw)
        except ValueError:
            continue
        text, rest = without_sources_line(content, stats)
        if rest is not stats:
            db.execute(
                "UPDATE messages SET content = ?, stats = ? WHERE id = ?",
                (text, json.dumps(rest, ensure_ascii=False), message_id),
            )


_VERSIONS = [
    # Regenerate keeps the answers it replaces: the message row holds the one shown (and read by the model, found
    # by search); the others wait here. ``version`` numbers them in the order they were written, from 0.
    "ALTER TABLE messages ADD COLUMN version INTEGER NOT NULL DEFAULT 0",
    """CREATE TABLE message_versions (
        message_id INTEGER NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
        version INTEGER NOT NULL,
        content TEXT NOT NULL,
        created_at REAL NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('complete', 'stopped', 'error')),
        stats TEXT,
        PRIMARY KEY (message_id, version)
    )""",
]


def _answer_versions(db: sqlite3.Connection) -> None:
    for statement in _VERSIONS:
        db.execute(statement)


# Step n takes a database at user_version n to n + 1. Never edit a released step: add a new one.
MIGRATIONS: list[Callable[[sqlite3.Connection], None]] = [
    _create_tables,  # -> 1: the first release
    create_search_index,  # -> 2: full-text search over titles and messages
    _sources_out_of_text,  # -> 3: an answer's sources are its metadata, not part of its text
    _answer_versions,  # -> 4: the answers a regenerate replaced, kept as versions of the message
]
# The first schema with message versions; older files are read as if every message had one.
VERSIONS_SCHEMA = 4
SCHEMA_VERSION = len(MIGRATIONS)
