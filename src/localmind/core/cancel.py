"""The one cancel token of the app: asked to stop from any thread, noticed by the work between its steps.

Background work of every kind gets one: a task of the window's task runner (workers/tasks.py, whose TaskContext is
one), a download or verification (core/hub), an indexing run. Qt-free, so the terminal commands use it too.

A stop has a reason: :data:`CANCEL` (the user asked; a download deletes its partial files), :data:`PAUSE` (a
download keeps them to resume), :data:`SHUTDOWN` (the app is closing; kept too) or a caller's own word. The first
reason stands, except that a cancel overrides any other (the partial files must go); never the other way round.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

log = logging.getLogger(__name__)

CANCEL = "cancel"  # the user asked
PAUSE = "pause"  # stop now, resume later (a download keeps its partial files)
SHUTDOWN = "shutdown"  # the app is closing


class Cancelled(Exception):
    """Raised inside the work to end it because a stop was requested (:meth:`CancelToken.check` does it)."""

    def __init__(self, reason: str = CANCEL) -> None:
        super().__init__(reason)
        self.reason = reason


class CancelToken:
    """Shared between the thread doing the work and the ones that may stop it. Thread-safe.

    Work that blocks where it cannot poll (a read from a server gone quiet) registers a hook with :meth:`on_cancel`
    that closes what it waits on, so the stop takes effect at once.
    """

    def __init__(self) -> None:
        self._event = threading.Event()
        self._lock = threading.Lock()
        self._reason = ""
        self._hooks: list[Callable[[str], None]] = []

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    stopped = cancelled  # the download's word for it

    @property
    def reason(self) -> str:
        """Why the work was asked to stop ("" while it was not)."""
        return self._reason

    def request_cancel(self, reason: str = CANCEL) -> None:
        """Ask the work to stop, and run the hooks (from this thread) the first time."""
        with self._lock:
            first = not self._event.is_set()
            if first or (reason == CANCEL and self._reason != CANCEL):
                self._reason = reason
            self._event.set()
            hooks = list(self._hooks) if first else []
        for hook in hooks:
            try:
                hook(reason)
            except Exception:  # a failing hook (closing a stream that already failed) must not stop the others
                log.debug("a cancel hook failed", exc_info=True)

    def cancel(self) -> None:
        self.request_cancel(CANCEL)

    def pause(self) -> None:
        self.request_cancel(PAUSE)

    def check(self) -> None:
        """Raise :class:`Cancelled` if a stop was requested; call it between steps of the work."""
        if self._event.is_set():
            raise Cancelled(self._reason)

    def sleep(self, seconds: float) -> None:
        """Wait ``seconds`` unless stopped first (then raise :class:`Cancelled`)."""
        if self._event.wait(seconds):
            raise Cancelled(self._reason)

    def on_cancel(self, hook: Callable[[str], None]) -> Callable[[], None]:
        """Call ``hook(reason)`` when a stop is requested (at once if it already was); returns the function that
        unregisters it (for a hook that closes a stream, once the stream is done)."""
        with self._lock:
            already = self._event.is_set()
            if not already:
                self._hooks.append(hook)
        if already:
            hook(self._reason)

        def unregister() -> None:
            with self._lock:
                if hook in self._hooks:
                    self._hooks.remove(hook)

        return unregister

    def register_closer(self, close: Callable[[], None]) -> Callable[[], None]:
        """:meth:`on_cancel` for a hook that needs no reason (closing a response)."""
        return self.on_cancel(lambda _reason: close())


__all__ = ["CANCEL", "PAUSE", "SHUTDOWN", "CancelToken", "Cancelled"]
