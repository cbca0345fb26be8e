"""A small rolling set of backups of the conversation database, and restoring one.

The window makes one a day (the first start of the day) and one whenever
LocalMind's version changes (before a new version's migrations touch anything),
with SQLite's online backup API: a consistent copy even while the app writes.
``KEEP`` of them are kept, newest first; the copy taken before a restore is kept
apart (``KEEP_BEFORE_RESTORE``), so a restore can itself be undone.

Names say when, why and which version: ``20261201-143000-daily-v0.1.0.sqlite3``.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import sqlite3
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from localmind import __version__, paths
from localmind.core.store import SCHEMA_VERSION, ConversationStore, StoreError, explain

log = logging.getLogger(__name__)

KEEP = 5
KEEP_BEFORE_RESTORE = 2
FOLDER_NAME = "backups"
_NAME = re.compile(r"(\d{8}-\d{6})-(daily|upgrade|before-restore)-v(.+)\.sqlite3")


@dataclass(frozen=True)
class Backup:
    path: Path
    created: datetime
    reason: str  # "daily", "upgrade" or "before-restore"
    version: str

    def conversation_count(self) -> int | None:
        """How many conversations it holds (not counting the trash); None if it cannot be read."""
        try:
            db = sqlite3.connect(self.path.resolve().as_uri() + "?mode=ro", uri=True)
            try:
                return int(db.execute("SELECT COUNT(*) FROM conversations WHERE deleted_at IS NULL").fetchone()[0])
            finally:
                db.close()
        except sqlite3.Error:
            return None


Source = ConversationStore | Path  # an open store, or the database file itself (before it is opened)


def _db_path(source: Source) -> Path:
    return source.path if isinstance(source, ConversationStore) else Path(source)


def folder(source: Source) -> Path:
    return _db_path(source).parent / FOLDER_NAME


def list_backups(store: Source) -> list[Backup]:
    """Newest first."""
    found = []
    with contextlib.suppress(OSError):
        for path in folder(store).iterdir():
            match = _NAME.fullmatch(path.name)
            if match:
                created = datetime.strptime(match[1], "%Y%m%d-%H%M%S")
                found.append(Backup(path, created, match[2], match[3]))
    return sorted(found, key=lambda b: (b.created, b.path.name), reverse=True)


def due(store: Source, version: str = __version__, now: datetime | None = None) -> str | None:
    """ "upgrade" if the newest backup was made by another version, "daily" if none was made today, else None."""
    regular = [b for b in list_backups(store) if b.reason != "before-restore"]
    if not regular:
        return "daily"
    newest = regular[0]
    if newest.version != version:
        return "upgrade"
    if newest.created.date() != (now or datetime.now()).date():
        return "daily"
    return None


def make_backup(store: Source, reason: str, version: str = __version__) -> Path:
    """Copy the database with the online backup API into the backups folder; prunes old ones. StoreError on failure."""
    target_folder = folder(store)
    when = datetime.now()
    while True:  # two in the same second (a restore right after the daily one) must not overwrite each other
        name = f"{when:%Y%m%d-%H%M%S}-{reason}-v{version}.sqlite3"
        target = target_folder / name
        if not target.exists():
            break
        when += timedelta(seconds=1)
    partial = target.with_name(name + ".part")
    try:
        paths.private_dir(target_folder)  # a backup holds every conversation: as private as the database
        # A connection of its own: the copy runs in one read transaction, so it is consistent even if the app writes.
        source = sqlite3.connect(_db_path(store).resolve().as_uri() + "?mode=ro", uri=True)
        copy = sqlite3.connect(paths.private_file(partial))
        try:
            source.backup(copy)
            copy.execute("PRAGMA journal_mode = DELETE")  # one self-contained file
        finally:
            copy.close()
            source.close()
        os.replace(partial, target)
    except (OSError, sqlite3.Error) as exc:
        with contextlib.suppress(OSError):
            partial.unlink()
        raise explain(exc, target) from exc
    prune(store)
    return target


def prune(store: Source) -> None:
    backups = list_backups(store)
    regular = [b for b in backups if b.reason != "before-restore"]
    safety = [b for b in backups if b.reason == "before-restore"]
    for old in regular[KEEP:] + safety[KEEP_BEFORE_RESTORE:]:
        with contextlib.suppress(OSError):
            old.path.unlink()


def backup_if_due(store: ConversationStore, version: str = __version__) -> Path | None:
    """The start-up backup: made when :func:`due`; a failure (a full disk) is logged, never raised."""
    reason = due(store, version)
    if reason is None:
        return None
    try:
        return make_backup(store, reason, version)
    except StoreError as exc:
        log.warning("No backup was made: %s", exc)
        return None


def backup_before_upgrade(database: Path, version: str = __version__) -> Path | None:
    """Before a new version opens (and migrates) the database: a copy of it as the old version left it."""
    if not database.is_file() or (due(database, version) != "upgrade" and not _migration_pending(database)):
        return None
    try:
        return make_backup(database, "upgrade", version)
    except StoreError as exc:
        log.warning("No backup was made before the update: %s", exc)
        return None


def _migration_pending(database: Path) -> bool:
    """Whether opening the file will change its schema (a version without backups may have written it)."""
    try:
        db = sqlite3.connect(database.resolve().as_uri() + "?mode=ro", uri=True)
        try:
            return int(db.execute("PRAGMA user_version").fetchone()[0]) < SCHEMA_VERSION
        finally:
            db.close()
    except sqlite3.Error:
        return False


def restore(store: ConversationStore, backup: Path) -> Path:
    """Replace every conversation with those in ``backup``, in place; returns the copy taken just before.

    The live database is overwritten through the backup API on the store's own connection, so the open
    store stays valid. A copy of what is replaced is made first (reason "before-restore").
    """
    try:
        source = sqlite3.connect(Path(backup).resolve().as_uri() + "?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise explain(exc, Path(backup)) from exc
    try:
        check = source.execute("PRAGMA quick_check").fetchone()[0]
        if check != "ok":
            raise StoreError.say(
                "The backup {backup} is damaged ({check}).", "Choose another backup.", backup=backup, check=check
            )
        safety = make_backup(store, "before-restore")
        with store._lock:
            try:
                source.backup(store._db)
            except sqlite3.Error as exc:
                raise explain(exc, store.path) from exc
            store.file_replaced()  # a backup from before an update is migrated like any older database
    finally:
        source.close()
    return safety
