"""The app's background tasks: downloads and other work share one runner, and closing the window drains it."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from localmind.core.hub import DownloadRequest, list_installed, list_unfinished
from localmind.workers.download import DownloadController
from localmind.workers.tasks import SHUTDOWN, TaskContext
from tests.helpers.app_window import Launch, fake, launch_fixture
from tests.helpers.fake_hub import FakeHub
from tests.helpers.hub_env import REPO, fast_settings, running_hub, use_keyring

pytestmark = pytest.mark.gui


@pytest.fixture
def launch(qtbot: Any, tiny_model: Path) -> Iterator[Launch]:
    yield from launch_fixture(qtbot, tiny_model)


@pytest.fixture
def hub(tiny_model: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeHub]:
    use_keyring(monkeypatch)
    with running_hub(tiny_model, monkeypatch) as server:
        yield server


def test_closing_the_window_pauses_every_download_at_once(qtbot: QtBot, launch: Launch, hub: FakeHub) -> None:
    """Three downloads and a slow export run when the window closes: all stop together and the downloads can resume."""
    mind = launch(engine=fake())
    mind.window.show_model_manager()
    page = mind.window.model_manager
    controller = page.controller  # type: ignore[union-attr]
    assert isinstance(controller, DownloadController) and controller.runner is mind.tasks
    controller.settings = fast_settings(hub)
    hub.faults.throttle_bps = 200_000  # each download takes seconds: still running at the close
    progressed: set[str] = set()
    controller.progress.connect(lambda key, p: progressed.add(key) if p.done_bytes > 0 else None)
    keys = ["model-a", "model-b", "model-c"]
    for key in keys:
        assert controller.start_download(key, DownloadRequest(REPO, model_id=key))
    stopped_at: list[tuple[str, float]] = []

    def slow_to_stop(ctx: TaskContext) -> None:
        while not ctx.cancelled:
            time.sleep(0.01)
        time.sleep(0.8)  # a task that needs a while to wind down
        stopped_at.append((ctx.reason, time.monotonic()))

    mind.tasks.start(slow_to_stop, key="slow")
    qtbot.waitUntil(lambda: progressed == set(keys), timeout=15_000)
    assert sorted(mind.tasks.running()) == [*keys, "slow"]

    started = time.monotonic()
    mind.window.close()
    elapsed = time.monotonic() - started
    assert mind.tasks.closed
    assert [t.name for t in threading.enumerate() if t.name.startswith("localmind-task:")] == []
    assert [reason for reason, _ in stopped_at] == [SHUTDOWN]
    # Paused, not cancelled: every partial download is there to resume at the next start; nothing installed.
    assert sorted(u.model_id for u in list_unfinished()) == keys
    assert list_installed() == []
    assert elapsed < 5.0, f"closing took {elapsed:.1f} s"
