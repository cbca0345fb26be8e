"""Crashes are visible: an exception in a Qt slot or a worker thread writes a log and opens the crash dialog."""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QObject, QThread, QTimer, Signal, Slot
from PySide6.QtGui import QGuiApplication
from pytestqt.qtbot import QtBot

from localmind import crash
from localmind.ui.crash_dialog import CrashDialog, CrashReporter
from tests.helpers.app_window import Launch, fake, launch_fixture

pytestmark = [pytest.mark.gui, pytest.mark.qt_no_exception_capture]
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def launch(qtbot: Any, tiny_model: Path) -> Iterator[Launch]:
    yield from launch_fixture(qtbot, tiny_model)


@pytest.fixture
def reporter(data_dir: Path) -> Iterator[tuple[CrashReporter, crash.CrashHandler, list[Path]]]:
    opened: list[Path] = []
    reporter = CrashReporter(open_folder=opened.append)
    handler = crash.install(data_dir, reporter.notify)
    yield reporter, handler, opened
    handler.uninstall()
    if reporter.dialog is not None:
        reporter.dialog.close()


def crash_logs(data_dir: Path) -> list[Path]:
    return sorted((data_dir / crash.CRASH_DIR_NAME).glob("crash-*.log"))


class Worker(QObject):
    """A QObject in a QThread whose slot fails, like a worker hitting a bug."""

    go = Signal()

    @Slot()
    def explode_in_worker(self) -> None:
        raise RuntimeError("the worker slot failed")


def test_an_exception_in_a_slot_writes_a_log_and_opens_the_dialog(
    qtbot: QtBot, launch: Launch, data_dir: Path, reporter: Any
) -> None:
    crash_reporter, handler, opened = reporter
    mind = launch(engine=fake())

    def store_broke() -> None:
        raise ValueError("the store went away <b>bold</b>")

    # A slot of the real window that fails: what a store error in regenerate or edit looked like.
    mind.window.composer.send_requested.connect(lambda _text: store_broke())
    mind.window.composer.send_requested.emit("hello")
    qtbot.waitUntil(lambda: crash_reporter.dialog is not None and crash_reporter.dialog.isVisible(), timeout=5_000)
    dialog = crash_reporter.dialog
    assert isinstance(dialog, CrashDialog)
    (log,) = crash_logs(data_dir)
    text = log.read_text(encoding="utf-8")
    assert "ValueError: the store went away <b>bold</b>" in text and "store_broke" in text
    assert "MainThread" in text and "LocalMind " in text
    assert dialog.details.toPlainText() == text  # shown as plain text, the markup too
    assert str(log) in dialog.explanation.text()
    dialog.copy_button.click()
    assert QGuiApplication.clipboard().text() == text
    dialog.folder_button.click()
    assert opened == [data_dir / crash.CRASH_DIR_NAME]
    assert [r.path for r in handler.reports] == [log]
    # The window is still alive and usable after the report.
    assert mind.window.isVisible()


def test_exceptions_in_worker_threads_write_logs_and_are_added_to_the_open_dialog(
    qtbot: QtBot, data_dir: Path, reporter: Any
) -> None:
    crash_reporter, handler, _opened = reporter

    def background() -> None:
        raise KeyError("python thread")

    thread = threading.Thread(target=background, name="indexer")
    thread.start()
    thread.join()
    qtbot.waitUntil(lambda: crash_reporter.dialog is not None, timeout=5_000)

    qthread = QThread()
    worker = Worker()
    worker.moveToThread(qthread)
    worker.go.connect(worker.explode_in_worker)
    qthread.start()
    worker.go.emit()
    qtbot.waitUntil(lambda: len(handler.reports) == 2, timeout=5_000)
    qthread.quit()
    qthread.wait(5_000)

    logs = crash_logs(data_dir)
    assert len(logs) == 2
    texts = [p.read_text(encoding="utf-8") for p in logs]
    assert any("KeyError: 'python thread'" in t and "'indexer'" in t for t in texts)
    assert any("RuntimeError: the worker slot failed" in t and "explode_in_worker" in t for t in texts)
    dialog = crash_reporter.dialog
    assert dialog is not None
    qtbot.waitUntil(lambda: len(dialog.reports) == 2, timeout=5_000)  # one dialog, both reports
    assert "2 unexpected errors" in dialog.heading.text()


def test_a_native_crash_is_offered_at_the_next_start(data_dir: Path, qtbot: QtBot) -> None:
    code = (
        "import faulthandler, sys; from pathlib import Path; from localmind import crash; "
        f"crash.install(Path({str(data_dir)!r})); faulthandler._sigsegv()"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, timeout=60, check=False)
    assert result.returncode != 0
    report = crash.take_native_crash(data_dir)
    assert report is not None
    assert "Fatal Python error" in report.text and "<string>" in report.text
    assert report.path.is_file() and report.path.read_text(encoding="utf-8") == report.text
    assert crash.take_native_crash(data_dir) is None  # offered once
    dialog = CrashReporter().show_previous_run(report)
    qtbot.addWidget(dialog)
    assert "closed unexpectedly the last time" in dialog.heading.text()


def test_a_clean_exit_leaves_nothing_to_offer(data_dir: Path) -> None:
    handler = crash.install(data_dir)
    handler.uninstall()
    assert crash.take_native_crash(data_dir) is None
    assert crash_logs(data_dir) == []


def test_the_dialog_speaks_chinese(qtbot: QtBot, data_dir: Path, launch: Launch) -> None:
    from localmind.settings import Settings

    mind = launch(engine=fake(), settings=Settings(theme="light", language="zh_CN"))
    report = crash.CrashReport(path=data_dir / "crashes" / "crash-x.log", text="Traceback …", summary="", thread="x")
    dialog = CrashReporter(lambda: mind.window).show_previous_run(report)
    qtbot.addWidget(dialog)
    assert dialog.copy_button.text() == "复制详细信息"
    QTimer.singleShot(0, dialog.close)


def test_the_window_entry_point_installs_the_hooks(qtbot: QtBot, data_dir: Path) -> None:
    from localmind import app

    before = (sys.excepthook, threading.excepthook)
    reporter, handler, previous = app._install_crash_reporting()
    try:
        assert isinstance(reporter, CrashReporter) and previous is None
        assert sys.excepthook == handler.excepthook and threading.excepthook == handler.thread_excepthook
        assert handler.crash_dir == data_dir / crash.CRASH_DIR_NAME
        assert (handler.crash_dir / crash.NATIVE_LOG_NAME).is_file()  # faulthandler writes there
    finally:
        handler.uninstall()
    assert (sys.excepthook, threading.excepthook) == before
