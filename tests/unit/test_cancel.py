"""The app's one cancel token: the task runner's context, the download's control and the stop they raise are one."""

from __future__ import annotations

import threading
import time

import pytest

from localmind.core.cancel import CANCEL, PAUSE, SHUTDOWN, Cancelled, CancelToken
from localmind.core.hub import DownloadStopped, TransferControl
from localmind.workers.tasks import TaskCancelled, TaskContext


def test_one_type_one_stop() -> None:
    assert TransferControl is CancelToken
    assert issubclass(TaskContext, CancelToken)
    assert DownloadStopped is Cancelled and TaskCancelled is Cancelled


def test_check_and_sleep_raise_with_the_reason() -> None:
    token = CancelToken()
    token.check()  # nothing asked yet
    assert not token.cancelled and token.reason == ""
    token.pause()
    with pytest.raises(Cancelled) as stop:
        token.check()
    assert stop.value.reason == PAUSE and token.stopped
    started = time.monotonic()
    with pytest.raises(Cancelled):
        token.sleep(30)
    assert time.monotonic() - started < 1


def test_a_cancel_overrides_a_pause_never_the_other_way() -> None:
    token = CancelToken()
    token.request_cancel(SHUTDOWN)
    token.pause()
    assert token.reason == SHUTDOWN  # the first reason stands
    token.cancel()
    assert token.reason == CANCEL  # the partial files must go
    token.pause()
    assert token.reason == CANCEL


def test_hooks_run_once_from_the_cancelling_thread_and_can_be_unregistered() -> None:
    token = CancelToken()
    seen: list[tuple[str, str]] = []
    token.on_cancel(lambda reason: seen.append((reason, threading.current_thread().name)))
    gone = token.register_closer(lambda: seen.append(("closed", "")))
    gone()  # the stream it would close is done
    token.on_cancel(lambda _reason: 1 / 0)  # a failing hook does not keep the others from running
    token.on_cancel(lambda reason: seen.append((reason + "-2", "")))
    stopper = threading.Thread(target=token.cancel, name="stopper")
    stopper.start()
    stopper.join()
    token.cancel()  # asked again: the hooks do not run again
    assert seen == [(CANCEL, "stopper"), (CANCEL + "-2", "")]
    late: list[str] = []
    token.on_cancel(late.append)  # registered after the stop: runs at once
    assert late == [CANCEL]


def test_a_task_context_passed_as_a_download_control_stops_it() -> None:
    """What the model manager does: the hub code raises DownloadStopped from the task's own token."""
    progress: list[object] = []
    ctx = TaskContext("download:x", progress.append)
    ctx.request_cancel(PAUSE)
    with pytest.raises(DownloadStopped) as stop:
        ctx.check()
    assert stop.value.reason == PAUSE
