"""Where conversations live: one SQLite file in the data folder.

Durability is the point of this module. The database runs in WAL mode, every
change is its own committed transaction before the method returns, and a
``kill -9`` at any moment leaves the file intact (SQLite's journal guarantees
it); opening it again turns a reply that was being streamed into a "stopped"
one and keeps its text.

``synchronous=FULL`` is the default, so a committed user message survives even
a power cut. The one exception is the periodic save of a reply that is still
streaming: that write uses ``NORMAL``, which in WAL mode still survives the app
being killed (the OS has the bytes) but skips the fsync. A reply is saved about
once a second on the GUI thread, and an fsync there can cost tens of
milliseconds on a slow disk; the next durable commit (the reply finishing, or
the next message) fsyncs those frames too.

The store is meant for the GUI thread: every call is a few indexed statements.
A lock makes it safe to call from another thread too, one call at a time.
"""

from __future__ import annotations

import contextlib
import errno
import json
import logging
import os
import re
import sqlite3
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar, cast

from localmind import paths
from localmind.core.conversations import (
    MESSAGE_STATUSES,
    ROLES,
    Conversation,
    ImportResult,
    Message,
    MessageStatus,
    Role,
    SearchHit,
)
from localmind.errors import UserFacingError

log = logging.getLogger(__name__)

# Long enough to ride out a checkpoint or an import in another process, short enough not to hang the window.
BUSY_TIMEOUT_MS = 3000
# Trigram search cannot match fewer than three characters; shorter terms (common in Chinese: 你好) use LIKE.
TRIGRAM_MIN_CHARS = 3
SNIPPET_BEFORE = 40
SNIPPET_LENGTH = 160
# The window's start-up runs SQLite's quick_check only when it is due (it reads the whole file: 210 ms at 12 MB):
# after an exit that did not close the database (its WAL file is left behind), or a day after the last clean check.
# Damage in between is still found by any read that touches it.
WHEN_DUE = "when_due"
QUICK_CHECK_EVERY_S = 24 * 3600
LOW_SPACE_BYTES = 64 * 1024  # less than this free and SQLite cannot even create its WAL index
SALVAGE_CHUNK = 256  # rows per range read from a damaged file; a range that fails is read row by row
_UUID_HEX = re.compile(r"[0-9a-f]{32}")
_RENUMBER_OFFSET = 1 << 40  # moves positions out of the way while they are renumbered (they are unique per chat)


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


def _create_search_index(db: sqlite3.Connection) -> None:
    if not trigram_search_available(db):
        log.warning("SQLite %s has no FTS5 trigram tokenizer; search falls back to slower LIKE", sqlite3.sqlite_version)
        return
    fresh = db.execute("SELECT 1 FROM sqlite_master WHERE name = 'message_search'").fetchone() is None
    for statement in _SEARCH_INDEX:
        db.execute(statement)
    if fresh:
        db.execute("INSERT INTO message_search (message_search) VALUES ('rebuild')")
        db.execute("INSERT INTO title_search (title_search) VALUES ('rebuild')")


# Step n takes a database at user_version n to n + 1. Never edit a released step: add a new one.
MIGRATIONS: list[Callable[[sqlite3.Connection], None]] = [
    _create_tables,  # -> 1: the first release
    _create_search_index,  # -> 2: full-text search over titles and messages
]
SCHEMA_VERSION = len(MIGRATIONS)


# --- the store --------------------------------------------------------------------------------------

_T = TypeVar("_T")
_ANY_STREAMING = "SELECT 1 FROM messages WHERE status = 'streaming' LIMIT 1"

_CONVERSATION_COLUMNS = (
    "c.id, c.title, c.created_at, c.updated_at, c.system_prompt, c.settings, c.model, c.deleted_at,"
    " (SELECT COUNT(*) FROM messages m WHERE m.conversation_id = c.id)"
)
_MESSAGE_COLUMNS = "id, conversation_id, position, role, content, created_at, status, stats"


def _conversation(row: sqlite3.Row | tuple[Any, ...]) -> Conversation:
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


def _message(row: tuple[Any, ...]) -> Message:
    return Message(
        id=row[0],
        conversation_id=row[1],
        position=row[2],
        role=cast(Role, row[3]),
        content=row[4],
        created_at=row[5],
        status=cast(MessageStatus, row[6]),
        stats=json.loads(row[7]) if row[7] is not None else None,
    )


def _dump(value: dict[str, Any] | None) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False, allow_nan=False)


def _check_message_fields(role: str | None, status: str | None) -> None:
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


class ConversationStore:
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
            if read_only:
                self.has_search_index = self._table_exists("message_search")
                return
            self._migrate()
            self.has_search_index = self._table_exists("message_search")
            if not self.has_search_index and trigram_search_available(self._db):
                # Made by a Python whose SQLite lacked trigram search; this one has it.
                with self.transaction():
                    _create_search_index(self._db)
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
                self.path.parent.mkdir(parents=True, exist_ok=True)
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

    def __enter__(self) -> ConversationStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- conversations ----------------------------------------------------------------------------

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
            (c.id, c.title, c.created_at, c.updated_at, c.system_prompt, _dump(c.settings), c.model, c.deleted_at),
        )

    def list_conversations(self, include_deleted: bool = False) -> list[Conversation]:
        """Newest activity first."""
        where = "" if include_deleted else "WHERE c.deleted_at IS NULL"
        rows = self._reading(
            lambda: self._db.execute(
                f"SELECT {_CONVERSATION_COLUMNS} FROM conversations c {where} ORDER BY c.updated_at DESC, c.num DESC"
            ).fetchall()
        )
        return [_conversation(row) for row in rows]

    def get_conversation(self, id: str) -> Conversation:
        """The conversation, in the trash or not; :class:`ConversationNotFoundError` if there is none."""
        row = self._reading(
            lambda: self._db.execute(
                f"SELECT {_CONVERSATION_COLUMNS} FROM conversations c WHERE c.id = ?", (id,)
            ).fetchone()
        )
        if row is None:
            raise ConversationNotFoundError.say("There is no conversation {id}; it may have been deleted.", id=repr(id))
        return _conversation(row)

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
        fields = {"system_prompt": system_prompt, "settings": _dump(settings), "model": model}
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

    # --- messages ---------------------------------------------------------------------------------

    def messages(self, conversation_id: str) -> list[Message]:
        rows = self._reading(
            lambda: self._db.execute(
                f"SELECT {_MESSAGE_COLUMNS} FROM messages WHERE conversation_id = ? ORDER BY position",
                (conversation_id,),
            ).fetchall()
        )
        return [_message(row) for row in rows]

    def get_message(self, message_id: int) -> Message:
        row = self._reading(
            lambda: self._db.execute(f"SELECT {_MESSAGE_COLUMNS} FROM messages WHERE id = ?", (message_id,)).fetchone()
        )
        if row is None:
            raise MessageNotFoundError.say("There is no message {id}; it may have been deleted.", id=message_id)
        return _message(row)

    def append_message(
        self,
        conversation_id: str,
        role: Role,
        content: str,
        status: MessageStatus = "complete",
        stats: dict[str, Any] | None = None,
    ) -> Message:
        """Add a message at the end; it is committed (fsynced) when this returns."""
        _check_message_fields(role, status)
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
                (conversation_id, position, role, content, now, status, _dump(stats)),
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
        _check_message_fields(None, status)
        fields = {"content": content, "status": status, "stats": _dump(stats)}
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
                for position in fill_in:
                    m = messages[position]
                    _check_message_fields(m.role, m.status)
                    db.execute(
                        "INSERT INTO messages (conversation_id, position, role, content, created_at, status, stats)"
                        " VALUES (?, ?, ?, ?, ?, ?, ?)",
                        (
                            wanted,
                            position,
                            m.role,
                            m.content,
                            m.created_at,
                            "stopped" if m.status == "streaming" else m.status,
                            _dump(m.stats),
                        ),
                    )
                bucket.append(self.get_conversation(wanted))
        return result

    def readable_conversation_rows(self) -> list[tuple[str, str, float | None]]:
        """(id, title, deleted_at) of every conversation row that can still be read from a damaged file."""
        with self._lock:
            rows = readable_rows(self._db, "conversations", "num", "id, title, deleted_at", [])
            return [(row[1], row[2], row[3]) for row in rows]

    # --- search -----------------------------------------------------------------------------------

    def search(self, query: str, limit: int = 50) -> list[SearchHit]:
        """Titles and message text containing every word of ``query`` (any case), best first.

        Titles come first: a conversation named after what you look for is the likeliest target.
        Conversations in the trash are left out.
        """
        terms = query.split()
        if not terms or limit <= 0:
            return []

        def run() -> list[SearchHit]:
            hits = self._search_titles(terms, limit)
            return hits + self._search_messages(terms, limit - len(hits))

        return self._reading(run)

    def _split_terms(self, terms: list[str]) -> tuple[str | None, list[str]]:
        """An FTS5 expression for the terms trigrams can find, and LIKE patterns for the rest."""
        if not self.has_search_index:
            return None, [_like_pattern(t) for t in terms]
        long_terms = [t for t in terms if len(t) >= TRIGRAM_MIN_CHARS]
        match = " AND ".join('"' + t.replace('"', '""') + '"' for t in long_terms) or None
        return match, [_like_pattern(t) for t in terms if len(t) < TRIGRAM_MIN_CHARS]

    def _search_titles(self, terms: list[str], limit: int) -> list[SearchHit]:
        match, likes = self._split_terms(terms)
        where = ["c.deleted_at IS NULL", *(["c.title LIKE ? ESCAPE '\\'"] * len(likes))]
        if match is not None:
            sql = (
                "SELECT c.id, c.title, bm25(title_search) FROM title_search s JOIN conversations c ON c.num = s.rowid"
                f" WHERE title_search MATCH ? AND {' AND '.join(where)} ORDER BY bm25(title_search) LIMIT ?"
            )
            rows = self._db.execute(sql, (match, *likes, limit)).fetchall()
        else:
            sql = f"SELECT c.id, c.title, 0.0 FROM conversations c WHERE {' AND '.join(where)} ORDER BY c.updated_at DESC LIMIT ?"
            rows = self._db.execute(sql, (*likes, limit)).fetchall()
        return [_hit(id, title, None, title, rank, terms) for id, title, rank in rows]

    def _search_messages(self, terms: list[str], limit: int) -> list[SearchHit]:
        if limit <= 0:
            return []
        match, likes = self._split_terms(terms)
        where = ["c.deleted_at IS NULL", *(["m.content LIKE ? ESCAPE '\\'"] * len(likes))]
        if match is not None:
            sql = (
                "SELECT c.id, c.title, m.id, m.content, s.rank FROM message_search s"
                " JOIN messages m ON m.id = s.rowid JOIN conversations c ON c.id = m.conversation_id"
                f" WHERE message_search MATCH ? AND {' AND '.join(where)} ORDER BY s.rank LIMIT ?"
            )
            rows = self._db.execute(sql, (match, *likes, limit)).fetchall()
        else:
            sql = (
                "SELECT c.id, c.title, m.id, m.content, 0.0 FROM messages m JOIN conversations c ON c.id = m.conversation_id"
                f" WHERE {' AND '.join(where)} ORDER BY m.id DESC LIMIT ?"
            )
            rows = self._db.execute(sql, (*likes, limit)).fetchall()
        return [_hit(cid, title, mid, content, rank, terms) for cid, title, mid, content, rank in rows]


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


def _like_pattern(term: str) -> str:
    escaped = term.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def _hit(
    conversation_id: str, title: str, message_id: int | None, text: str, rank: float, terms: list[str]
) -> SearchHit:
    snippet, spans = make_snippet(text, terms)
    return SearchHit(conversation_id, title, message_id, snippet, float(rank), spans)


def make_snippet(text: str, terms: Sequence[str]) -> tuple[str, tuple[tuple[int, int], ...]]:
    """One line of ``text`` around the first match of any term, and where the terms are in it."""
    pattern = re.compile("|".join(re.escape(t) for t in sorted(terms, key=len, reverse=True)), re.IGNORECASE)
    first = pattern.search(text)
    start = max(0, first.start() - SNIPPET_BEFORE) if first else 0
    end = start + SNIPPET_LENGTH
    snippet = " ".join(text[start:end].split())
    if start > 0:
        snippet = "…" + snippet
    if end < len(text):
        snippet += "…"
    return snippet, tuple(m.span() for m in pattern.finditer(snippet))
