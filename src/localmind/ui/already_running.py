"""What a second ``localmind`` start says when a LocalMind window already has the data folder."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import QMessageBox

from localmind import APP_NAME


def has_display() -> bool:
    """Whether a window could be shown (no: offscreen Qt, or a Linux session without X11/Wayland)."""
    platform = os.environ.get("QT_QPA_PLATFORM", "").split(":")[0].strip().lower()
    if platform in ("offscreen", "minimal"):
        return False
    if sys.platform == "win32" or sys.platform == "darwin":
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def message(folder: Path) -> tuple[str, str]:
    """(headline, what to do), in the UI language once a translator is installed."""
    # Literal calls, so pyside6-lupdate finds the strings.
    headline = QCoreApplication.translate("AlreadyRunning", "LocalMind is already running.")
    detail = QCoreApplication.translate(
        "AlreadyRunning",
        "Only one LocalMind window can use a data folder at a time ({folder}). "
        "Switch to the window that is open, or close it and start LocalMind again.",
    )
    return headline, detail.format(folder=folder)


def tell(folder: Path, pid: int | None, language: str = "system") -> None:
    """Tell the user, in a message box where there is a display and on stderr where there is none."""
    if not has_display():
        # Before any QApplication exists, so in English; a terminal user reads the folder and process.
        holder = f" (process {pid})" if pid else ""
        if sys.stderr is not None:  # a windowed frozen build may have no stderr at all
            print(
                f"localmind: {APP_NAME} is already running{holder} with the data folder {folder}. "
                "Switch to its window, or close it and start again; terminal commands work meanwhile.",
                file=sys.stderr,
            )
        return
    from localmind.app import create_application
    from localmind.ui.i18n import Translations

    app = create_application()
    Translations.for_app(app).apply(language)
    headline, detail = message(folder)
    box = QMessageBox(QMessageBox.Icon.Information, APP_NAME, headline, QMessageBox.StandardButton.Ok)
    box.setTextFormat(Qt.TextFormat.PlainText)  # the folder's path is the user's text, never HTML
    box.setInformativeText(detail)
    box.exec()


__all__ = ["has_display", "message", "tell"]
