"""Importing conversations into the store."""

from __future__ import annotations

import logging
import re
import sqlite3
import uuid
from collections.abc import Sequence
from typing import Any

from localmind.core.conversations import (
    Conversation,
    ImportResult,
    Message,
)
from localmind.core.store_core import check_message_fields, dump_json
from localmind.core.store_versions import VersionsMixin

log = logging.getLogger(__name__)

_UUID_HEX = re.compile(r"[0-9a-f]{32}")
_RENUMBER_OFFSET = 1 << 40  # moves positions out of the way while they are renumbered (they are unique per chat)


class ImportMixin(VersionsMixin):
    """Conversations from a file, merged by id."""

    def import_conversations(self, items: Sequence[tuple[Conversation, Sequence[Message]]]) -> list[Conversation]:
        """Add conversations as they are (times, statuses, stats), all or none; returns those added or changed.

        See :meth:`merge_conversations` for what happens to a conversation that is already here.
        """
        return self.merge_conversations(items).changed

    def merge_conversations(self, items: Sequence[tuple[Conversation, Sequence[Message]]]) -> ImportResult:
        """Import conversations by id, all or none, so importing the same file twice changes nothing.

        A conversation whose id is new here is added with that id (an id that is not a uuid4 hex gets a new one).
        One that is here already is skipped when the file has nothing it lacks; gets the messages it lacks when
        the file has all of its messages and more (in order: a later export, or a chat recovered with gaps); and
        otherwise, both having changed, is added beside it under a new id: an import never overwrites or removes.
        A message still marked "streaming" comes in as "stopped": nothing is writing it any more.
        """
        result = ImportResult()
        with self.transaction() as db:
            for conversation, messages in items:
                wanted = conversation.id if _UUID_HEX.fullmatch(conversation.id or "") else uuid.uuid4().hex
                existing = db.execute("SELECT 1 FROM conversations WHERE id = ?", (wanted,)).fetchone()
                bucket = result.added
                fill_in: list[int] = list(range(len(messages)))  # which of ``messages`` to insert
                if existing is not None:
                    stored = self.messages(wanted)
                    incoming = [(m.role, m.content) for m in messages]
                    here = _subsequence([(m.role, m.content) for m in stored], incoming)
                    if _subsequence(incoming, [(m.role, m.content) for m in stored]) is not None:
                        result.skipped.append(self.get_conversation(wanted))  # nothing here that is not already
                        continue
                    if here is not None:
                        # The file has everything stored here and more (a later export, or a recovered chat with
                        # gaps): keep the stored messages (and their ids), put them where the file has them, and
                        # fill in the rest.
                        bucket = result.updated
                        db.execute(
                            "UPDATE messages SET position = position + ? WHERE conversation_id = ?",
                            (_RENUMBER_OFFSET, wanted),
                        )
                        for m, target in zip(stored, here, strict=True):
                            db.execute("UPDATE messages SET position = ? WHERE id = ?", (target, m.id))
                        fill_in = sorted(set(fill_in) - set(here))
                        db.execute(
                            "UPDATE conversations SET updated_at = MAX(updated_at, ?) WHERE id = ?",
                            (conversation.updated_at, wanted),
                        )
                    else:
                        wanted, bucket = uuid.uuid4().hex, result.copied
                if bucket is not result.updated:
                    copy = Conversation(
                        id=wanted,
                        title=conversation.title.strip() or "New chat",
                        created_at=conversation.created_at,
                        updated_at=conversation.updated_at,
                        system_prompt=conversation.system_prompt,
                        settings=dict(conversation.settings),
                        model=conversation.model,
                    )
                    self._insert_conversation(db, copy)
                self._insert_messages(db, wanted, messages, fill_in)
                bucket.append(self.get_conversation(wanted))
        return result

    def _insert_messages(
        self, db: sqlite3.Connection, conversation_id: str, messages: Sequence[Message], positions: list[int]
    ) -> None:
        """Insert ``messages[p]`` at position p for each p, with the versions it brings; "streaming" is "stopped"."""
        for position in positions:
            m = messages[position]
            check_message_fields(m.role, m.status)
            cursor = db.execute(
                "INSERT INTO messages (conversation_id, position, role, content, created_at, status, stats, version)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    conversation_id,
                    position,
                    m.role,
                    m.content,
                    m.created_at,
                    "stopped" if m.status == "streaming" else m.status,
                    dump_json(m.stats),
                    m.version,
                ),
            )
            if m.kept_versions:
                assert cursor.lastrowid is not None
                self._insert_versions(db, cursor.lastrowid, m.kept_versions)


def _subsequence(short: Sequence[Any], long: Sequence[Any]) -> list[int] | None:
    """Where each item of ``short`` is in ``long``, in order (greedy), or None if ``short`` is not a subsequence."""
    found: list[int] = []
    i = 0
    for item in short:
        while i < len(long) and long[i] != item:
            i += 1
        if i == len(long):
            return None
        found.append(i)
        i += 1
    return found
