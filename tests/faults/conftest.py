"""The fault suite's fixtures: a data folder on a small real disk where root allows, injected faults elsewhere."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from localmind.core.store import ConversationStore
from tests.faults import helpers
from tests.helpers.app_window import Launch, launch_fixture

_CODES = {
    "full": (13, "SQLITE_FULL", "database or disk is full"),
    "read-only": (8, "SQLITE_READONLY", "attempt to write a readonly database"),
}


COMMIT_BYTES = 10_000


class FaultyConnection:
    """A real sqlite3 connection whose commits fail as SQLite's would on a full or read-only disk.

    The store's boundary is its connection: everything above (store, session, window) runs unchanged.
    """

    def __init__(self, real: sqlite3.Connection, disk: Disk) -> None:
        self._real = real
        self._disk = disk

    def execute(self, sql: str, params: Any = ()) -> sqlite3.Cursor:
        if self._disk.fault and sql.strip().upper() == "COMMIT" and self._disk.spend():
            code, name, text = _CODES[self._disk.fault]
            self._disk.failures += 1
            exc = sqlite3.OperationalError(text)
            exc.sqlite_errorcode = code  # type: ignore[attr-defined]
            exc.sqlite_errorname = name  # type: ignore[attr-defined]
            raise exc  # the transaction stays open, as after a real failed COMMIT; the store rolls it back
        return self._real.execute(sql, params)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)


class Disk:
    """The data folder's disk: a real 2 MB tmpfs (root) or faults injected at the store's connection."""

    def __init__(self, folder: Path, real: bool) -> None:
        self.folder = folder
        self.real = real
        self.fault: str | None = None
        self.failures = 0
        self._filler: Path | None = None
        self._commits_left = 0

    def attach(self, store: ConversationStore) -> None:
        if not self.real:
            store._db = FaultyConnection(store._db, self)  # type: ignore[assignment]

    def fill(self, leave_bytes: int = 0, *, commits: int | None = None) -> None:
        """Leave about ``leave_bytes`` free; injected, ``commits`` more commits succeed (default: as many as fit)."""
        if self.real:
            self._filler = helpers.fill(self.folder, leave_bytes)
        # Injected: a commit of a message or a streaming save writes about 10 KB to the WAL here.
        self._commits_left = leave_bytes // COMMIT_BYTES if commits is None else commits
        self.fault = "full"

    def spend(self) -> bool:
        """Whether this commit fails (the room left is used up)."""
        if self._commits_left > 0:
            self._commits_left -= 1
            return False
        return True

    def free(self) -> None:
        if self._filler is not None:
            self._filler.unlink()
            self._filler = None
        self.fault = None


@pytest.fixture(params=["tmpfs", "injected"])
def disk(request: pytest.FixtureRequest, data_dir: Path) -> Iterator[Disk]:
    """The data folder on a 2 MB tmpfs that tests fill (needs root), or on the usual disk with injected faults."""
    if request.param == "tmpfs":
        if not helpers.can_mount():
            pytest.skip("mounting a tmpfs needs root on Linux; the injected variant covers this case")
        with helpers.small_disk(data_dir):
            yield Disk(data_dir, real=True)
    else:
        yield Disk(data_dir, real=False)


@pytest.fixture
def launch(qtbot: Any, tiny_model: Path) -> Iterator[Launch]:
    yield from launch_fixture(qtbot, tiny_model)


def is_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0
