"""One way to run slow work off the GUI thread: cancellable, reporting progress, drained at shutdown.

Every slow thing the window starts (a download, verifying or importing a model,
looking up a repository, exporting or importing chats, asking the keyring,
indexing documents) goes through a :class:`TaskRunner`::

    runner.start(
        lambda ctx: verify_model(model_id),
        key=f"verify:{model_id}",
        on_success=show_report,      # called on the GUI thread with the function's result
        on_failure=show_error,       # called on the GUI thread with the exception
        on_progress=update_bar,      # the latest value passed to ctx.progress(), on the GUI thread
        on_cancelled=forget,         # ctx.cancelled was honoured (TaskCancelled was raised)
    )

The function runs in its own (daemon) thread and never touches a widget: it
gets a :class:`TaskContext` to report progress and to notice a cancel. All
callbacks run on the thread the runner lives in (the GUI thread), queued, so a
callback may start another task with the same key.

Why plain threads and not one QThread per job: at shutdown every task is asked
to stop at once and the runner waits for all of them against ONE deadline; a
task that does not stop in time is abandoned (its thread is a daemon, so the
process still exits), whereas a QThread still running when Qt tears down aborts
the process. Signals emitted from a Python thread are delivered queued like any other.

A worker thread never lets go of the last reference to anything a task was given (its function, its callbacks and
what they hold: widgets, often): PySide finalises a Qt object whose wrapper dies on another thread through a
deferred deletion on the main thread, which crashed the process (SIGSEGV in Shiboken's runDeletionInMainThread)
when a window closed while its task was ending. So every task's closures stay referenced from the GUI thread until
its thread has ended, and are let go there; outcomes travel through one bridge per thread that is never deleted.
"""

from __future__ import annotations

import logging
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from PySide6.QtCore import QObject, Qt, QTimer, Signal, Slot
from shiboken6 import isValid

from localmind.core.cancel import CANCEL, PAUSE, SHUTDOWN, Cancelled, CancelToken

log = logging.getLogger(__name__)

T = TypeVar("T")

DEFAULT_SHUTDOWN_DEADLINE_S = 5.0

TaskCancelled = Cancelled  # raised inside a task to end it; the one stop of the app (core/cancel.py)


@dataclass(frozen=True)
class Progress:
    """A convenient progress value: ``done`` of ``total`` (0 when unknown), and a line of text."""

    done: float = 0.0
    total: float = 0.0
    text: str = ""


class TaskContext(CancelToken):
    """Handed to the task's function, in its thread: the task's cancel token, and its progress out. Thread-safe.

    Being the app's one cancel token, it is passed as is to work that takes one (a download's control).
    """

    def __init__(self, key: str, send_progress: Callable[[object, bool], None]) -> None:
        super().__init__()
        self.key = key
        self._send_progress = send_progress

    def progress(self, value: object, *, keep: bool = False) -> None:
        """Report progress; the GUI sees the latest value (intermediate ones may be skipped when it is busy).

        A value sent with ``keep`` is never skipped: it is delivered, in order, even when newer values follow
        before the GUI gets to it (a retry that is over in a moment must still be told).
        """
        self._send_progress(value, keep)


class Task(Generic[T]):
    """A running (or finished) task, as the GUI thread sees it."""

    def __init__(self, key: str, context: TaskContext) -> None:
        self.key = key
        self.context = context
        self.state = "running"  # then "succeeded", "failed" or "cancelled"
        self.thread: threading.Thread | None = None

    @property
    def running(self) -> bool:
        return self.state == "running"

    def cancel(self, reason: str = CANCEL) -> None:
        self.context.request_cancel(reason)


class _Bridge(QObject):
    """Carries closures from worker threads to the thread this object lives in. One per thread, never deleted
    (``_bridge_here``): a worker may emit at any time, so what it emits on must outlive every runner."""

    deliver = Signal(object)

    def __init__(self) -> None:
        super().__init__()
        # Queued even when emitted from this thread: a callback never runs inside the code that caused it.
        self.deliver.connect(self._run, Qt.ConnectionType.QueuedConnection)

    @Slot(object)
    def _run(self, call: Callable[[], None]) -> None:
        call()


_BRIDGES: dict[int, _Bridge] = {}
_BRIDGES_LOCK = threading.Lock()


def _bridge_here() -> _Bridge:
    """The bridge to the calling thread (made on first use, kept for the process's life)."""
    ident = threading.get_ident()
    with _BRIDGES_LOCK:
        bridge = _BRIDGES.get(ident)
        if bridge is None:
            bridge = _BRIDGES[ident] = _Bridge()
        return bridge


# Each task's closures (``body``: the function, the callbacks, what they hold), kept from the runner's thread until
# the task's thread has ended, then dropped there: a worker thread never holds the last reference.
_HELD: list[tuple[threading.Thread, object]] = []
_HELD_LOCK = threading.Lock()


def _release_ended() -> None:
    """Drop what ended threads held, on the runner's thread."""
    with _HELD_LOCK:
        ended = [entry for entry in _HELD if not entry[0].is_alive()]
        _HELD[:] = [entry for entry in _HELD if entry[0].is_alive()]
    del ended  # the last references go here, on this thread


def _release_when_ended(thread: threading.Thread) -> None:
    """A task's outcome was delivered: its thread ends within moments; release what it held then."""
    if thread.is_alive():
        QTimer.singleShot(20, lambda: _release_when_ended(thread))
    else:
        _release_ended()


class TaskRunner(QObject):
    """Starts tasks in threads, delivers their outcomes on its own thread, and drains them at shutdown.

    Signals:
        task_started(str): a task with this key started.
        task_finished(str, str): a task ended: its key and its final state.
    """

    task_started = Signal(str)
    task_finished = Signal(str, str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._bridge = _bridge_here()
        self._lock = threading.Lock()
        self._tasks: dict[str, Task[Any]] = {}
        self._closed = False
        self._counter = 0

    # -- starting and looking up ----------------------------------------------------------------------------------
    def start(
        self,
        fn: Callable[[TaskContext], T],
        *,
        key: str | None = None,
        on_success: Callable[[T], None] | None = None,
        on_failure: Callable[[BaseException], None] | None = None,
        on_progress: Callable[[Any], None] | None = None,
        on_cancelled: Callable[[str], None] | None = None,
    ) -> Task[T] | None:
        """Run ``fn(context)`` in a new thread. Returns ``None`` when a task with ``key`` is running or the runner is shut down.

        Exactly one of ``on_success``, ``on_failure`` or ``on_cancelled`` is then called on this object's thread. A
        task that fails with no ``on_failure`` goes to ``sys.excepthook`` (the crash log): nobody expected it to fail.
        """
        with self._lock:
            if self._closed:
                return None
            if key is None:
                self._counter += 1
                key = f"task-{self._counter}"
            if key in self._tasks:
                return None
            progress_box = _LatestValue(self._bridge, on_progress, lambda: self._closed or not isValid(self))
            context = TaskContext(key, progress_box.send)
            task: Task[T] = Task(key, context)
            self._tasks[key] = task

        # (state, value) once the function has ended. Held with the task's closures, so even the result (or the
        # exception, with its frames) is let go on this thread.
        outcome: list[tuple[str, Any]] = []

        def deliver() -> None:
            if not isValid(self):
                log.debug("task %s finished after its runner was deleted; its outcome is dropped", task.key)
                return
            state, value = outcome[0]
            task.state = state
            with self._lock:
                if self._tasks.get(task.key) is task:
                    del self._tasks[task.key]  # released first: the callback may start the same key again
                closed = self._closed
            if closed:
                return  # the app is closing: whatever would show the outcome may be gone
            progress_box.flush()
            try:
                if state == "succeeded":
                    if on_success is not None:
                        on_success(value)
                elif state == "cancelled":
                    if on_cancelled is not None:
                        on_cancelled(value)
                else:
                    _deliver_failure(task.key, value, on_failure)
            finally:
                self.task_finished.emit(task.key, state)

        def on_gui_thread() -> None:
            try:
                deliver()
            finally:
                _release_when_ended(thread)

        def body() -> None:
            try:
                outcome.append(("succeeded", fn(context)))
            except TaskCancelled as stop:
                outcome.append(("cancelled", stop.reason or context.reason or CANCEL))
            except BaseException as exc:  # every failure is delivered, none may vanish in the thread
                outcome.append(("failed", exc))
            _emit(self._bridge, on_gui_thread)

        thread = threading.Thread(target=body, name=f"localmind-task:{key}", daemon=True)
        task.thread = thread
        with _HELD_LOCK:
            _HELD.append((thread, body))
        thread.start()
        _release_ended()
        self.task_started.emit(key)
        return task

    def get(self, key: str) -> Task[Any] | None:
        with self._lock:
            return self._tasks.get(key)

    def is_running(self, key: str) -> bool:
        return self.get(key) is not None

    def running(self) -> list[str]:
        with self._lock:
            return list(self._tasks)

    def cancel(self, key: str, reason: str = CANCEL) -> bool:
        """Ask the task to stop; returns whether one was running. Its ``on_cancelled`` comes when it has stopped."""
        task = self.get(key)
        if task is None:
            return False
        task.cancel(reason)
        return True

    # -- shutdown -------------------------------------------------------------------------------------------------
    @property
    def closed(self) -> bool:
        return self._closed

    def shutdown(self, deadline_s: float = DEFAULT_SHUTDOWN_DEADLINE_S) -> list[str]:
        """Cancel every task (reason :data:`SHUTDOWN`) and wait for all of them together, at most ``deadline_s``.

        Returns the keys of tasks still running at the deadline (abandoned: their threads are daemons).
        No callback runs after this. Idempotent.
        """
        with self._lock:
            self._closed = True
            tasks = list(self._tasks.values())
        for task in tasks:
            task.cancel(SHUTDOWN)
        deadline = time.monotonic() + max(0.0, deadline_s)
        for task in tasks:
            if task.thread is not None:
                task.thread.join(max(0.0, deadline - time.monotonic()))
        left = [t.key for t in tasks if t.thread is not None and t.thread.is_alive()]
        if left:
            log.warning("Left %d background task(s) running at exit: %s", len(left), ", ".join(left))
        _release_ended()
        return left


class _LatestValue:
    """Progress from a worker thread: only the newest value is kept (plus any sent with ``keep``, in order), and at
    most one delivery is queued."""

    def __init__(self, bridge: _Bridge, callback: Callable[[Any], None] | None, closed: Callable[[], bool]) -> None:
        self._bridge = bridge
        self._closed = closed
        self._callback = callback
        self._lock = threading.Lock()
        self._queue: list[tuple[object, bool]] = []  # what the next delivery hands over: kept values, then the latest
        self._pending = False

    def send(self, value: object, keep: bool = False) -> None:
        if self._callback is None:
            return
        with self._lock:
            if self._queue and not self._queue[-1][1]:
                self._queue[-1] = (value, keep)  # the latest replaces a newer-is-better value not yet delivered
            else:
                self._queue.append((value, keep))
            if self._pending:
                return
            self._pending = True
        _emit(self._bridge, self.flush)

    def flush(self) -> None:
        with self._lock:
            if not self._pending:
                return
            values, self._queue, self._pending = self._queue, [], False
        if self._callback is None:
            return
        for value, _keep in values:
            if self._closed():
                return
            self._callback(value)


def _emit(bridge: _Bridge, call: Callable[[], None]) -> None:
    """Queue ``call`` for the bridge's thread. Bridges are never deleted while the app runs (a runner deleted with
    its window is noticed on the GUI thread, in ``deliver``); only a daemon task still running as the interpreter
    shuts down can find its bridge gone."""
    try:
        bridge.deliver.emit(call)
    except RuntimeError:  # "Signal source has been deleted"
        log.debug("a task finished as the process ended; its outcome is dropped")


def _deliver_failure(key: str, exc: BaseException, on_failure: Callable[[BaseException], None] | None) -> None:
    if on_failure is not None:
        on_failure(exc)
        return
    log.error("Background task %s failed and nobody handles it", key)
    sys.excepthook(type(exc), exc, exc.__traceback__)


__all__ = [
    "CANCEL",
    "DEFAULT_SHUTDOWN_DEADLINE_S",
    "PAUSE",
    "SHUTDOWN",
    "Progress",
    "Task",
    "TaskCancelled",
    "TaskContext",
    "TaskRunner",
]
