"""Indexing runs in the app's task runner: one job at a time, its outcome on the GUI thread, drained at shutdown."""

from __future__ import annotations

from pathlib import Path

from pytestqt.qtbot import QtBot

from localmind.workers.indexer import IndexerService
from localmind.workers.tasks import TaskRunner


def corpus(folder: Path, count: int) -> list[str]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(count):
        path = folder / f"note-{i}.txt"
        path.write_text(f"Note {i}. " + "The heron waits by the river for fish. " * 40, encoding="utf-8")
        paths.append(str(path))
    return paths


def test_jobs_run_one_after_another_as_tasks_of_the_runner(qtbot: QtBot, tmp_path: Path) -> None:
    runner = TaskRunner()
    service = IndexerService(tmp_path / "documents.sqlite3", tasks=runner)
    started: list[str] = []
    runner.task_started.connect(started.append)
    finished: list[tuple[int, bool]] = []
    service.job_finished.connect(lambda result, cancelled: finished.append((result.added_files, cancelled)))
    try:
        service.submit("add", corpus(tmp_path / "a", 3))
        service.submit("add", corpus(tmp_path / "b", 2))
        assert service.busy and len(runner.running()) == 1  # the second waits: one writer of the index
        qtbot.waitUntil(lambda: not service.busy, timeout=30_000)
    finally:
        service.shutdown()
        runner.shutdown()
    assert started == ["documents-index:1", "documents-index:2"]
    assert finished == [(3, False), (2, False)]


def test_cancel_stops_the_job_and_shutdown_drains_it(qtbot: QtBot, tmp_path: Path) -> None:
    runner = TaskRunner()
    service = IndexerService(tmp_path / "documents.sqlite3", tasks=runner)
    outcomes: list[bool] = []
    service.job_finished.connect(lambda _result, cancelled: outcomes.append(cancelled))
    files = corpus(tmp_path / "many", 60)
    try:
        with qtbot.waitSignal(service.progress, timeout=30_000):
            service.submit("add", files)
        service.cancel()
        qtbot.waitUntil(lambda: not service.busy, timeout=30_000)
        assert outcomes == [True]
        service.submit("add", files)  # picks up where the cancelled one stopped
        with qtbot.waitSignal(service.progress, timeout=30_000):
            pass
    finally:
        left = runner.shutdown(10.0)  # the app's order: the runner first, then the feature
        service.shutdown()
    assert left == []  # the job in flight noticed the stop within a file
