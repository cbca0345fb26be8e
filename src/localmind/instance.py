"""One window per data folder: a lock file in the folder, held while the window is open.

A second window on the same folder would do harm at once: opening the conversation store marks every
reply still "streaming" as interrupted (the recovery after a crash), and one of those is the reply the
first window is writing at that moment. So ``localmind`` takes this lock before it opens anything, and
a second start only says that LocalMind is already running. Terminal commands (export, import, models)
take no lock: they never recover replies and keep working while the window is open.

QtCore only (QLockFile): it runs before the QApplication exists, so a second start on a machine
without a display can say so on stderr.
"""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtCore import QLockFile

log = logging.getLogger(__name__)

LOCK_NAME = "localmind.lock"


class InstanceLock:
    """The data folder's window lock."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / LOCK_NAME
        self._file = QLockFile(str(self.path))
        # No age limit: a window stays open for days. A lock left by a process that is gone (a crash,
        # kill -9, a reboot) is still recognised as stale from the process id and boot id it records.
        self._file.setStaleLockTime(0)

    def acquire(self) -> bool:
        """Take the lock; False only when another running LocalMind holds it.

        Where no lock can be made at all (a read-only folder) the window still starts: the store then
        explains what is wrong with the folder, which helps more than a lock message would.
        """
        if self._file.tryLock(0):
            return True
        if self._file.error() == QLockFile.LockError.LockFailedError:
            return False
        log.warning("Could not create %s (%s); starting without the single-window guard", self.path, self._file.error())
        return True

    def holder(self) -> int | None:
        """The process id of the LocalMind that holds the lock, if it can be read."""
        info = self._file.getLockInfo()
        pid = info[0] if isinstance(info, tuple) and info else None
        return pid if isinstance(pid, int) and pid > 0 else None

    def release(self) -> None:
        self._file.unlock()
