"""Python's cyclic garbage collector, run on the GUI thread only.

Qt objects belong to the thread that made them. When the cyclic collector runs on a worker thread (it runs on
whichever thread allocates past its threshold: the engine service's, a download's), and the garbage it finds holds
a window's widgets (a closed dialog and the closures that point back at it), PySide queues their deletion for the
main thread, and draining that queue crashed the process (SIGSEGV in Shiboken's ``runDeletionInMainThread``, seen
under load when a settings page was closed). So while the app runs, automatic collection is off and a timer on the
GUI thread collects instead, with the same thresholds (a generation is collected when its count is past them).
Freeing by reference count is untouched: the task runner sees to it that worker threads never drop the last
reference to what a task was given (workers/tasks.py).
"""

from __future__ import annotations

import gc
import threading

from PySide6.QtCore import QCoreApplication, QObject, QTimer
from shiboken6 import isValid

INTERVAL_MS = 500


class MainThreadCollector(QObject):
    """Collects on its own (the GUI) thread every ``INTERVAL_MS`` while started; automatic collection is off."""

    def __init__(self, parent: QObject | None = None, interval_ms: int = INTERVAL_MS) -> None:
        super().__init__(parent)
        self._timer = QTimer(self)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self.check)
        self._was_enabled = False

    @property
    def running(self) -> bool:
        return self._timer.isActive()

    def start(self) -> None:
        if self.running:
            return
        self._was_enabled = gc.isenabled()
        gc.disable()
        self._timer.start()

    def stop(self) -> None:
        """Collect once more here, and give collection back to Python as it was."""
        if not self.running:
            return
        self._timer.stop()
        gc.collect()
        if self._was_enabled:
            gc.enable()

    def check(self) -> None:
        """Collect the oldest generation whose count is past its threshold (as Python itself would)."""
        counts, thresholds = gc.get_count(), gc.get_threshold()
        generation = -1
        for g in range(3):
            if thresholds[g] and counts[g] > thresholds[g]:
                generation = g
        if generation >= 0:
            gc.collect(generation)


_installed: MainThreadCollector | None = None


def install(app: QCoreApplication) -> MainThreadCollector:
    """Start the collector for ``app`` (once; later calls return the same one). Call on the GUI thread."""
    global _installed
    if threading.current_thread() is not threading.main_thread():
        raise RuntimeError("the collector must be installed on the GUI thread")
    if _installed is None or not isValid(_installed):
        _installed = MainThreadCollector(app)
        app.aboutToQuit.connect(_installed.stop)
    _installed.start()
    return _installed


def installed() -> MainThreadCollector | None:
    """The collector :func:`install` started, if it is still there."""
    return _installed if _installed is not None and isValid(_installed) else None


__all__ = ["INTERVAL_MS", "MainThreadCollector", "install", "installed"]
