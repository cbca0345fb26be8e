"""Opening LocalMind's SQLite files for reading only (export, search, a read-only data folder).

A database in WAL mode normally needs its ``-shm`` file, which SQLite creates next to it: in a folder that cannot be
written (a read-only mount, a backup disk, another user's folder) even a ``mode=ro`` open fails when that file is
not there. Then, and only when no WAL file holds changes that are not in the database yet, ``immutable=1`` reads
the file as it is, without locks; that is right for a folder nobody can write to.
"""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

log = logging.getLogger(__name__)


def connect_read_only(path: Path, timeout_s: float = 5.0, *, retry_immutable: bool = True) -> sqlite3.Connection:
    """A connection that can only read ``path`` (``mode=ro``); it never creates the file or writes to its folder.

    Raises sqlite3.Error when the file cannot be read (missing, not a database, locked, or unreadable).
    """
    uri = Path(path).resolve().as_uri()

    def connect(query: str) -> sqlite3.Connection:
        db = sqlite3.connect(uri + query, uri=True, isolation_level=None, check_same_thread=False, timeout=timeout_s)
        try:
            db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()  # the header is read here, not at connect
        except BaseException:
            db.close()
            raise
        return db

    try:
        return connect("?mode=ro")
    except sqlite3.OperationalError as exc:
        wal = Path(f"{path}-wal")
        unsaved = wal.exists() and wal.stat().st_size > 0
        if not retry_immutable or unsaved or not Path(path).is_file():
            raise
        log.warning("%s: reading it as immutable (%s)", path, exc)
        return connect("?mode=ro&immutable=1")
