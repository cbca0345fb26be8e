"""Answers that could not be written yet: kept in memory, retried until stored, and the user told the truth.

A full disk, a read-only disk or another program holding the database must never
cost an answer. When the final save of a reply fails, its whole text stays here;
a timer tries again every ``RETRY_MS`` (so the answer is stored within seconds of
the user freeing space), and closing the app tries once more. The banner says
what is safe, what is not and what to do, and says so again when the answer is
finally stored.

A busy database is usually a terminal command that finishes within a second:
the banner for it waits ``BUSY_GRACE_MS`` so that a short lock shows nothing.

QtCore only; the texts are translated with the context "StoreProblem".
"""

from __future__ import annotations

import logging
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication, QObject, QTimer, Signal

from localmind.core.conversations import MessageStatus
from localmind.core.store import BUSY, DAMAGED, FULL, READ_ONLY, ConversationStore, MessageNotFoundError, classify
from localmind.errors import UserFacingError

log = logging.getLogger(__name__)

RETRY_MS = 1000
BUSY_GRACE_MS = 2000


def reply_problem(kind: str, folder: Path, error: str = "") -> tuple[str, str]:
    """(title, what to do) for an answer that is not stored yet."""
    if kind == FULL:
        return (
            QCoreApplication.translate("StoreProblem", "The answer is not saved yet: the disk is full."),
            QCoreApplication.translate(
                "StoreProblem",
                "Everything saved before it is safe. This answer is kept in memory and LocalMind keeps trying to "
                "save it. Free some space on the disk that holds {folder}, and keep LocalMind open until it says "
                "the answer is saved.",
            ).format(folder=folder),
        )
    if kind == BUSY:
        return (
            QCoreApplication.translate(
                "StoreProblem", "The answer is not saved yet: another program is using your conversations."
            ),
            QCoreApplication.translate(
                "StoreProblem",
                "It is kept in memory and is saved as soon as the other program lets go (a 'localmind import' in a "
                "terminal, a backup or sync tool). Keep LocalMind open until it says the answer is saved.",
            ),
        )
    if kind == READ_ONLY:
        return (
            QCoreApplication.translate("StoreProblem", "The answer cannot be saved: your conversations are read-only."),
            QCoreApplication.translate(
                "StoreProblem",
                "It is kept in memory while LocalMind stays open; copy it (the Copy button under it) if you need "
                "it. Make {folder} writable again and LocalMind saves it.",
            ).format(folder=folder),
        )
    if kind == DAMAGED:
        return (
            QCoreApplication.translate(
                "StoreProblem", "The answer cannot be saved: the conversation database is damaged."
            ),
            QCoreApplication.translate(
                "StoreProblem",
                "Copy the answer (the Copy button under it) if you need it. Then quit and start LocalMind again: "
                "it recovers everything readable into a new database and keeps the damaged file.",
            ),
        )
    return (
        QCoreApplication.translate("StoreProblem", "The answer is not saved yet."),
        QCoreApplication.translate(
            "StoreProblem", "{error} It is kept in memory and LocalMind keeps trying to save it."
        ).format(error=error),
    )


def message_problem(kind: str, folder: Path, error: str = "") -> str:
    """What to do about a message that could not be stored (it is back in the message box)."""
    if kind == FULL:
        return QCoreApplication.translate(
            "StoreProblem",
            "The disk that holds {folder} is full, so it could not be saved; it is back in the message box. "
            "Everything saved before is safe. Free some space, then press Enter again.",
        ).format(folder=folder)
    if kind == BUSY:
        return QCoreApplication.translate(
            "StoreProblem",
            "Another program is using your conversations right now (for example a 'localmind import' in a "
            "terminal). Your message is back in the message box; press Enter again in a moment.",
        )
    if kind == READ_ONLY:
        return QCoreApplication.translate(
            "StoreProblem",
            "Your conversations are open read-only, so nothing new can be saved. Your message is back in the "
            "message box; you can still read, search and export your chats.",
        )
    if kind == DAMAGED:
        return QCoreApplication.translate(
            "StoreProblem",
            "The conversation database is damaged. Your message is back in the message box. Quit and start "
            "LocalMind again: it recovers everything readable into a new database.",
        )
    return QCoreApplication.translate("StoreProblem", "{error} Your message is back in the message box.").format(
        error=error
    )


def change_problem(kind: str, folder: Path, error: str = "") -> str:
    """Why a regenerate or an edit could not start (nothing was changed)."""
    if kind == FULL:
        return QCoreApplication.translate(
            "StoreProblem",
            "The disk that holds {folder} is full, so nothing was changed. Free some space, then try again.",
        ).format(folder=folder)
    if kind == BUSY:
        return QCoreApplication.translate(
            "StoreProblem",
            "Another program is using your conversations right now, so nothing was changed. Try again in a moment.",
        )
    if kind == READ_ONLY:
        return QCoreApplication.translate(
            "StoreProblem", "Your conversations are open read-only, so nothing can be changed."
        )
    if kind == DAMAGED:
        return QCoreApplication.translate(
            "StoreProblem",
            "The conversation database is damaged, so nothing was changed. Quit and start LocalMind again to recover it.",
        )
    return error


def open_problem(kind: str) -> str:
    """What to do about a chat that cannot be read ("" when the store's own words fit better)."""
    if kind == DAMAGED:
        return QCoreApplication.translate(
            "StoreProblem",
            "Part of your conversation database is damaged, and this chat is on the damaged part; your other "
            "chats can still be opened. Quit and start LocalMind again: it recovers everything readable into a new "
            "database and keeps the damaged file.",
        )
    return ""


@dataclass
class _Pending:
    content: str
    status: MessageStatus
    stats: dict[str, Any] | None


class ReplySaver(QObject):
    """Final saves of answers, retried until they are stored.

    Signals:
        problem(str title, str detail): some answer is not stored; shown as an error banner.
        saved(str title, str detail): every answer kept in memory is now stored.
    """

    problem = Signal(str, str)
    saved = Signal(str, str)

    def __init__(self, store: ConversationStore, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.pending: dict[int, _Pending] = {}
        self._told: str | None = None  # the kind of problem the user was told about, if any
        self._since: float | None = None
        self._timer = QTimer(self)
        self._timer.setInterval(RETRY_MS)
        self._timer.timeout.connect(self.retry)

    def save(self, message_id: int, content: str, status: MessageStatus, stats: dict[str, Any] | None) -> bool:
        """Store a finished answer now, or keep it and retry; True if it is stored."""
        self.pending[message_id] = _Pending(content, status, stats)
        return self.retry()

    def streaming_save_failed(self, exc: UserFacingError) -> None:
        """A periodic save of a reply in progress failed: the text is in memory; tell the user if it persists."""
        self._note(exc)

    def streaming_save_worked(self) -> None:
        if not self.pending and self._told is not None:
            self._all_saved()
        elif not self.pending:
            self._since = None

    def retry(self) -> bool:
        for message_id, p in list(self.pending.items()):
            try:
                self.store.update_message(message_id, content=p.content, status=p.status, stats=p.stats)
            except UserFacingError as exc:
                if isinstance(exc, MessageNotFoundError):
                    self.pending.pop(message_id)  # deleted meanwhile (the chat was deleted): nothing to keep
                    continue
                self._note(exc)
                if not self._timer.isActive():
                    self._timer.start()
                return False
            self.pending.pop(message_id)
        self._timer.stop()
        if self._told is not None:
            self._all_saved()
        self._since = None
        return True

    def _note(self, exc: UserFacingError) -> None:
        kind = classify(exc)
        now = time.monotonic()
        if self._since is None:
            # Once per episode, not once per retry (a full disk used to log every periodic save).
            log.warning("An answer is not stored yet (%s): %s", kind, exc)
            self._since = now
        if self._told == kind:
            return
        if kind == BUSY and (now - self._since) * 1000 < BUSY_GRACE_MS:
            if not self._timer.isActive():
                self._timer.start()
            return  # most locks last well under a second: say nothing unless this one does not
        self._told = kind
        self.problem.emit(*reply_problem(kind, self.store.path.parent, str(exc)))

    def _all_saved(self) -> None:
        self._told = None
        self._since = None
        self.saved.emit(
            QCoreApplication.translate("StoreProblem", "The answer is saved now."),
            QCoreApplication.translate("StoreProblem", "Nothing was lost."),
        )

    def rescue_to_file(self) -> Path | None:
        """Last resort when quitting with answers not stored: write them to a text file at home (or the temp folder)."""
        if not self.pending:
            return None
        text = "\n\n---\n\n".join(p.content for p in self.pending.values()) + "\n"
        name = f"LocalMind unsaved answers {time.strftime('%Y-%m-%d %H%M%S')}.md"
        for folder in (Path.home(), Path(tempfile.gettempdir())):
            try:
                (folder / name).write_text(text, encoding="utf-8")
            except OSError:
                continue
            log.error("Answers that could not be stored were written to %s", folder / name)
            return folder / name
        return None

    def flush(self) -> list[int]:
        """Try once more (closing); the ids of answers that still could not be stored."""
        self.retry()
        self._timer.stop()
        return list(self.pending)
