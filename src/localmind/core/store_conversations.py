"""Conversations in the store."""

from __future__ import annotations

import logging
import sqlite3
import time
import uuid
from collections.abc import Sequence
from typing import Any

from localmind.core.conversations import (
    Conversation,
)
from localmind.core.store_core import CONVERSATION_COLUMNS, StoreCore, conversation_from_row, dump_json, readable_rows
from localmind.core.store_errors import ConversationNotFoundError

log = logging.getLogger(__name__)


class ConversationsMixin(StoreCore):
    """Conversations: create, list, rename, trash and restore."""

    def create_conversation(
        self,
        title: str = "New chat",
        system_prompt: str = "",
        settings: dict[str, Any] | None = None,
        model: str | None = None,
    ) -> Conversation:
        now = time.time()
        conversation = Conversation(
            id=uuid.uuid4().hex,
            title=title.strip() or "New chat",
            created_at=now,
            updated_at=now,
            system_prompt=system_prompt,
            settings=dict(settings or {}),
            model=model,
        )
        with self.transaction() as db:
            self._insert_conversation(db, conversation)
        return conversation

    def _insert_conversation(self, db: sqlite3.Connection, c: Conversation) -> None:
        db.execute(
            "INSERT INTO conversations (id, title, created_at, updated_at, system_prompt, settings, model, deleted_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (c.id, c.title, c.created_at, c.updated_at, c.system_prompt, dump_json(c.settings), c.model, c.deleted_at),
        )

    def list_conversations(self, include_deleted: bool = False) -> list[Conversation]:
        """Newest activity first."""
        where = "" if include_deleted else "WHERE c.deleted_at IS NULL"
        rows = self._reading(
            lambda: self._db.execute(
                f"SELECT {CONVERSATION_COLUMNS} FROM conversations c {where} ORDER BY c.updated_at DESC, c.num DESC"
            ).fetchall()
        )
        return [conversation_from_row(row) for row in rows]

    def get_conversation(self, id: str) -> Conversation:
        """The conversation, in the trash or not; :class:`ConversationNotFoundError` if there is none."""
        row = self._reading(
            lambda: self._db.execute(
                f"SELECT {CONVERSATION_COLUMNS} FROM conversations c WHERE c.id = ?", (id,)
            ).fetchone()
        )
        if row is None:
            raise ConversationNotFoundError.say("There is no conversation {id}; it may have been deleted.", id=repr(id))
        return conversation_from_row(row)

    def _update_conversation_row(self, id: str, assignments: str, values: Sequence[Any]) -> None:
        with self.transaction() as db:
            if db.execute(f"UPDATE conversations SET {assignments} WHERE id = ?", (*values, id)).rowcount == 0:
                raise ConversationNotFoundError.say(
                    "There is no conversation {id}; it may have been deleted.", id=repr(id)
                )

    def rename_conversation(self, id: str, title: str) -> None:
        self._update_conversation_row(id, "title = ?", (title.strip() or "New chat",))

    def update_conversation(
        self,
        id: str,
        *,
        system_prompt: str | None = None,
        settings: dict[str, Any] | None = None,
        model: str | None = None,
    ) -> None:
        """Change what is given; ``None`` leaves a field as it is. ``settings`` replaces the whole dict."""
        fields = {"system_prompt": system_prompt, "settings": dump_json(settings), "model": model}
        given = {name: value for name, value in fields.items() if value is not None}
        if not given:
            self.get_conversation(id)  # still report a missing conversation
            return
        self._update_conversation_row(id, ", ".join(f"{name} = ?" for name in given), list(given.values()))

    def delete_conversation(self, id: str) -> None:
        """Move to the trash: hidden from lists and search until restored or purged."""
        self._update_conversation_row(id, "deleted_at = ?", (time.time(),))

    def restore_conversation(self, id: str) -> None:
        self._update_conversation_row(id, "deleted_at = NULL", ())

    def purge_deleted(self, older_than_s: float = 0) -> int:
        """Delete for good what has been in the trash at least ``older_than_s`` seconds; returns how many."""
        with self.transaction() as db:
            return db.execute(
                "DELETE FROM conversations WHERE deleted_at IS NOT NULL AND deleted_at <= ?",
                (time.time() - older_than_s,),
            ).rowcount

    def readable_conversation_rows(self) -> list[tuple[str, str, float | None]]:
        """(id, title, deleted_at) of every conversation row that can still be read from a damaged file."""
        with self._lock:
            rows = readable_rows(self._db, "conversations", "num", "id, title, deleted_at", [])
            return [(row[1], row[2], row[3]) for row in rows]
