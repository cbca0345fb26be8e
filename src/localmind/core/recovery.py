"""Rescue a damaged conversation database: everything readable goes into a new one, the damaged file stays beside it.

SQLite's own recovery (the ``sqlite3`` command's ``.recover``) is used where that
command is installed: it rebuilds tables from whatever pages still parse, even
when the b-tree above them is broken. Elsewhere, and if it fails, rows are copied
one range at a time straight from the damaged file, and a range that cannot be
read is tried row by row, so one bad page costs the rows on that page, not the
table.

Either way the new database is built by :class:`ConversationStore` itself (same
schema, search index rebuilt), checked, and only then put in the damaged file's
place. The damaged file is renamed, never deleted: a specialist may get more out
of it.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import sqlite3
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from localmind.core.store import ConversationStore, readable_rows

log = logging.getLogger(__name__)

RECOVER_TIMEOUT_S = 300


@dataclass
class SalvageReport:
    """What a rescue kept and what it could not.

    Attributes:
        conversations, messages: how many were saved in the new database.
        partial: titles of conversations with messages missing (a gap in their positions).
        untitled: conversations whose messages were found but whose own row (title, times) was not.
        unreadable_rows: rows that could not be read at all.
        method: "sqlite3 .recover" or "row by row".
        damaged_copy: where the damaged file now is.
    """

    conversations: int = 0
    messages: int = 0
    partial: list[str] = field(default_factory=list)
    untitled: int = 0
    unreadable_rows: int = 0
    method: str = ""
    damaged_copy: Path | None = None


def _sqlite_recover(damaged: Path, out: Path) -> bool:
    """Run ``sqlite3 damaged .recover | sqlite3 out``; False if the command is missing or fails."""
    cli = shutil.which("sqlite3")
    if cli is None:
        return False
    try:
        dump = subprocess.run(
            [cli, str(damaged), ".recover"], capture_output=True, timeout=RECOVER_TIMEOUT_S, check=False
        )
        if dump.returncode != 0 or not dump.stdout:
            # Some builds lack the page reader .recover needs (Debian's 3.40 says "no such table: sqlite_dbpage").
            log.info("sqlite3 .recover is not usable here: %s", dump.stderr.decode(errors="replace").strip())
            return False
        subprocess.run([cli, str(out)], input=dump.stdout, capture_output=True, timeout=RECOVER_TIMEOUT_S, check=False)
        db = sqlite3.connect(out)
        try:
            names = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        finally:
            db.close()
        return {"conversations", "messages"} <= names
    except (OSError, subprocess.SubprocessError) as exc:
        log.warning("sqlite3 .recover failed: %s", exc)
        return False


def _copy(source: sqlite3.Connection, target: ConversationStore, report: SalvageReport) -> None:
    skipped: list[int] = []
    known: dict[str, str] = {}
    conv_cols = "id, title, created_at, updated_at, system_prompt, settings, model, deleted_at"
    msg_cols = "conversation_id, position, role, content, created_at, status, stats"
    with target.transaction() as db:
        for row in readable_rows(source, "conversations", "num", conv_cols, skipped):
            cid = row[1]
            if not isinstance(cid, str) or cid in known:
                continue
            try:
                db.execute(
                    "INSERT INTO conversations (id, title, created_at, updated_at, system_prompt, settings, model,"
                    " deleted_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        cid,
                        str(row[2] or "Recovered chat"),
                        row[3] or 0.0,
                        row[4] or 0.0,
                        row[5] or "",
                        row[6] or "{}",
                        *row[7:9],
                    ),
                )
            except sqlite3.DatabaseError:
                continue
            known[cid] = str(row[2])
        positions: dict[str, list[int]] = {}
        for row in readable_rows(source, "messages", "id", msg_cols, skipped):
            _, cid, position, role, content, created, status, stats = row
            if not isinstance(cid, str):
                continue
            if cid not in known:
                # The chat's own row was on a lost page: keep its messages under a plain title.
                now = time.time()
                db.execute(
                    "INSERT INTO conversations (id, title, created_at, updated_at) VALUES (?, ?, ?, ?)",
                    (cid, "Recovered chat", created or now, created or now),
                )
                known[cid] = "Recovered chat"
                report.untitled += 1
            status = "stopped" if status == "streaming" else status
            try:
                db.execute(
                    "INSERT INTO messages (id, conversation_id, position, role, content, created_at, status, stats)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (row[0], cid, position, role, content, created, status, stats),
                )
            except sqlite3.DatabaseError:
                continue  # a row that came back mangled (wrong types, a clash): not a message any more
            positions.setdefault(cid, []).append(int(position))
            report.messages += 1
    report.unreadable_rows = len(skipped)
    report.conversations = len(known)
    for cid, title in known.items():
        have = sorted(positions.get(cid, []))
        if (have and have != list(range(have[-1] + 1))) or not _all_there(source, cid, set(have)):
            report.partial.append(title)


def _all_there(source: sqlite3.Connection, cid: str, saved: set[int]) -> bool:
    """Whether the damaged file lists no message of ``cid`` beyond those saved (its index may outlive the rows)."""
    try:
        # Answered from the (conversation_id, position) index alone, which may be intact when table pages are not.
        listed = {int(r[0]) for r in source.execute("SELECT position FROM messages WHERE conversation_id = ?", (cid,))}
        return listed <= saved
    except sqlite3.DatabaseError:
        try:
            source.execute("SELECT content FROM messages WHERE conversation_id = ?", (cid,)).fetchall()
        except sqlite3.DatabaseError:
            return False
        return True


def salvage(path: Path, *, use_sqlite_cli: bool = True) -> SalvageReport:
    """Copy everything readable from the damaged database at ``path`` into a new database at ``path``.

    The damaged file (and its -wal) is renamed to ``<name>.damaged-<time>``; nothing is deleted.
    """
    path = Path(path)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    fresh = path.with_name(path.name + ".recovering")
    raw = path.with_name(path.name + ".recovered-raw")
    for leftover in (fresh, raw):
        for suffix in ("", "-wal", "-shm", "-journal"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(str(leftover) + suffix)
    report = SalvageReport()
    target = ConversationStore(fresh, recover_interrupted=False)
    try:
        source_path, report.method = path, "row by row"
        if use_sqlite_cli and _sqlite_recover(path, raw):
            source_path, report.method = raw, "sqlite3 .recover"
        try:
            _copy_from(source_path, target, report)
        except sqlite3.DatabaseError:
            if source_path == path:
                raise
            report = SalvageReport(method="row by row")  # .recover gave something unusable: start again
            _copy_from(path, target, report)
        with target.transaction() as db:
            if target.has_search_index:
                db.execute("INSERT INTO message_search (message_search) VALUES ('rebuild')")
                db.execute("INSERT INTO title_search (title_search) VALUES ('rebuild')")
        target.quick_check()
        target._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        target.close()
        for suffix in ("", "-wal", "-shm"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(str(raw) + suffix)
    damaged = path.with_name(f"{path.stem}.damaged-{stamp}{path.suffix}")
    for suffix in ("-wal", "-shm", ""):  # the file last: until then the original name still holds it
        if Path(str(path) + suffix).exists():
            os.replace(str(path) + suffix, str(damaged) + suffix)
    os.replace(fresh, path)
    with contextlib.suppress(FileNotFoundError):
        os.unlink(str(fresh) + "-wal")
    with contextlib.suppress(FileNotFoundError):
        os.unlink(str(fresh) + "-shm")
    report.damaged_copy = damaged
    return report


def _copy_from(source_path: Path, target: ConversationStore, report: SalvageReport) -> None:
    source = sqlite3.connect(source_path.resolve().as_uri() + "?mode=ro", uri=True)
    try:
        _copy(source, target, report)
    finally:
        source.close()
