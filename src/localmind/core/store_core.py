"""The connection under the conversation store: opening, checks, migrations, transactions."""

from __future__ import annotations

import contextlib
import json
import logging
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar, cast

from localmind import paths
from localmind.core.conversations import (
    MESSAGE_STATUSES,
    ROLES,
    Conversation,
    Message,
    MessageStatus,
    Role,
    without_sources_line,
)
from localmind.core.store_errors import (
    DAMAGED,
    FULL,
    NEWER,
    OTHER,
    READ_ONLY,
    StoreError,
    classify,
    explain,
)
from localmind.core.store_schema import (
    MIGRATIONS,
    SCHEMA_VERSION,
    VERSIONS_SCHEMA,
    create_search_index,
    trigram_search_available,
)

log = logging.getLogger(__name__)

# Long enough to ride out a checkpoint or an import in another process, short enough not to hang the window.
BUSY_TIMEOUT_MS = 3000
# The window's start-up runs SQLite's quick_check only when it is due (it reads the whole file: 210 ms at 12 MB):
# after an exit that did not close the database (its WAL file is left behind), or a day after the last clean check.
# Damage in between is still found by any read that touches it.
WHEN_DUE = "when_due"
QUICK_CHECK_EVERY_S = 24 * 3600
SALVAGE_CHUNK = 256  # rows per range read from a damaged file; a range that fails is read row by row

_T = TypeVar("_T")
_ANY_STREAMING = "SELECT 1 FROM messages WHERE status = 'streaming' LIMIT 1"

CONVERSATION_COLUMNS = (
    "c.id, c.title, c.created_at, c.updated_at, c.system_prompt, c.settings, c.model, c.deleted_at,"
    " (SELECT COUNT(*) FROM messages m WHERE m.conversation_id = c.id)"
)
MESSAGE_COLUMNS = (
    "id, conversation_id, position, role, content, created_at, status, stats, version,"
    " (SELECT COUNT(*) FROM message_versions v WHERE v.message_id = messages.id) + 1"
)
# The same from a file older than VERSIONS_SCHEMA, read as it is (read-only): one version per message.
_MESSAGE_COLUMNS_BEFORE_VERSIONS = "id, conversation_id, position, role, content, created_at, status, stats, 0, 1"


def conversation_from_row(row: sqlite3.Row | tuple[Any, ...]) -> Conversation:
    return Conversation(
        id=row[0],
        title=row[1],
        created_at=row[2],
        updated_at=row[3],
        system_prompt=row[4],
        settings=json.loads(row[5]),
        model=row[6],
        deleted_at=row[7],
        message_count=row[8],
    )


def message_from_row(row: tuple[Any, ...]) -> Message:
    # A file read as it is (read-only, schema < 3) may still have sources lines in its text: read without them.
    content, stats = without_sources_line(row[4], json.loads(row[7]) if row[7] is not None else None)
    return Message(
        id=row[0],
        conversation_id=row[1],
        position=row[2],
        role=cast(Role, row[3]),
        content=content,
        created_at=row[5],
        status=cast(MessageStatus, row[6]),
        stats=stats,
        version=row[8],
        versions=row[9],
    )


def dump_json(value: dict[str, Any] | None) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False, allow_nan=False)


def check_message_fields(role: str | None, status: str | None) -> None:
    if role is not None and role not in ROLES:
        raise ValueError(f"role must be one of {ROLES}, not {role!r}")
    if status is not None and status not in MESSAGE_STATUSES:
        raise ValueError(f"status must be one of {MESSAGE_STATUSES}, not {status!r}")


def _check_stamp(database: Path) -> Path:
    return database.with_name(database.name + ".checked")


def quick_check_due(database: Path, now: float | None = None) -> bool:
    """Whether opening ``database`` should run quick_check (see ``WHEN_DUE``)."""
    if not database.exists():
        return False  # a new database: nothing to check
    if Path(str(database) + "-wal").exists():
        return True  # the last connection did not close (a crash, a kill), or another program has it open
    try:
        checked, inode = _check_stamp(database).read_text(encoding="ascii").split()
        if int(inode) != database.stat().st_ino:
            return True  # another file since (a restored backup, a recovered database)
        return abs((time.time() if now is None else now) - float(checked)) >= QUICK_CHECK_EVERY_S
    except (OSError, ValueError):
        return True


class StoreCore:
    """All conversations and their messages, in ``paths.database_path()`` unless told otherwise.

    Args:
        path: the database file; created, with its folder, if missing.
        recover_interrupted: mark replies left "streaming" by an app that was killed as "stopped".
            Only the window should do this: a terminal command run while the window streams must not.
    """

    def __init__(
        self,
        path: Path | None = None,
        *,
        recover_interrupted: bool = True,
        read_only: bool = False,
        check: bool | str = False,
        busy_timeout_ms: int = BUSY_TIMEOUT_MS,
    ) -> None:
        self.path = Path(path) if path is not None else paths.database_path()
        self.read_only = read_only
        self.busy_timeout_ms = busy_timeout_ms
        self._lock = threading.RLock()
        self._depth = 0
        check = check is True or (check == WHEN_DUE and quick_check_due(self.path))  # before the WAL is opened
        self._db = self._connect()
        try:
            if check:
                self.quick_check()
            self.schema_version = self._reading(lambda: int(self._db.execute("PRAGMA user_version").fetchone()[0]))
            if read_only:
                self.has_search_index = self._table_exists("message_search")
                return
            self._migrate()
            self.schema_version = SCHEMA_VERSION
            self.has_search_index = self._table_exists("message_search")
            if not self.has_search_index and trigram_search_available(self._db):
                # Made by a Python whose SQLite lacked trigram search; this one has it.
                with self.transaction():
                    create_search_index(self._db)
                self.has_search_index = True
            if recover_interrupted and self._reading(lambda: self._db.execute(_ANY_STREAMING).fetchone()):
                # Only written when there is something to mark: a start-up must not need the write lock.
                with self.transaction():
                    self._db.execute("UPDATE messages SET status = 'stopped' WHERE status = 'streaming'")
        except BaseException:
            self._db.close()
            raise

    def _connect(self) -> sqlite3.Connection:
        try:
            if self.read_only:
                db = self._connect_read_only()
            else:
                paths.private_dir(self.path.parent)  # 0700, and the database 0600: nobody else reads chats
                paths.private_file(self.path)
                # isolation_level=None: transactions are ours (see ``transaction``), never implicit.
                db = sqlite3.connect(
                    self.path, isolation_level=None, check_same_thread=False, timeout=self.busy_timeout_ms / 1000
                )
        except (OSError, sqlite3.Error) as exc:
            error = explain(exc, self.path)
            if error.kind != OTHER:
                raise error from exc
            raise StoreError.say(
                "Cannot open the conversation database {path}: {reason}.",
                "Check that the data folder exists and is writable (or pick another with --data-dir).",
                path=self.path,
                reason=exc,
            ) from exc
        try:
            # Reading the header first tells "not a database" apart from a full or read-only disk below.
            db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
            if not self.read_only:
                mode = db.execute("PRAGMA journal_mode = WAL").fetchone()[0]
                if mode != "wal":
                    log.warning("%s: WAL mode unavailable (got %s); is it on a network drive?", self.path, mode)
                db.execute("PRAGMA synchronous = FULL")
            db.execute("PRAGMA foreign_keys = ON")
            db.execute(f"PRAGMA busy_timeout = {self.busy_timeout_ms}")
        except sqlite3.DatabaseError as exc:
            db.close()
            kind = classify(exc)
            if kind == DAMAGED:
                error = StoreError.say(
                    "{path} is not a LocalMind conversation database or is damaged ({reason}).",
                    "Do not delete it: start LocalMind's window to recover what can be read from it.",
                    path=self.path,
                    reason=exc,
                )
                error.kind = DAMAGED
                raise error from exc
            raise explain(exc, self.path) from exc
        return db

    def _connect_read_only(self) -> sqlite3.Connection:
        """mode=ro; on a full disk, where even the WAL index file cannot be made, ``immutable`` when that is safe."""
        uri = self.path.resolve().as_uri()

        def connect(query: str) -> sqlite3.Connection:
            db = sqlite3.connect(
                uri + query,
                uri=True,
                isolation_level=None,
                check_same_thread=False,
                timeout=self.busy_timeout_ms / 1000,
            )
            db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
            return db

        try:
            return connect("?mode=ro")
        except sqlite3.OperationalError as exc:
            wal = Path(str(self.path) + "-wal")
            # immutable skips locks and the WAL: right only when no WAL holds changes not yet in the file.
            if classify(exc) not in (FULL, READ_ONLY, OTHER) or (wal.exists() and wal.stat().st_size > 0):
                raise
            log.warning("%s: opening as immutable (%s)", self.path, exc)
            return connect("?mode=ro&immutable=1")

    def quick_check(self) -> None:
        """SQLite's quick_check over the whole file; StoreError(kind=DAMAGED) with what it found."""
        try:
            rows = self._db.execute("PRAGMA quick_check(20)").fetchall()
        except sqlite3.DatabaseError as exc:
            raise explain(exc, self.path) from exc
        problems = [str(r[0]) for r in rows if r[0] != "ok"]
        if problems:
            with contextlib.suppress(OSError):
                _check_stamp(self.path).unlink()
            error = StoreError.say(
                "Part of the conversation database {path} is damaged ({reason}).",
                "Do not delete it: LocalMind can recover everything readable into a new database.",
                path=self.path,
                reason=problems[0],
            )
            error.kind = DAMAGED
            raise error
        with contextlib.suppress(OSError):  # only a hint for the next start: a read-only folder just checks again
            _check_stamp(self.path).write_text(f"{time.time():.0f} {self.path.stat().st_ino}\n", encoding="ascii")

    def _reading(self, read: Callable[[], _T]) -> _T:
        """Run a read; a damaged page or a lock becomes a StoreError that says which (never a bare DatabaseError)."""
        with self._lock:
            try:
                return read()
            except sqlite3.DatabaseError as exc:
                if isinstance(exc, sqlite3.IntegrityError):
                    raise
                raise explain(exc, self.path) from exc

    def file_replaced(self) -> None:
        """The database under this connection was replaced (a backup restored over it): bring it up to date as an
        open does, so a backup from an older schema reads like any database."""
        if not self.read_only:
            self._migrate()
        self.schema_version = self._reading(lambda: int(self._db.execute("PRAGMA user_version").fetchone()[0]))
        self.has_search_index = self._table_exists("message_search")

    @property
    def message_columns(self) -> str:
        """The columns ``message_from_row`` reads, for this file's schema (an old one read as it is has fewer)."""
        return MESSAGE_COLUMNS if self.schema_version >= VERSIONS_SCHEMA else _MESSAGE_COLUMNS_BEFORE_VERSIONS

    def _table_exists(self, name: str) -> bool:
        return self._db.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (name,)).fetchone() is not None

    def _migrate(self) -> None:
        version = self._reading(lambda: int(self._db.execute("PRAGMA user_version").fetchone()[0]))
        if version == SCHEMA_VERSION:
            return  # the usual start: no write lock needed, so a busy database still opens
        while True:
            # The version is read inside the write transaction: two processes starting at once must not
            # both run the same step.
            with self.transaction():
                version = int(self._db.execute("PRAGMA user_version").fetchone()[0])
                if version > SCHEMA_VERSION:
                    error = StoreError.say(
                        "{path} was written by a newer LocalMind (schema {version}; this one knows {known}).",
                        "Update LocalMind to open these conversations.",
                        path=self.path,
                        version=version,
                        known=SCHEMA_VERSION,
                    )
                    error.kind = NEWER
                    raise error
                if version == SCHEMA_VERSION:
                    return
                log.info("Migrating %s from schema %d to %d", self.path, version, version + 1)
                MIGRATIONS[version](self._db)
                self._db.execute(f"PRAGMA user_version = {version + 1}")

    @contextmanager
    def transaction(self, *, durable: bool = True) -> Iterator[sqlite3.Connection]:
        """Run a block as one transaction: all of it is committed, or none. Nested blocks use savepoints.

        ``durable=False`` skips the fsync at commit (see the module docstring); only streaming saves use it.
        """
        with self._lock:
            if self._depth:
                name = f"nested_{self._depth}"
                self._db.execute(f"SAVEPOINT {name}")
                self._depth += 1
                try:
                    yield self._db
                except BaseException:
                    self._db.execute(f"ROLLBACK TO {name}")
                    raise
                finally:
                    self._depth -= 1
                    self._db.execute(f"RELEASE {name}")
                return
            if not durable:
                self._db.execute("PRAGMA synchronous = NORMAL")
            try:
                self._begin()
                self._depth = 1
                try:
                    yield self._db
                    self._db.execute("COMMIT")
                except BaseException:
                    if self._db.in_transaction:
                        self._db.execute("ROLLBACK")
                    raise
                finally:
                    self._depth = 0
            except sqlite3.DatabaseError as exc:
                # Integrity errors are bugs; every other failure to write (full, read-only, I/O, locked,
                # damaged) reaches the user as a StoreError that says which.
                if isinstance(exc, sqlite3.IntegrityError) or type(exc) is sqlite3.ProgrammingError:
                    raise
                raise explain(exc, self.path) from exc
            finally:
                if not durable:
                    with contextlib.suppress(sqlite3.Error):
                        self._db.execute("PRAGMA synchronous = FULL")

    def _begin(self) -> None:
        if self.read_only:
            error = StoreError.say(
                "The conversation database {path} is open read-only.",
                "You can read, search and export; nothing new can be saved until it can be written again.",
                path=self.path,
            )
            error.kind = READ_ONLY
            raise error
        # IMMEDIATE takes the write lock up front, so a busy database waits (busy_timeout) at BEGIN
        # instead of failing halfway through the block.
        self._db.execute("BEGIN IMMEDIATE")

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __exit__(self, *exc: object) -> None:
        self.close()


def readable_rows(
    db: sqlite3.Connection, table: str, key: str, columns: str, skipped: list[int]
) -> Iterator[tuple[Any, ...]]:
    """Every readable row of ``table`` in key order; an unreadable range is read one key at a time."""
    try:
        high = int(db.execute(f"SELECT MAX({key}) FROM {table}").fetchone()[0] or 0)
    except sqlite3.OperationalError as exc:
        if "no such" in str(exc):
            return  # the table is gone from the schema: nothing of it can be read row by row
        high = 0
    except sqlite3.DatabaseError:
        high = 0
    with contextlib.suppress(sqlite3.DatabaseError):
        row = db.execute("SELECT seq FROM sqlite_sequence WHERE name = ?", (table,)).fetchone()
        high = max(high, int(row[0]) if row else 0)
    if high == 0:
        high = 100_000  # the top of the tree is unreadable: look as far as a large history would reach
    sql = f"SELECT {key}, {columns} FROM {table} WHERE {key} BETWEEN ? AND ? ORDER BY {key}"
    for start in range(0, high + 1, SALVAGE_CHUNK):
        try:
            chunk = db.execute(sql, (start, start + SALVAGE_CHUNK - 1)).fetchall()
        except sqlite3.DatabaseError:
            chunk = []
            for k in range(start, start + SALVAGE_CHUNK):
                try:
                    chunk += db.execute(sql, (k, k)).fetchall()
                except sqlite3.DatabaseError:
                    skipped.append(k)
        yield from chunk
