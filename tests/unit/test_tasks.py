"""The background-task runner: outcomes on the GUI thread, progress, cancel, and one deadline at shutdown."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from localmind.errors import UserFacingError
from localmind.workers.tasks import CANCEL, SHUTDOWN, Progress, TaskCancelled, TaskContext, TaskRunner


@pytest.fixture
def runner(qtbot: QtBot) -> Iterator[TaskRunner]:
    tasks = TaskRunner()
    yield tasks
    tasks.shutdown(5.0)


def wait_finished(qtbot: QtBot, runner: TaskRunner, key: str) -> None:
    qtbot.waitUntil(lambda: not runner.is_running(key), timeout=10_000)


def test_success_is_delivered_on_the_gui_thread(qtbot: QtBot, runner: TaskRunner) -> None:
    seen: list[tuple[Any, threading.Thread]] = []
    worker_threads: list[threading.Thread] = []

    def work(_ctx: TaskContext) -> int:
        worker_threads.append(threading.current_thread())
        return 42

    with qtbot.waitSignal(runner.task_finished, timeout=10_000) as finished:
        runner.start(work, key="answer", on_success=lambda r: seen.append((r, threading.current_thread())))
    assert finished.args == ["answer", "succeeded"]
    assert seen == [(42, threading.main_thread())]
    assert worker_threads and worker_threads[0] is not threading.main_thread()


def test_progress_arrives_in_order_on_the_gui_thread_and_before_the_outcome(qtbot: QtBot, runner: TaskRunner) -> None:
    events: list[tuple[str, Any]] = []

    def work(ctx: TaskContext) -> str:
        for i in range(1, 201):
            ctx.progress(Progress(i, 200, f"step {i}"))
            if i % 20 == 0:
                time.sleep(0.01)  # let the GUI thread take some of them
        return "done"

    def on_progress(p: Progress) -> None:
        assert threading.current_thread() is threading.main_thread()
        events.append(("progress", p.done))

    runner.start(work, key="p", on_progress=on_progress, on_success=lambda r: events.append(("success", r)))
    wait_finished(qtbot, runner, "p")
    progress = [v for kind, v in events if kind == "progress"]
    assert progress, "no progress was delivered"
    assert progress == sorted(progress) and progress[-1] == 200  # latest wins; the last value is never lost
    assert events[-1] == ("success", "done")


def test_a_kept_progress_value_is_never_skipped(qtbot: QtBot, runner: TaskRunner) -> None:
    sent = threading.Event()

    def work(ctx: TaskContext) -> None:
        for i in range(1, 101):
            ctx.progress(i, keep=i in (37, 38))
        sent.set()

    delivered: list[int] = []
    runner.start(work, key="kept", on_progress=delivered.append)
    assert sent.wait(10)  # the GUI thread was busy (blocked here) while all 100 were sent
    wait_finished(qtbot, runner, "kept")
    # The newest-wins values in between are skipped; the two kept ones come in order, and the last value last.
    assert delivered == [37, 38, 100]


def test_what_a_task_was_given_is_let_go_on_the_gui_thread(qtbot: QtBot, runner: TaskRunner) -> None:
    """The function, the callbacks and what they hold (widgets, in the app) are never freed on the task's thread:
    PySide deletes a Qt object freed there through a deferred deletion on the main thread, which crashed."""
    import weakref

    class Held:
        pass

    freed_on: list[str] = []
    for i in range(40):
        given, callback_held = Held(), Held()
        for obj in (given, callback_held):
            weakref.finalize(obj, lambda: freed_on.append(threading.current_thread().name))
        runner.start(
            lambda _ctx, given=given, fail=i % 3 == 0: (id(given), fail and 1 / 0),
            on_success=lambda _r, held=callback_held: held,
            on_failure=lambda _e, held=callback_held: held,
        )
        del given, callback_held, obj  # the task and the runner hold the only references now
    qtbot.waitUntil(lambda: not runner.running(), timeout=10_000)
    qtbot.wait(300)  # the tasks' threads end, and the runner lets go of what they held
    import gc

    gc.collect()  # a failure's traceback and the task's outcome hold each other: cyclic garbage, freed here
    assert len(freed_on) == 80 and set(freed_on) == {"MainThread"}, freed_on


def test_a_failure_is_delivered_with_the_exception(qtbot: QtBot, runner: TaskRunner) -> None:
    failures: list[tuple[BaseException, threading.Thread]] = []
    successes: list[object] = []

    def work(_ctx: TaskContext) -> None:
        raise UserFacingError("The disk is full.", hint="Free some space.")

    runner.start(
        work,
        key="f",
        on_success=successes.append,
        on_failure=lambda exc: failures.append((exc, threading.current_thread())),
    )
    wait_finished(qtbot, runner, "f")
    qtbot.waitUntil(lambda: bool(failures), timeout=5_000)
    (exc, thread), *rest = failures
    assert not rest and not successes
    assert isinstance(exc, UserFacingError) and "The disk is full." in str(exc)
    assert thread is threading.main_thread()


def test_an_unhandled_failure_reaches_the_excepthook(
    qtbot: QtBot, runner: TaskRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    hooked: list[BaseException] = []
    monkeypatch.setattr("sys.excepthook", lambda _t, exc, _tb: hooked.append(exc))

    def work(_ctx: TaskContext) -> None:
        raise KeyError("bug")

    runner.start(work, key="bug")
    qtbot.waitUntil(lambda: bool(hooked), timeout=5_000)
    assert isinstance(hooked[0], KeyError)


def test_cancel_reaches_a_polling_task_and_a_blocked_one(qtbot: QtBot, runner: TaskRunner) -> None:
    outcomes: dict[str, str] = {}
    unblock = threading.Event()

    def polling(ctx: TaskContext) -> None:
        while True:
            ctx.sleep(0.01)

    def blocked(ctx: TaskContext) -> None:
        ctx.on_cancel(lambda _reason: unblock.set())  # as a download closes its socket
        unblock.wait()
        ctx.check()

    for key, fn in (("polling", polling), ("blocked", blocked)):
        runner.start(fn, key=key, on_cancelled=lambda reason, key=key: outcomes.__setitem__(key, reason))
    time.sleep(0.05)
    assert sorted(runner.running()) == ["blocked", "polling"]
    assert runner.cancel("polling") and runner.cancel("blocked", "pause")
    qtbot.waitUntil(lambda: len(outcomes) == 2, timeout=5_000)
    assert outcomes == {"polling": CANCEL, "blocked": "pause"}
    assert runner.running() == [] and not runner.cancel("polling")


def test_one_task_per_key_and_a_callback_may_start_the_same_key_again(qtbot: QtBot, runner: TaskRunner) -> None:
    release = threading.Event()
    results: list[str] = []

    def first(_ctx: TaskContext) -> str:
        release.wait(5)
        return "first"

    def again(result: str) -> None:
        results.append(result)
        assert runner.start(lambda _ctx: "second", key="k", on_success=results.append) is not None

    assert runner.start(first, key="k", on_success=again) is not None
    assert runner.start(lambda _ctx: "duplicate", key="k") is None
    release.set()
    qtbot.waitUntil(lambda: results == ["first", "second"], timeout=5_000)


def test_shutdown_stops_every_task_in_parallel_with_one_deadline(qtbot: QtBot) -> None:
    """Four tasks that each need a while to stop: they stop together, not one after another."""
    runner = TaskRunner()
    lock = threading.Lock()
    stops: dict[str, tuple[float, float, str]] = {}
    delivered: list[str] = []

    def slow_to_stop(ctx: TaskContext) -> None:
        while not ctx.cancelled:
            time.sleep(0.005)
        seen = time.monotonic()
        time.sleep(0.5)  # cleaning up: closing files, a download writing its resume state
        with lock:
            stops[ctx.key] = (seen, time.monotonic(), ctx.reason)
        ctx.check()

    keys = [f"download-{i}" for i in range(4)]
    for key in keys:
        runner.start(slow_to_stop, key=key, on_cancelled=delivered.append, on_success=delivered.append)
    assert runner.shutdown(deadline_s=30.0) == []
    assert sorted(stops) == keys
    assert {reason for _seen, _end, reason in stops.values()} == {SHUTDOWN}
    # Every task saw the stop before any had finished stopping: the waits overlapped.
    assert max(seen for seen, _end, _r in stops.values()) < min(end for _seen, end, _r in stops.values())
    assert runner.start(lambda _ctx: None, key="late") is None  # no new work once shut down
    qtbot.wait(50)
    assert delivered == []  # nothing is delivered to a closing app


def test_shutdown_abandons_stuck_tasks_at_the_deadline(qtbot: QtBot) -> None:
    runner = TaskRunner()
    never = threading.Event()

    def stuck(_ctx: TaskContext) -> None:
        never.wait(60)  # ignores the cancel, like a read blocked in a library

    keys = [f"stuck-{i}" for i in range(5)]
    for key in keys:
        runner.start(stuck, key=key)
    started = time.monotonic()
    left = runner.shutdown(deadline_s=1.0)
    elapsed = time.monotonic() - started
    never.set()
    assert sorted(left) == keys
    assert elapsed < 3.0  # one deadline for all five (one after another would be 5 s)


def test_a_task_may_end_itself_with_task_cancelled(qtbot: QtBot, runner: TaskRunner) -> None:
    reasons: list[str] = []

    def work(_ctx: TaskContext) -> None:
        raise TaskCancelled("pause")

    runner.start(work, key="self", on_cancelled=reasons.append)
    qtbot.waitUntil(lambda: reasons == ["pause"], timeout=5_000)


def test_a_task_outliving_its_runner_ends_quietly(qtbot: QtBot) -> None:
    """A dialog that owns a runner can close while its task (a slow keyring read) still runs."""
    import shiboken6

    release = threading.Event()
    progressed = threading.Event()
    failures: list[BaseException] = []
    previous = threading.excepthook
    threading.excepthook = lambda args: failures.append(args.exc_value)  # type: ignore[assignment]
    try:
        owner = TaskRunner()
        delivered: list[object] = []

        def work(ctx: TaskContext) -> int:
            release.wait(10)
            ctx.progress(1)
            progressed.set()
            return 1

        task = owner.start(work, on_success=delivered.append, on_progress=delivered.append)
        assert task is not None and task.thread is not None
        shiboken6.delete(owner)  # the window closed: the runner's Qt side is gone
        release.set()
        task.thread.join(10)
        assert not task.thread.is_alive() and progressed.is_set()
        qtbot.wait(50)
        assert failures == [] and delivered == []
    finally:
        threading.excepthook = previous
