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

from pathlib import Path

from localmind import paths
from localmind.core.store_core import (
    BUSY_TIMEOUT_MS,
    QUICK_CHECK_EVERY_S,
    SALVAGE_CHUNK,
    WHEN_DUE,
    StoreCore,
    quick_check_due,
    readable_rows,
)
from localmind.core.store_errors import (
    BUSY,
    DAMAGED,
    FULL,
    NEWER,
    OTHER,
    READ_ONLY,
    ConversationNotFoundError,
    MessageNotFoundError,
    StoreError,
    classify,
    disk_state,
    explain,
)
from localmind.core.store_import import ImportMixin
from localmind.core.store_schema import MIGRATIONS, SCHEMA_VERSION, trigram_search_available
from localmind.core.store_search import SNIPPET_LENGTH, TRIGRAM_MIN_CHARS, SearchMixin, make_snippet

__all__ = [
    "BUSY",
    "BUSY_TIMEOUT_MS",
    "DAMAGED",
    "FULL",
    "MIGRATIONS",
    "NEWER",
    "OTHER",
    "QUICK_CHECK_EVERY_S",
    "READ_ONLY",
    "SALVAGE_CHUNK",
    "SCHEMA_VERSION",
    "SNIPPET_LENGTH",
    "TRIGRAM_MIN_CHARS",
    "WHEN_DUE",
    "ConversationNotFoundError",
    "ConversationStore",
    "MessageNotFoundError",
    "StoreCore",
    "StoreError",
    "classify",
    "disk_state",
    "explain",
    "make_snippet",
    "quick_check_due",
    "readable_rows",
    "trigram_search_available",
]


class ConversationStore(ImportMixin, SearchMixin):
    """All conversations and their messages, in ``paths.database_path()`` unless told otherwise.

    Args:
        path: the database file; created, with its folder, if missing.
        recover_interrupted: mark replies left "streaming" by an app that was killed as "stopped".
            Only the window should do this: a terminal command run while the window streams must not.
    """

    def __enter__(self) -> ConversationStore:
        return self


def open_for_reading(path: Path | None = None) -> ConversationStore:
    """A store for what only reads (``localmind export``): opened read-only (SQLite ``mode=ro``), so it works in a
    data folder that cannot be written, and never takes the write lock the window may hold.

    A database an older LocalMind wrote is brought up to date first when its folder can be written; when it cannot,
    it is read as it is (every schema since the first can be read).
    """
    path = Path(path) if path is not None else paths.database_path()
    if not path.exists():
        return ConversationStore(path, recover_interrupted=False)  # nothing to read: the usual empty database
    store = ConversationStore(path, recover_interrupted=False, read_only=True)
    if store.schema_version >= SCHEMA_VERSION:
        return store
    store.close()
    try:
        return ConversationStore(path, recover_interrupted=False)
    except StoreError as exc:
        if exc.kind not in (READ_ONLY, FULL, BUSY):
            raise
        return ConversationStore(path, recover_interrupted=False, read_only=True)
