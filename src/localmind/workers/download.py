"""Downloads and other slow model-manager work (verify, import, Hub listing) off the GUI thread.

Each job runs in its own QThread. Results come back as queued signals; pause
and cancel go straight to the job's thread-safe control (a queued signal could
not reach a thread that is busy downloading).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, QThread, Signal, Slot

from localmind.core.hub import (
    AuthRequiredError,
    DownloadJob,
    DownloadProgress,
    DownloadRequest,
    DownloadStopped,
    HubSettings,
    NotEnoughDiskError,
    TransferControl,
)
from localmind.errors import UserFacingError

# Kinds of failure, so the page can offer the right next step.
FAILURE_AUTH = "auth"
FAILURE_DISK = "disk"
FAILURE_OTHER = "other"


@dataclass(frozen=True)
class Failure:
    message: str
    kind: str = FAILURE_OTHER


def _failure(exc: BaseException) -> Failure:
    if isinstance(exc, AuthRequiredError):
        return Failure(str(exc), FAILURE_AUTH)
    if isinstance(exc, NotEnoughDiskError):
        return Failure(str(exc), FAILURE_DISK)
    if isinstance(exc, UserFacingError):
        return Failure(str(exc))
    return Failure(f"Unexpected error: {type(exc).__name__}: {exc}")


class DownloadWorker(QObject):
    """Runs one :class:`DownloadJob` in its thread. Every signal carries the job's key."""

    progress = Signal(str, object)  # key, DownloadProgress
    succeeded = Signal(str, object)  # key, InstalledModel
    failed = Signal(str, object)  # key, Failure
    stopped = Signal(str, str)  # key, "pause" or "cancel"
    done = Signal()

    def __init__(self, key: str, request: DownloadRequest, token: str | None, settings: HubSettings | None) -> None:
        super().__init__()
        self.key = key
        self.control = TransferControl()
        self._job = DownloadJob(request, token=token, settings=settings, control=self.control, on_progress=self._report)

    def _report(self, progress: DownloadProgress) -> None:
        self.progress.emit(self.key, progress)

    @Slot()
    def run(self) -> None:
        try:
            self.succeeded.emit(self.key, self._job.run())
        except DownloadStopped as stop:
            self.stopped.emit(self.key, stop.reason)
        except Exception as exc:
            self.failed.emit(self.key, _failure(exc))
        finally:
            self.done.emit()


class TaskWorker(QObject):
    """Runs one callable in its thread (verify, import, listing a repo)."""

    succeeded = Signal(str, object)  # key, result
    failed = Signal(str, object)  # key, Failure
    done = Signal()

    def __init__(self, key: str, task: Callable[[], Any]) -> None:
        super().__init__()
        self.key = key
        self._task = task

    @Slot()
    def run(self) -> None:
        try:
            self.succeeded.emit(self.key, self._task())
        except Exception as exc:
            self.failed.emit(self.key, _failure(exc))
        finally:
            self.done.emit()


class DownloadController(QObject):
    """Starts and tracks the page's background jobs, by key. Lives in the GUI thread.

    Signals:
        progress(key, DownloadProgress), download_succeeded(key, InstalledModel),
        download_failed(key, Failure), download_stopped(key, reason),
        task_succeeded(key, result), task_failed(key, Failure).
    """

    progress = Signal(str, object)
    download_succeeded = Signal(str, object)
    download_failed = Signal(str, object)
    download_stopped = Signal(str, str)
    task_succeeded = Signal(str, object)
    task_failed = Signal(str, object)

    def __init__(self, settings: HubSettings | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.settings = settings
        self._threads: dict[str, tuple[QThread, DownloadWorker | TaskWorker]] = {}
        self._finishing: list[tuple[QThread, DownloadWorker | TaskWorker]] = []

    def is_running(self, key: str) -> bool:
        return key in self._threads

    def running(self) -> list[str]:
        return list(self._threads)

    def start_download(self, key: str, request: DownloadRequest, token: str | None = None) -> bool:
        if key in self._threads:
            return False
        worker = DownloadWorker(key, request, token, self.settings)
        # Release the key first, so a slot reacting to the outcome may start the same download again at once.
        for outcome in (worker.succeeded, worker.failed, worker.stopped):
            outcome.connect(self._on_worker_done)
        # Signal to signal: delivered queued in this (the GUI) thread, then passed on.
        worker.progress.connect(self.progress)
        worker.succeeded.connect(self.download_succeeded)
        worker.failed.connect(self.download_failed)
        worker.stopped.connect(self.download_stopped)
        self._start(key, worker)
        return True

    def run_task(self, key: str, task: Callable[[], Any]) -> bool:
        if key in self._threads:
            return False
        worker = TaskWorker(key, task)
        for outcome in (worker.succeeded, worker.failed):
            outcome.connect(self._on_worker_done)
        worker.succeeded.connect(self.task_succeeded)
        worker.failed.connect(self.task_failed)
        self._start(key, worker)
        return True

    def _start(self, key: str, worker: DownloadWorker | TaskWorker) -> None:
        thread = QThread(self)
        thread.setObjectName(f"model-manager-{key}")
        worker.moveToThread(thread)
        thread.started.connect(worker.run)
        worker.done.connect(thread.quit)
        thread.finished.connect(self._on_thread_finished)
        self._threads[key] = (thread, worker)
        thread.start()

    @Slot()
    def _on_worker_done(self) -> None:
        worker = self.sender()
        for key, entry in list(self._threads.items()):
            if entry[1] is worker:
                del self._threads[key]
                self._finishing.append(entry)

    @Slot()
    def _on_thread_finished(self) -> None:
        thread = self.sender()
        for key, entry in list(self._threads.items()):
            if entry[0] is thread:
                del self._threads[key]
                self._finishing.append(entry)
        for entry in [e for e in self._finishing if e[0] is thread]:
            self._finishing.remove(entry)
            entry[1].deleteLater()
            entry[0].deleteLater()

    def pause(self, key: str) -> None:
        entry = self._threads.get(key)
        if entry is not None and isinstance(entry[1], DownloadWorker):
            entry[1].control.pause()

    def cancel(self, key: str) -> None:
        entry = self._threads.get(key)
        if entry is not None and isinstance(entry[1], DownloadWorker):
            entry[1].control.cancel()

    def shutdown(self, timeout_ms: int = 10_000) -> None:
        """Pause every download (they resume at the next start) and wait for the threads to end."""
        for _thread, worker in list(self._threads.values()):
            if isinstance(worker, DownloadWorker):
                worker.control.pause()
        for thread, _worker in [*self._threads.values(), *self._finishing]:
            thread.quit()
            thread.wait(timeout_ms)
