"""The document index: one SQLite database in the data folder holding files, passages, keyword index and vectors.

Every file is indexed in one transaction — its passages, their keyword entries and (with an embedding model) their
vectors appear together or not at all — so a kill at any moment leaves whole files only. Files waiting to be indexed
are recorded as ``pending`` first, and ``pending_files()`` lists them again after a restart: indexing resumes.
Re-adding a file reads it again only when its size or modification time changed, and re-indexes it only when its
content hash changed too.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from localmind.documents.chunking import TokenCounter, approximate_tokens, chunk_pages, search_text
from localmind.documents.extract import Cancelled as Cancelled  # raised by index_files: callers catch it here
from localmind.documents.extract import ExtractionError, extract, is_supported
from localmind.errors import UserFacingError
from localmind.paths import private_dir, private_file
from localmind.sqlite_files import connect_read_only

log = logging.getLogger(__name__)

DEFAULT_COLLECTION = "default"
SCHEMA_VERSION = 2  # 2: the keyword index holds search_text() (words and CJK bigrams), written by this module
FTS_TOKENIZER = "porter unicode61 remove_diacritics 2"  # word stems ("gauges" finds "gauge"), accents folded

_SCHEMA = [
    """CREATE TABLE files (
        id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, collection TEXT NOT NULL,
        size INTEGER NOT NULL DEFAULT 0, mtime REAL NOT NULL DEFAULT 0, sha256 TEXT NOT NULL DEFAULT '',
        state TEXT NOT NULL DEFAULT 'pending', error TEXT NOT NULL DEFAULT '', error_kind TEXT NOT NULL DEFAULT '',
        pages INTEGER NOT NULL DEFAULT 0, chunks INTEGER NOT NULL DEFAULT 0, indexed_at REAL NOT NULL DEFAULT 0)""",
    "CREATE INDEX files_collection ON files (collection)",
    """CREATE TABLE chunks (
        id INTEGER PRIMARY KEY, file_id INTEGER NOT NULL REFERENCES files (id) ON DELETE CASCADE,
        ord INTEGER NOT NULL, page INTEGER, text TEXT NOT NULL, tokens INTEGER NOT NULL)""",
    "CREATE INDEX chunks_file ON chunks (file_id)",
    """CREATE TABLE vectors (
        chunk_id INTEGER PRIMARY KEY REFERENCES chunks (id) ON DELETE CASCADE,
        model TEXT NOT NULL, vector BLOB NOT NULL)""",
    "CREATE TABLE folders (path TEXT PRIMARY KEY, collection TEXT NOT NULL)",
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL)",
    "INSERT INTO meta VALUES ('generation', 0)",
]


class DocumentIndexError(UserFacingError):
    """The document index could not be opened or written."""


def _storage_error(path: Path, exc: BaseException) -> DocumentIndexError:
    """One clear sentence for what SQLite or the disk said while writing the index."""
    reason = str(exc).lower()
    if "locked" in reason or "busy" in reason:
        return DocumentIndexError.say(
            "The document index is in use by another program (another LocalMind?) and could not be written.",
            "Wait for it to finish or close it, then try again.",
        )
    if "full" in reason or getattr(exc, "errno", None) == errno.ENOSPC:
        return DocumentIndexError.say(
            "The disk holding the document index ({path}) is full; nothing more could be indexed.",
            "Free some space on that disk, then add the documents again: what was indexed before is kept.",
            path=path.parent,
        )
    if "readonly" in reason or "read-only" in reason or getattr(exc, "errno", None) in (errno.EACCES, errno.EROFS):
        return DocumentIndexError.say(
            "The document index at {path} cannot be written (the folder or file is read-only).",
            "Make the data folder writable, then try again.",
            path=path,
        )
    return DocumentIndexError.say(
        "The document index at {path} could not be written ({reason}).",
        "Try again; if it persists, check the disk for errors.",
        path=path,
        reason=exc,
    )


@dataclass(frozen=True)
class FileRecord:
    path: str
    collection: str
    state: str  # "pending", "indexed", "failed"; "changed" is computed by ``stale()``
    error: str
    error_kind: str  # ExtractionError.kind: "no_text", "empty", "damaged", "password", "unsupported", "unreadable"
    pages: int
    chunks: int
    indexed_at: float

    @property
    def name(self) -> str:
        return Path(self.path).name


@dataclass
class AddResult:
    added_files: int = 0
    updated_files: int = 0
    added_chunks: int = 0
    removed_chunks: int = 0
    unchanged_files: int = 0
    failed: list[tuple[str, str]] | None = None  # (path, why)

    def as_json(self) -> dict[str, int]:
        return {
            "added_files": self.added_files,
            "updated_files": self.updated_files,
            "added_chunks": self.added_chunks,
            "removed_chunks": self.removed_chunks,
        }


Embed = Callable[[list[str]], "list[bytes]"]  # passages → float32 vectors as bytes


def file_digest(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _resolve(raw: Path) -> Path:
    try:
        return raw.expanduser().resolve()
    except (OSError, RuntimeError) as exc:  # RuntimeError: "Symlink loop" (Python < 3.13)
        raise UserFacingError.say(
            "{path} cannot be opened: it is a link that leads back to itself (a symbolic link loop).",
            "Add the file or folder the link was meant to point to.",
            path=raw,
        ) from exc


def has_text_name(path: Path) -> bool:
    """The path is valid text (UTF-8): what the index stores and the window shows."""
    try:
        str(path).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def shown_name(path: Path) -> str:
    """A path that may hold bytes that are not UTF-8, printable (those bytes as "\ufffd")."""
    return os.fsencode(path).decode("utf-8", errors="replace")


def expand(paths: Iterable[Path]) -> Iterator[Path]:
    """Supported files under ``paths`` (folders walked, hidden entries skipped), each once, in a stable order."""
    seen: set[Path] = set()
    for raw in paths:
        path = _resolve(raw)
        if path.is_dir():
            for root, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                for name in sorted(files):
                    candidate = Path(root) / name
                    # Regular files only: reading a named pipe (or a device) waits for a writer forever.
                    if (
                        not name.startswith(".")
                        and is_supported(candidate)
                        and candidate not in seen
                        and candidate.is_file()
                    ):
                        seen.add(candidate)
                        yield candidate
        elif path.is_file():
            if path not in seen:
                seen.add(path)
                yield path
        elif path.exists():
            raise UserFacingError.say(
                "{path} is not a file LocalMind can read (a named pipe, a device or a socket).",
                "Add documents saved as files: PDF, Word, Markdown, HTML or text.",
                path=raw,
            )
        else:
            raise UserFacingError.say("Not found: {path}.", "Check the path and try again.", path=raw)


class DocumentIndex:
    """The index database. Safe to use from one thread at a time per instance; open one per thread."""

    def __init__(self, path: Path, *, read_only: bool = False) -> None:
        """``read_only``: search and list without writing anything (a read-only data folder works; see sqlite_files)."""
        self.path = path
        self.read_only = read_only
        try:
            if read_only:
                self.db = connect_read_only(path, timeout_s=10)
                if self.db.execute("PRAGMA user_version").fetchone()[0] < SCHEMA_VERSION:
                    raise sqlite3.DatabaseError("made by an older LocalMind; open it once where it can be written")
            else:
                private_file(private_dir(path.parent) / path.name)  # 0700 folder, 0600 file: documents are private
                self.db = sqlite3.connect(path, timeout=10, isolation_level=None, check_same_thread=False)
                self.db.execute("PRAGMA journal_mode = WAL")
                self.db.execute("PRAGMA synchronous = NORMAL")
                self.db.execute("PRAGMA foreign_keys = ON")
                self._migrate()
        except sqlite3.DatabaseError as exc:
            raise _open_error(path, exc, read_only) from exc
        self.lock = threading.RLock()
        self.skipped: list[tuple[str, str]] = []  # (name, why) of files ``enqueue`` could not record

    def _migrate(self) -> None:
        version = self.db.execute("PRAGMA user_version").fetchone()[0]
        if version >= SCHEMA_VERSION:
            return
        with self.transaction():
            if version < 1:
                for statement in _SCHEMA:
                    self.db.execute(statement)
            else:  # 1: a trigram index kept in step by triggers; rebuilt from the passages
                self.db.execute("DROP TRIGGER IF EXISTS chunks_ai")
                self.db.execute("DROP TRIGGER IF EXISTS chunks_ad")
                self.db.execute("DROP TABLE IF EXISTS chunk_search")
            # Its own copy of search_text(): written and deleted with the passages, in the same transactions.
            self.db.execute(f"CREATE VIRTUAL TABLE chunk_search USING fts5 (text, tokenize = '{FTS_TOKENIZER}')")
            rows = self.db.execute("SELECT id, text FROM chunks").fetchall()
            self.db.executemany(
                "INSERT INTO chunk_search (rowid, text) VALUES (?, ?)", [(i, search_text(t)) for i, t in rows]
            )
            self.db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def _delete_chunks(self, file_id: int) -> int:
        self.db.execute("DELETE FROM chunk_search WHERE rowid IN (SELECT id FROM chunks WHERE file_id = ?)", (file_id,))
        return int(self.db.execute("DELETE FROM chunks WHERE file_id = ?", (file_id,)).rowcount)

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            if self.db.in_transaction:  # SQLite has already rolled back after some errors (a full disk)
                self.db.execute("ROLLBACK")
            raise
        try:
            self.db.execute("UPDATE meta SET value = value + 1 WHERE key = 'generation'")
            self.db.execute("COMMIT")
        except sqlite3.Error:  # a full disk fails the commit: leave no transaction open behind the error
            if self.db.in_transaction:
                self.db.execute("ROLLBACK")
            raise

    def generation(self) -> int:
        """Changes with every committed write: caches of vectors compare it."""
        return int(self.db.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()[0])

    def close(self) -> None:
        self.db.close()

    # -- what is in it ---------------------------------------------------------------------------------------
    def files(self, collection: str | None = None) -> list[FileRecord]:
        sql = "SELECT path, collection, state, error, error_kind, pages, chunks, indexed_at FROM files"
        rows = (
            self.db.execute(sql + " WHERE collection = ? ORDER BY path", (collection,))
            if collection
            else self.db.execute(sql + " ORDER BY collection, path")
        )
        return [FileRecord(*row) for row in rows]

    def collections(self) -> list[str]:
        return [r[0] for r in self.db.execute("SELECT DISTINCT collection FROM files ORDER BY collection")]

    def folders(self) -> list[tuple[str, str]]:
        return list(self.db.execute("SELECT path, collection FROM folders ORDER BY path"))

    def pending_files(self) -> list[tuple[Path, str]]:
        rows = self.db.execute("SELECT path, collection FROM files WHERE state = 'pending' ORDER BY id")
        return [(Path(p), c) for p, c in rows]

    def stale(self, record: FileRecord) -> bool:
        """The file changed on disk since it was indexed (or is gone)."""
        row = self.db.execute("SELECT size, mtime FROM files WHERE path = ?", (record.path,)).fetchone()
        try:
            st = Path(record.path).stat()
        except OSError:
            return True
        return row is None or (st.st_size, st.st_mtime) != (row[0], row[1])

    def chunk_count(self) -> int:
        return int(self.db.execute("SELECT count(*) FROM chunks").fetchone()[0])

    # -- changing it -----------------------------------------------------------------------------------------
    def enqueue(self, paths: Iterable[Path], collection: str = DEFAULT_COLLECTION) -> list[Path]:
        """Record files (folders expanded and remembered for watching) as waiting; returns them in order."""
        paths = list(paths)
        files = []
        for file in expand(paths):
            if has_text_name(file):
                files.append(file)
            else:
                self.skipped.append(
                    (
                        shown_name(file),
                        UserFacingError.say(
                            "{path}: the file's name is not valid text (UTF-8), so it was skipped.",
                            "Rename the file, then add it again.",
                            path=shown_name(file),
                        ).message,
                    )
                )
        with self.lock, self.transaction():
            for path in paths:
                resolved = _resolve(path)
                if resolved.is_dir() and has_text_name(resolved):
                    self.db.execute("INSERT OR REPLACE INTO folders VALUES (?, ?)", (str(resolved), collection))
            for file in files:
                self.db.execute(
                    "INSERT INTO files (path, collection) VALUES (?, ?) ON CONFLICT (path) DO UPDATE SET"
                    " state = CASE WHEN state = 'failed' THEN 'pending' ELSE state END, collection = excluded.collection",
                    (str(file), collection),
                )
        return files

    def add(
        self,
        paths: Iterable[Path],
        collection: str = DEFAULT_COLLECTION,
        *,
        count: TokenCounter = approximate_tokens,
        embed: Embed | None = None,
        model: str = "",
        progress: Callable[[int, int, Path], None] | None = None,
        cancelled: Callable[[], bool] | None = None,
    ) -> AddResult:
        """Index ``paths`` (files or folders); unchanged files cost a ``stat`` each."""
        self.skipped = []
        try:
            files = self.enqueue(paths, collection)
        except (sqlite3.OperationalError, OSError) as exc:
            raise _storage_error(self.path, exc) from exc
        result = self.index_files(files, count=count, embed=embed, model=model, progress=progress, cancelled=cancelled)
        assert result.failed is not None
        result.failed[:0] = self.skipped
        return result

    def index_files(
        self,
        files: list[Path],
        *,
        count: TokenCounter = approximate_tokens,
        embed: Embed | None = None,
        model: str = "",
        progress: Callable[[int, int, Path], None] | None = None,
        cancelled: Callable[[], bool] | None = None,
    ) -> AddResult:
        result = AddResult(failed=[])
        for done, file in enumerate(files):
            if cancelled is not None and cancelled():
                raise Cancelled
            if progress is not None:
                progress(done, len(files), file)
            try:
                self.index_file(file, result, count=count, embed=embed, model=model, cancelled=cancelled)
            except sqlite3.OperationalError as exc:
                raise _storage_error(self.path, exc) from exc
        if progress is not None and files:
            progress(len(files), len(files), files[-1])
        return result

    def index_file(
        self,
        path: Path,
        result: AddResult,
        *,
        count: TokenCounter = approximate_tokens,
        embed: Embed | None = None,
        model: str = "",
        cancelled: Callable[[], bool] | None = None,
    ) -> None:
        """Index one file; ``cancelled()`` is asked between its pages, passages and embedding batches."""
        row = self.db.execute("SELECT id, size, mtime, sha256, state, chunks FROM files WHERE path = ?", (str(path),))
        found = row.fetchone()
        if found is None:
            self.enqueue([path])
            found = self.db.execute(
                "SELECT id, size, mtime, sha256, state, chunks FROM files WHERE path = ?", (str(path),)
            ).fetchone()
        file_id, size, mtime, sha, state, old_chunks = found
        try:
            st = path.stat()
        except OSError:
            self.forget([path])
            return
        if state == "indexed" and (st.st_size, st.st_mtime) == (size, mtime):
            result.unchanged_files += 1
            return
        try:
            digest = file_digest(path)
            if state == "indexed" and digest == sha:
                with self.lock, self.transaction():  # touched, not changed: remember the new time, keep the passages
                    self.db.execute(
                        "UPDATE files SET size = ?, mtime = ? WHERE id = ?", (st.st_size, st.st_mtime, file_id)
                    )
                result.unchanged_files += 1
                return
            pages = extract(path, cancelled)
        except OSError as exc:  # the file cannot be read (while hashing it)
            self._record_failure(
                file_id,
                st,
                "",
                ExtractionError(f"{path.name}: could not read the file ({exc.strerror or exc})."),
                result,
                path,
            )
            return
        except ExtractionError as exc:
            self._record_failure(file_id, st, digest, exc, result, path)
            return
        page_count = len(pages)
        chunks = chunk_pages(pages, count, cancelled=cancelled)
        del pages
        vectors = _embed_in_batches(embed, [c.text for c in chunks], cancelled) if embed is not None else []
        with self.lock, self.transaction():
            removed = self._delete_chunks(file_id)
            for ord_, chunk in enumerate(chunks):
                cur = self.db.execute(
                    "INSERT INTO chunks (file_id, ord, page, text, tokens) VALUES (?, ?, ?, ?, ?)",
                    (file_id, ord_, chunk.page, chunk.text, chunk.tokens),
                )
                self.db.execute(
                    "INSERT INTO chunk_search (rowid, text) VALUES (?, ?)", (cur.lastrowid, search_text(chunk.text))
                )
                if vectors:
                    self.db.execute("INSERT INTO vectors VALUES (?, ?, ?)", (cur.lastrowid, model, vectors[ord_]))
            self.db.execute(
                "UPDATE files SET state = 'indexed', error = '', error_kind = '', size = ?, mtime = ?, sha256 = ?, pages = ?,"
                " chunks = ?, indexed_at = ? WHERE id = ?",
                (st.st_size, st.st_mtime, digest, page_count, len(chunks), time.time(), file_id),
            )
        if state == "indexed" or old_chunks:
            result.updated_files += 1
        else:
            result.added_files += 1
        result.added_chunks += len(chunks)
        result.removed_chunks += removed

    def _record_failure(
        self, file_id: int, st: os.stat_result, digest: str, exc: ExtractionError, result: AddResult, path: Path
    ) -> None:
        with self.lock, self.transaction():
            removed = self._delete_chunks(file_id)
            self.db.execute(
                "UPDATE files SET state = 'failed', error = ?, error_kind = ?, size = ?, mtime = ?, sha256 = ?,"
                " chunks = 0, pages = 0 WHERE id = ?",
                (str(exc), exc.kind, st.st_size, st.st_mtime, digest, file_id),
            )
        result.removed_chunks += removed
        assert result.failed is not None
        result.failed.append((str(path), str(exc)))

    def forget(self, paths: Iterable[Path]) -> tuple[int, int]:
        """Remove files — or everything under a folder — with their passages and vectors. (files, chunks)."""
        files = chunks = 0
        with self.lock, self.transaction():
            for raw in paths:
                path = str(raw.expanduser().resolve()) if raw.exists() else str(raw.expanduser().absolute())
                like = path.rstrip(os.sep) + os.sep + "%"
                ids = [
                    r[0]
                    for r in self.db.execute(
                        "SELECT id FROM files WHERE path = ? OR path LIKE ? ESCAPE '\\'", (path, _escape_like(like))
                    )
                ]
                for file_id in ids:
                    chunks += self._delete_chunks(file_id)
                    files += self.db.execute("DELETE FROM files WHERE id = ?", (file_id,)).rowcount
                self.db.execute(
                    "DELETE FROM folders WHERE path = ? OR path LIKE ? ESCAPE '\\'", (path, _escape_like(like))
                )
        return files, chunks

    def add_vectors(self, rows: list[tuple[int, bytes]], model: str) -> None:
        try:
            with self.lock, self.transaction():
                self.db.executemany(
                    "INSERT OR REPLACE INTO vectors VALUES (?, ?, ?)", [(cid, model, vec) for cid, vec in rows]
                )
        except sqlite3.OperationalError as exc:
            raise _storage_error(self.path, exc) from exc

    def chunks_without_vectors(self, model: str, limit: int = 256) -> list[tuple[int, str]]:
        return list(
            self.db.execute(
                "SELECT c.id, c.text FROM chunks c LEFT JOIN vectors v ON v.chunk_id = c.id AND v.model = ?"
                " WHERE v.chunk_id IS NULL ORDER BY c.id LIMIT ?",
                (model, limit),
            )
        )


def _open_error(path: Path, exc: sqlite3.DatabaseError, read_only: bool) -> DocumentIndexError:
    """Why the index cannot be opened, with advice that fits: deleting it is only for a damaged file."""
    text = str(exc).lower()
    if read_only and not path.exists():
        return DocumentIndexError.say(
            "No documents are indexed yet ({path} does not exist).",
            "Add some with: localmind docs add FILE_OR_FOLDER",
            path=path,
        )
    if "readonly" in text or "read-only" in text or (path.parent.is_dir() and not os.access(path.parent, os.W_OK)):
        return DocumentIndexError.say(
            "The document index at {path} cannot be written (its folder or the disk is read-only).",
            "Searching still works: localmind docs search QUERY. To add documents, make that folder writable.",
            path=path,
        )
    if "locked" in text or "busy" in text:
        return DocumentIndexError.say(
            "Another program is using the document index at {path} right now ({reason}).",
            "Wait until it finishes (for example a 'localmind docs add' in a terminal), then try again.",
            path=path,
            reason=exc,
        )
    return DocumentIndexError.say(
        "The document index at {path} could not be opened ({reason}).",
        "Close other copies of LocalMind; if it persists, delete that file and add your documents again.",
        path=path,
        reason=exc,
    )


EMBED_BATCH = 32  # passages embedded between two looks at ``cancelled()`` (well under a second on a CPU)


def _embed_in_batches(embed: Embed, texts: list[str], cancelled: Callable[[], bool] | None) -> list[bytes]:
    vectors: list[bytes] = []
    for start in range(0, len(texts), EMBED_BATCH):
        if cancelled is not None and cancelled():
            raise Cancelled
        vectors.extend(embed(texts[start : start + EMBED_BATCH]))
    return vectors


def _escape_like(pattern: str) -> str:
    head, tail = pattern[:-1], pattern[-1:]
    return head.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + tail
