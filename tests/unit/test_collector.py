"""Cyclic garbage is collected on the GUI thread only while the app runs (workers/collector.py)."""

from __future__ import annotations

import gc
import threading
import weakref

from pytestqt.qtbot import QtBot

from localmind.workers import collector


class _Cycle:
    def __init__(self) -> None:
        self.me = self


def _garbage_collected_on(qtbot: QtBot) -> list[str]:
    """Where a cycle, made garbage just before a worker thread allocates a lot, is collected."""
    gc.collect()
    where: list[str] = []
    cycle = _Cycle()
    weakref.finalize(cycle, lambda: where.append(threading.current_thread().name))
    del cycle  # garbage now, collectable only by the cyclic collector

    kept: list[list[list[int]]] = []

    def allocate() -> None:
        kept.append([[] for _ in range(200_000)])  # past every generation-0 threshold many times over

    worker = threading.Thread(target=allocate, name="worker")
    worker.start()
    worker.join()
    qtbot.waitUntil(lambda: bool(where), timeout=5_000)
    kept.clear()
    return where


def test_cyclic_garbage_is_collected_on_the_gui_thread_not_on_a_worker(qtbot: QtBot) -> None:
    running = collector.installed()
    assert running is not None and running.running and not gc.isenabled()  # as the app runs (conftest installs it)
    assert _garbage_collected_on(qtbot) == ["MainThread"]


def test_stopping_gives_collection_back(qtbot: QtBot) -> None:
    running = collector.installed()
    assert running is not None
    running.stop()
    try:
        assert gc.isenabled() and not running.running
        assert _garbage_collected_on(qtbot) == ["worker"]  # what the app would risk without the collector
    finally:
        running.start()
    assert not gc.isenabled()
