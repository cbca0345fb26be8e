"""Pause and cancel for a running download, settable from any thread."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable

from localmind.core.hub.errors import DownloadStopped

PAUSE = "pause"
CANCEL = "cancel"


class TransferControl:
    """Shared between the thread that downloads and the one that may stop it.

    Stopping also closes the response being read, so a stop takes effect at
    once even when the server has gone quiet and a read is blocked.
    """

    def __init__(self) -> None:
        self._event = threading.Event()
        self._reason = ""
        self._lock = threading.Lock()
        self._closers: list[Callable[[], None]] = []

    def pause(self) -> None:
        self._stop(PAUSE)

    def cancel(self) -> None:
        self._stop(CANCEL)

    def _stop(self, reason: str) -> None:
        with self._lock:
            # A cancel overrides a pause (the partial files must go); a pause never downgrades a cancel.
            if self._reason != CANCEL:
                self._reason = reason
            closers = list(self._closers)
        self._event.set()
        for close in closers:
            # Closing an already-failed stream may fail too; the stop stands.
            with contextlib.suppress(Exception):
                close()

    @property
    def stopped(self) -> bool:
        return self._event.is_set()

    @property
    def reason(self) -> str:
        return self._reason

    def check(self) -> None:
        """Raise :class:`DownloadStopped` when a stop was requested."""
        if self._event.is_set():
            raise DownloadStopped(self._reason)

    def sleep(self, seconds: float) -> None:
        """Wait ``seconds`` unless stopped first (then raise)."""
        if self._event.wait(seconds):
            raise DownloadStopped(self._reason)

    def register_closer(self, close: Callable[[], None]) -> Callable[[], None]:
        """Call ``close`` on stop while registered; returns the function that unregisters it."""
        with self._lock:
            self._closers.append(close)
            already = self._event.is_set()
        if already:
            close()

        def unregister() -> None:
            with self._lock:
                if close in self._closers:
                    self._closers.remove(close)

        return unregister
