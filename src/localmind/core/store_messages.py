"""Messages in the store."""

from __future__ import annotations

import logging
import time
from typing import Any

from localmind.core.conversations import (
    Message,
    MessageStatus,
    Role,
    without_sources_line,
)
from localmind.core.store_conversations import ConversationsMixin
from localmind.core.store_core import check_message_fields, dump_json, message_from_row
from localmind.core.store_errors import ConversationNotFoundError, MessageNotFoundError

log = logging.getLogger(__name__)


class MessagesMixin(ConversationsMixin):
    """Messages of a conversation: read, append, update, cut."""

    def messages(self, conversation_id: str) -> list[Message]:
        rows = self._reading(
            lambda: self._db.execute(
                f"SELECT {self.message_columns} FROM messages WHERE conversation_id = ? ORDER BY position",
                (conversation_id,),
            ).fetchall()
        )
        return [message_from_row(row) for row in rows]

    def get_message(self, message_id: int) -> Message:
        row = self._reading(
            lambda: self._db.execute(
                f"SELECT {self.message_columns} FROM messages WHERE id = ?", (message_id,)
            ).fetchone()
        )
        if row is None:
            raise MessageNotFoundError.say("There is no message {id}; it may have been deleted.", id=message_id)
        return message_from_row(row)

    def append_message(
        self,
        conversation_id: str,
        role: Role,
        content: str,
        status: MessageStatus = "complete",
        stats: dict[str, Any] | None = None,
    ) -> Message:
        """Add a message at the end; it is committed (fsynced) when this returns."""
        check_message_fields(role, status)
        content, stats = without_sources_line(content, stats)  # sources are metadata, never text (schema 3)
        now = time.time()
        with self.transaction() as db:
            if db.execute("UPDATE conversations SET updated_at = ? WHERE id = ?", (now, conversation_id)).rowcount == 0:
                raise ConversationNotFoundError.say(
                    "There is no conversation {id}; it may have been deleted.", id=repr(conversation_id)
                )
            position = db.execute(
                "SELECT COALESCE(MAX(position), -1) + 1 FROM messages WHERE conversation_id = ?", (conversation_id,)
            ).fetchone()[0]
            cursor = db.execute(
                "INSERT INTO messages (conversation_id, position, role, content, created_at, status, stats)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (conversation_id, position, role, content, now, status, dump_json(stats)),
            )
        assert cursor.lastrowid is not None
        return Message(cursor.lastrowid, conversation_id, position, role, content, now, status, stats)

    def update_message(
        self,
        message_id: int,
        *,
        content: str | None = None,
        status: MessageStatus | None = None,
        stats: dict[str, Any] | None = None,
    ) -> None:
        """Change what is given; committed when this returns.

        While the message stays "streaming" the commit skips the fsync (see the module docstring);
        the save that ends the stream (any other status) is fully durable.
        """
        check_message_fields(None, status)
        fields = {"content": content, "status": status, "stats": dump_json(stats)}
        given = {name: value for name, value in fields.items() if value is not None}
        with self._lock:
            row = self._reading(
                lambda: self._db.execute("SELECT status FROM messages WHERE id = ?", (message_id,)).fetchone()
            )
            if row is None:
                raise MessageNotFoundError.say("There is no message {id}; it may have been deleted.", id=message_id)
            if not given:
                return
            streaming = (status or row[0]) == "streaming"
            with self.transaction(durable=not streaming) as db:
                db.execute(
                    f"UPDATE messages SET {', '.join(f'{name} = ?' for name in given)} WHERE id = ?",
                    (*given.values(), message_id),
                )

    def delete_messages_after(self, conversation_id: str, position: int) -> int:
        """Remove the messages after ``position`` (regenerate, edit and resend); returns how many."""
        with self.transaction() as db:
            return db.execute(
                "DELETE FROM messages WHERE conversation_id = ? AND position > ?", (conversation_id, position)
            ).rowcount
