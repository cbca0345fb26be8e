"""What can go wrong with the conversation database, told apart by the advice each needs."""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import sqlite3
from pathlib import Path

from localmind.errors import UserFacingError

log = logging.getLogger(__name__)


LOW_SPACE_BYTES = 64 * 1024  # less than this free and SQLite cannot even create its WAL index

# What went wrong, told apart because each needs different advice (and only "damaged" means the file is at fault).
FULL, READ_ONLY, BUSY, DAMAGED, NEWER, OTHER = "full", "read-only", "busy", "damaged", "newer", "other"


class StoreError(UserFacingError):
    """The conversation database cannot be opened or written; ``kind`` says why (FULL, READ_ONLY, BUSY, ...)."""

    def __init__(self, message: str, *, hint: str | None = None, kind: str = OTHER) -> None:
        super().__init__(message, hint=hint)
        self.kind = kind


# SQLite's primary result codes (the low byte of an extended code).
_SQLITE_KINDS = {13: FULL, 8: READ_ONLY, 5: BUSY, 6: BUSY, 11: DAMAGED, 26: DAMAGED}
_ERRNO_KINDS = {errno.ENOSPC: FULL, errno.EDQUOT: FULL, errno.EROFS: READ_ONLY, errno.EACCES: READ_ONLY}


def classify(exc: BaseException) -> str:
    """FULL, READ_ONLY, BUSY, DAMAGED or OTHER for an error from SQLite or the file system."""
    if isinstance(exc, StoreError):
        return exc.kind
    if isinstance(exc, OSError):
        return _ERRNO_KINDS.get(exc.errno or 0, OTHER)
    if not isinstance(exc, sqlite3.Error):
        return OTHER
    code = getattr(exc, "sqlite_errorcode", None)
    name = str(getattr(exc, "sqlite_errorname", "") or "")
    if name == "SQLITE_IOERR_SHMSIZE":  # the shared-memory file could not grow: a full disk
        return FULL
    if isinstance(code, int) and code & 0xFF in _SQLITE_KINDS:
        return _SQLITE_KINDS[code & 0xFF]
    text = str(exc).lower()  # Pythons before 3.11 carry no error code
    for words, kind in (
        (("disk is full",), FULL),
        (("readonly", "read-only"), READ_ONLY),
        (("locked", "busy"), BUSY),
        (("malformed", "not a database", "corrupt"), DAMAGED),
    ):
        if any(w in text for w in words):
            return kind
    return OTHER


def disk_state(folder: Path) -> str:
    """READ_ONLY or FULL when the disk holding ``folder`` is so, else OTHER (SQLite's "unable to open" says neither)."""
    with contextlib.suppress(OSError, AttributeError):  # no statvfs on Windows
        st = os.statvfs(folder)
        if st.f_flag & os.ST_RDONLY:
            return READ_ONLY
        if st.f_bavail * st.f_frsize < LOW_SPACE_BYTES:
            return FULL
    if folder.is_dir() and not os.access(folder, os.W_OK):
        return READ_ONLY
    return OTHER


def explain(exc: BaseException, path: Path) -> StoreError:
    """A StoreError whose words fit what happened (English; the window words these by ``kind``)."""
    kind = classify(exc)
    if kind == OTHER:
        kind = disk_state(path.parent)
    folder = path.parent
    if kind == FULL:
        error = StoreError.say(
            "The disk holding {folder} is full, so LocalMind could not save to {file}.",
            "What was saved before is safe. Free some space on that disk, then try again.",
            folder=folder,
            file=path.name,
        )
    elif kind == READ_ONLY:
        error = StoreError.say(
            "The conversation database {path} cannot be written (the disk or the file is read-only).",
            "Your conversations are safe and can be read and exported. "
            "Check the file's permissions, or that the disk is mounted writable.",
            path=path,
        )
    elif kind == BUSY:
        error = StoreError.say(
            "Another program is using the conversation database {path} right now.",
            "Nothing was lost. Wait until it finishes (for example a 'localmind import' in a terminal), "
            "then try again.",
            path=path,
        )
    elif kind == DAMAGED:
        error = StoreError.say(
            "Part of the conversation database {path} is damaged ({reason}).",
            "Do not delete it. Start LocalMind's window to recover everything readable into a new database, "
            "or save what can be read with: localmind export --all -o chats.json",
            path=path,
            reason=exc,
        )
    else:
        error = StoreError.say("The conversation database {path} could not be used: {reason}.", path=path, reason=exc)
    error.kind = kind
    return error


class ConversationNotFoundError(UserFacingError, KeyError):
    """No conversation has this id."""


class MessageNotFoundError(UserFacingError, KeyError):
    """No message has this id."""
