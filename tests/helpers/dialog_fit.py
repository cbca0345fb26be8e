"""Open every dialog of the real app on a real X display and report where its buttons are (tests/e2e/test_dialogs_fit_x.py).

Run as ``python -m tests.helpers.dialog_fit OUT_DIR [--theme light|dark] [--language en|zh_CN] [--model DIR]`` on
an X display with a window manager (tests/helpers/xwindow.py). It builds the whole app (``create_app``), shows its
window, and opens each dialog the way the app does: Settings through ``open_settings`` (each tab, Advanced open),
the store's and the backup dialogs, the crash dialog, a source passage, the import question, the model manager's
question and token boxes, and Qt's file dialog. For each it writes, to ``OUT_DIR/report.json``:

- the dialog's client area as the X server has it (``xwininfo`` on its window: the window manager placed it),
- the screen's size and the available geometry Qt reports,
- every visible button: its global rectangle once scrolled into view (``QScrollArea.ensureWidgetVisible``), and
  whether it sits in the dialog's button row (which must be in view without scrolling),

and a screenshot of the whole screen as ``OUT_DIR/<name>.png`` (ImageMagick ``import``). Modal dialogs (opened with
``exec()``) are inspected from a timer while they run, then closed with Escape's action (``reject``).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from PySide6.QtCore import QRect, QTimer
from PySide6.QtWidgets import (
    QAbstractButton,
    QApplication,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QScrollArea,
    QWidget,
)


def settle(seconds: float = 0.4) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        QApplication.processEvents()
        time.sleep(0.02)


def x_geometry(window: QWidget) -> dict[str, int]:
    out = subprocess.run(
        ["xwininfo", "-id", str(int(window.winId()))], capture_output=True, text=True, check=True, timeout=10
    ).stdout
    keys = {"Absolute upper-left X": "x", "Absolute upper-left Y": "y", "Width": "width", "Height": "height"}
    found: dict[str, int] = {}
    for line in out.splitlines():
        name, _, value = line.strip().partition(":")
        if name in keys:
            found[keys[name]] = int(value)
    return found


def _rect(rect: QRect) -> list[int]:
    return [rect.x(), rect.y(), rect.width(), rect.height()]


def buttons_of(dialog: QDialog) -> list[dict[str, Any]]:
    """Every button a user could reach, scrolled into view where it sits in a scroll area."""
    found = []
    for button in dialog.findChildren(QAbstractButton):
        if not button.isVisibleTo(dialog) or button.window() is not dialog:
            continue
        parent = button.parentWidget()
        in_row = False
        while parent is not None and parent is not dialog:
            if isinstance(parent, QDialogButtonBox):
                in_row = True
            if isinstance(parent, QScrollArea) and not in_row:
                parent.ensureWidgetVisible(button, 4, 4)
            parent = parent.parentWidget()
        settle(0.05)
        top_left = button.mapToGlobal(button.rect().topLeft())
        found.append(
            {
                "text": button.text() or button.accessibleName() or button.objectName(),
                "rect": [top_left.x(), top_left.y(), button.width(), button.height()],
                "button_row": in_row,
                "class": type(button).__name__,
            }
        )
    return found


class Reporter:
    def __init__(self, out: Path) -> None:
        self.out = out
        self.entries: list[dict[str, Any]] = []

    def inspect(self, name: str, dialog: QDialog) -> None:
        settle(0.6)  # mapped, placed by the window manager and painted
        screen = dialog.screen()
        shot = self.out / f"{name}.png"
        subprocess.run(["import", "-window", "root", str(shot)], check=True, capture_output=True, timeout=30)
        self.entries.append(
            {
                "name": name,
                "title": dialog.windowTitle(),
                "x_client": x_geometry(dialog),
                "qt_geometry": _rect(dialog.geometry()),
                "qt_frame": _rect(dialog.frameGeometry()),
                "available": _rect(screen.availableGeometry()),
                "screen": _rect(screen.geometry()),
                "ratio": screen.devicePixelRatio(),
                "buttons": buttons_of(dialog),
                "screenshot": str(shot),
            }
        )
        self.save()

    def save(self) -> None:
        (self.out / "report.json").write_text(json.dumps(self.entries, indent=1), encoding="utf-8")

    def modal(self, name: str, run: Callable[[], object]) -> None:
        """Run ``run`` (which opens a modal dialog with exec()) and inspect that dialog while it is open."""

        def look() -> None:
            dialog = QApplication.activeModalWidget()
            if not isinstance(dialog, QDialog):
                QTimer.singleShot(100, look)
                return
            self.inspect(name, dialog)
            dialog.reject()

        QTimer.singleShot(300, look)
        run()
        settle(0.2)


def open_settings_pages(mind: Any, report: Reporter) -> None:
    dialog = mind.open_settings()
    chat = dialog.chat_tab
    report.inspect("settings-chat", dialog)
    chat.advanced_button.setChecked(True)
    report.inspect("settings-chat-advanced", dialog)
    for tab, name in ((dialog.app_tab, "settings-app"), (dialog.server_tab, "settings-server")):
        dialog.tabs.setCurrentWidget(tab)
        report.inspect(name, dialog)
    dialog.reject()
    settle(0.2)


def open_other_dialogs(mind: Any, report: Reporter, scratch: Path) -> None:
    from localmind import crash
    from localmind.core.backup import Backup
    from localmind.ui import dialogs, store_dialogs
    from localmind.ui.crash_dialog import CrashDialog
    from localmind.ui.documents_chat import SourceDialog

    window = mind.window
    long_text = "\n".join(f"Line {i}: a passage from the user's own file, shown as it is." for i in range(80))
    store = store_dialogs.StoreDialog(
        "The conversations file is damaged",
        "SQLite said: database disk image is malformed.\n" * 12,
        [store_dialogs.RECOVER, store_dialogs.READ_ONLY_OPEN, store_dialogs.RETRY, store_dialogs.QUIT],
    )
    report.modal("store-problem", store.exec)
    backups = [Backup(scratch / f"b{i}.sqlite3", datetime(2026, 1, i + 1, 9, 30), "daily", "0.9") for i in range(30)]
    report.modal("restore-backup", store_dialogs.RestoreDialog(backups, window).exec)
    log = scratch / "crash.log"
    log.write_text(long_text, encoding="utf-8")
    crash_report = crash.CrashReport(log, long_text, "RuntimeError: boom", "MainThread")
    report.modal("crash", CrashDialog(crash_report, parent=window).exec)
    report.modal("source-passage", SourceDialog(window, "report.pdf, page 3", long_text, str(log), 3).exec)
    report.modal(
        "import-question", lambda: dialogs.ask_import_mode(window, "/home/someone/models/" + "a-long-folder-name/" * 4)
    )
    window.show_model_manager()
    settle(0.5)
    page = window.model_manager
    report.modal("model-question", lambda: page._confirm_dialog("Delete Qwen3-0.6B?", "It frees 1.2 GB." * 10))
    report.modal("model-token", page._token_dialog)
    window.show_chat()
    report.modal(
        "file-dialog",
        lambda: QFileDialog.getExistingDirectory(
            window, "Open a model folder", str(scratch), QFileDialog.Option.DontUseNativeDialog
        ),
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("out", type=Path)
    parser.add_argument("--theme", default="light")
    parser.add_argument("--language", default="en")
    parser.add_argument("--model", default=None)
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)

    from localmind.app import create_app
    from localmind.settings import Settings

    mind = create_app(args.model, settings=Settings(theme=args.theme, language=args.language), load_last_model=False)
    mind.window.show()
    settle(1.0)
    if args.model:
        deadline = time.monotonic() + 60
        while mind.session.model is None and time.monotonic() < deadline:
            settle(0.1)
    report = Reporter(args.out)
    open_settings_pages(mind, report)
    with tempfile.TemporaryDirectory() as scratch:
        open_other_dialogs(mind, report, Path(scratch))
    report.save()
    mind.window.close()
    settle(0.3)
    print("dialogs inspected:", len(report.entries), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
