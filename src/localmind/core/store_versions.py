"""Versions of an answer: Regenerate keeps the answers it replaces, and any of them can be shown again.

The message row always holds the version shown: the one the model reads on the next turn, search finds and an old
export reader sees. The others wait in ``message_versions``; choosing one swaps it with the row's. A new version
is a new message row (a new id), so a late save aimed at the answer it replaced can never land in it.
"""

from __future__ import annotations

import json
import sqlite3
import time
from typing import Any

from localmind.core.conversations import Message, MessageVersion
from localmind.core.store_core import dump_json
from localmind.core.store_errors import MessageNotFoundError
from localmind.core.store_messages import MessagesMixin

_ROW = "conversation_id, position, role, content, created_at, status, stats, version"


class VersionsMixin(MessagesMixin):
    """Keeping, listing and choosing versions of an assistant message."""

    def _message_row(self, db: sqlite3.Connection, message_id: int) -> tuple[Any, ...]:
        row = db.execute(f"SELECT {_ROW} FROM messages WHERE id = ?", (message_id,)).fetchone()
        if row is None:
            raise MessageNotFoundError.say("There is no message {id}; it may have been deleted.", id=message_id)
        return tuple(row)

    def versions(self, message_id: int) -> list[MessageVersion]:
        """The versions of a message that are not shown, oldest first."""
        if self.schema_version < 4:
            return []
        rows = self._reading(
            lambda: self._db.execute(
                "SELECT version, content, created_at, status, stats FROM message_versions"
                " WHERE message_id = ? ORDER BY version",
                (message_id,),
            ).fetchall()
        )
        return [MessageVersion(v, c, t, s, json.loads(st) if st is not None else None) for v, c, t, s, st in rows]

    def new_version(self, message_id: int) -> Message:
        """Start another version of the answer ``message_id`` (Regenerate): it is kept as a version, and an empty
        "streaming" message takes its place (and its versions); returns that message. Messages after it go."""
        now = time.time()
        with self.transaction() as db:
            conversation_id, position, role, content, created_at, status, stats, version = self._message_row(
                db, message_id
            )
            kept = db.execute(
                "SELECT version, content, created_at, status, stats FROM message_versions WHERE message_id = ?",
                (message_id,),
            ).fetchall()
            if content:  # an answer that failed before its first word is not worth keeping
                kept.append((version, content, created_at, "stopped" if status == "streaming" else status, stats))
            number = 1 + max([v[0] for v in kept] + [version])
            db.execute("DELETE FROM messages WHERE conversation_id = ? AND position >= ?", (conversation_id, position))
            cursor = db.execute(
                "INSERT INTO messages (conversation_id, position, role, content, created_at, status, version)"
                " VALUES (?, ?, ?, '', ?, 'streaming', ?)",
                (conversation_id, position, role, now, number),
            )
            new_id = cursor.lastrowid
            assert new_id is not None
            db.executemany(
                "INSERT INTO message_versions (message_id, version, content, created_at, status, stats)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                [(new_id, *v) for v in kept],
            )
            db.execute("UPDATE conversations SET updated_at = ? WHERE id = ?", (now, conversation_id))
        return Message(new_id, conversation_id, position, role, "", now, "streaming", None, number, len(kept) + 1)

    def choose_version(self, message_id: int, version: int) -> Message:
        """Show version ``version`` of a message (the one shown now becomes a kept version); returns it as stored."""
        with self.transaction() as db:
            row = self._message_row(db, message_id)
            if row[7] == version:
                return self.get_message(message_id)
            wanted = db.execute(
                "SELECT content, created_at, status, stats FROM message_versions WHERE message_id = ? AND version = ?",
                (message_id, version),
            ).fetchone()
            if wanted is None:
                raise MessageNotFoundError.say(
                    "Message {id} has no version {version}.", id=message_id, version=version + 1
                )
            db.execute(
                "UPDATE message_versions SET version = ?, content = ?, created_at = ?, status = ?, stats = ?"
                " WHERE message_id = ? AND version = ?",
                (row[7], row[3], row[4], row[5], row[6], message_id, version),
            )
            db.execute(
                "UPDATE messages SET content = ?, created_at = ?, status = ?, stats = ?, version = ? WHERE id = ?",
                (*wanted, version, message_id),
            )
        return self.get_message(message_id)

    def discard_version(self, message_id: int) -> Message | None:
        """Take back a version that never got a word (stopped or failed at once): the latest kept version is shown
        again and returned; a message with no other version is deleted (None)."""
        with self.transaction() as db:
            self._message_row(db, message_id)
            latest = db.execute(
                "SELECT MAX(version) FROM message_versions WHERE message_id = ?", (message_id,)
            ).fetchone()[0]
            if latest is None:
                db.execute("DELETE FROM messages WHERE id = ?", (message_id,))
                return None
            wanted = db.execute(
                "SELECT content, created_at, status, stats FROM message_versions WHERE message_id = ? AND version = ?",
                (message_id, latest),
            ).fetchone()
            db.execute("DELETE FROM message_versions WHERE message_id = ? AND version = ?", (message_id, latest))
            db.execute(
                "UPDATE messages SET content = ?, created_at = ?, status = ?, stats = ?, version = ? WHERE id = ?",
                (*wanted, latest, message_id),
            )
        return self.get_message(message_id)

    def _insert_versions(self, db: sqlite3.Connection, message_id: int, versions: tuple[MessageVersion, ...]) -> None:
        """Versions of a message read from a file (an import)."""
        db.executemany(
            "INSERT OR IGNORE INTO message_versions (message_id, version, content, created_at, status, stats)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            [
                (message_id, v.version, v.content, v.created_at, v.status, dump_json(v.stats))
                for v in versions
                if v.status != "streaming"
            ],
        )
