"""Downloads and other slow model-manager work (verify, import, Hub listing) off the GUI thread.

The jobs run as tasks of a :class:`~localmind.workers.tasks.TaskRunner` (the
app's, so they are drained at shutdown together with every other task, against
one deadline). Results come back as queued signals; pause and cancel go straight
to the job's thread-safe control (a queued signal could not reach a thread that
is busy downloading).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QCoreApplication, QObject, Signal

from localmind.core.hub import (
    AuthRequiredError,
    DownloadJob,
    DownloadProgress,
    DownloadRequest,
    HubSettings,
    NotEnoughDiskError,
)
from localmind.core.hub.errors import HubUnreachableError
from localmind.documents.embed import check_embedding_model
from localmind.errors import UserFacingError
from localmind.workers.messages import user_text
from localmind.workers.tasks import CANCEL, TaskContext, TaskRunner

# Kinds of failure, so the page can offer the right next step.
FAILURE_AUTH = "auth"
FAILURE_DISK = "disk"
FAILURE_OFFLINE = "offline"  # the network: the window says so in the UI language
FAILURE_OTHER = "other"


@dataclass(frozen=True)
class Failure:
    message: str
    kind: str = FAILURE_OTHER


def _failure(exc: BaseException) -> Failure:
    """The failure's text in the UI's language (user_text), with its kind."""
    if isinstance(exc, AuthRequiredError):
        return Failure(user_text(exc), FAILURE_AUTH)
    if isinstance(exc, NotEnoughDiskError):
        return Failure(user_text(exc), FAILURE_DISK)
    if isinstance(exc, HubUnreachableError):
        return Failure(user_text(exc), FAILURE_OFFLINE)
    if isinstance(exc, UserFacingError):
        return Failure(user_text(exc))
    unexpected = QCoreApplication.translate("engine", "Unexpected error: {kind}: {detail}")
    return Failure(unexpected.format(kind=type(exc).__name__, detail=exc))


Token = str | None | Callable[[], str | None]  # a callable is asked in the worker thread (the keyring may block)


class DownloadController(QObject):
    """Starts and tracks the page's background jobs, by key. Lives in the GUI thread.

    Args:
        settings: Hub settings for downloads and listings.
        runner: the app's task runner; by default one of its own (which :meth:`shutdown` then drains).

    Signals:
        progress(key, DownloadProgress), download_succeeded(key, InstalledModel),
        download_failed(key, Failure), download_stopped(key, reason),
        task_succeeded(key, result), task_failed(key, Failure), task_cancelled(key, reason).
    """

    progress = Signal(str, object)
    download_succeeded = Signal(str, object)
    download_failed = Signal(str, object)
    download_stopped = Signal(str, str)
    task_succeeded = Signal(str, object)
    task_failed = Signal(str, object)
    task_cancelled = Signal(str, str)

    def __init__(
        self, settings: HubSettings | None = None, parent: QObject | None = None, *, runner: TaskRunner | None = None
    ) -> None:
        super().__init__(parent)
        self.settings = settings
        self._owns_runner = runner is None
        self.runner = runner if runner is not None else TaskRunner(self)
        self._keys: set[str] = set()

    def is_running(self, key: str) -> bool:
        return key in self._keys and self.runner.is_running(key)

    def running(self) -> list[str]:
        return [key for key in self.runner.running() if key in self._keys]

    def start_download(self, key: str, request: DownloadRequest, token: Token = None) -> bool:
        settings = self.settings

        def download(ctx: TaskContext) -> Any:
            # The task's context is the download's control: a user's cancel deletes the partial files; a pause, or
            # the app closing, keeps them to resume. Its stop (DownloadStopped) is the task's (TaskCancelled).
            secret = token() if callable(token) else token
            told = [""]  # the status of the last report

            def report(p: DownloadProgress) -> None:
                # A new status (a retry, a damaged file) reaches the row even when newer reports follow at once.
                ctx.progress(p, keep=bool(p.status) and p.status != told[0])
                told[0] = p.status

            job = DownloadJob(
                request,
                token=secret,
                settings=settings,
                control=ctx,
                on_progress=report,
                embedding_check=check_embedding_model,
            )
            return job.run()

        return self._start(
            key,
            download,
            on_success=lambda model: self.download_succeeded.emit(key, model),
            on_failure=lambda exc: self.download_failed.emit(key, _failure(exc)),
            on_progress=lambda p: self.progress.emit(key, p),
            on_cancelled=lambda reason: self.download_stopped.emit(key, reason),
        )

    def run_task(self, key: str, task: Callable[[], Any]) -> bool:
        """Run ``task()`` in the background; it cannot be stopped once started (use :meth:`run_cancellable`)."""
        return self.run_cancellable(key, lambda _ctx: task())

    def run_cancellable(self, key: str, task: Callable[[TaskContext], Any]) -> bool:
        """Run ``task(context)``; :meth:`cancel` makes ``context.check()`` raise, which ends in ``task_cancelled``."""
        return self._start(
            key,
            task,
            on_success=lambda result: self.task_succeeded.emit(key, result),
            on_failure=lambda exc: self.task_failed.emit(key, _failure(exc)),
            on_cancelled=lambda reason: self.task_cancelled.emit(key, reason),
        )

    def _start(self, key: str, fn: Callable[[TaskContext], Any], **callbacks: Any) -> bool:
        def forget(callback: Callable[..., None]) -> Callable[..., None]:
            def call(*args: Any) -> None:
                self._keys.discard(key)  # released first: a slot may start the same key again at once
                callback(*args)

            return call

        for name in ("on_success", "on_failure", "on_cancelled"):
            callbacks[name] = forget(callbacks[name])
        task = self.runner.start(fn, key=key, **callbacks)
        if task is None:
            return False
        self._keys.add(key)
        return True

    def pause(self, key: str) -> None:
        if key in self._keys:
            self.runner.cancel(key, "pause")

    def cancel(self, key: str) -> None:
        if key in self._keys:
            self.runner.cancel(key, CANCEL)

    def shutdown(self, timeout_ms: int = 5_000) -> None:
        """Pause every download (they resume at the next start) and stop the other jobs.

        With its own runner, waits for all of them together, at most ``timeout_ms``; with the app's
        runner, the app's shutdown does the waiting (one deadline for every task of the app).
        """
        if self._owns_runner:
            self.runner.shutdown(timeout_ms / 1000)
            return
        for key in list(self._keys):
            self.runner.cancel(key, "pause")
