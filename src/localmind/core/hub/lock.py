"""One download per model at a time, across processes (a window and a terminal).

The OS releases the lock when the process dies, so a killed download never
leaves a stale lock behind.
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path
from types import TracebackType
from typing import IO

from localmind.core.hub.errors import HubError


class DownloadLock:
    def __init__(self, path: Path, what: str) -> None:
        self.path = path
        self.what = what
        self._handle: IO[bytes] | None = None

    def __enter__(self) -> DownloadLock:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle = self.path.open("a+b")
        try:
            if sys.platform == "win32":
                import msvcrt

                handle.seek(0)
                msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)
            else:
                import fcntl

                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            handle.close()
            raise HubError.say(
                "{what} is already being downloaded by another LocalMind window or command.",
                "Wait for it to finish, or stop it there first.",
                what=self.what,
            ) from exc
        self._handle = handle
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        handle, self._handle = self._handle, None
        if handle is None:
            return
        if sys.platform == "win32":
            import msvcrt

            handle.seek(0)
            with contextlib.suppress(OSError):  # closing the handle releases it anyway
                msvcrt.locking(handle.fileno(), msvcrt.LK_UNLCK, 1)
        # The empty lock file stays: deleting it would let two processes lock two different files of the same name.
        handle.close()
