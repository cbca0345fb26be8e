"""The QApplication with LocalMind's name and icon (one per process; reused when it exists, as in tests)."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication

from localmind import APP_NAME, __version__
from localmind.resources import resource_path


def create_application(argv: Sequence[str] | None = None) -> QApplication:
    """The QApplication, with LocalMind's name and icon (reused when one exists, as in tests)."""
    app = QApplication.instance()
    if not isinstance(app, QApplication):
        app = QApplication(list(argv) if argv is not None else [sys.argv[0] if sys.argv else "localmind"])
    app.setApplicationName(APP_NAME)
    app.setApplicationDisplayName(APP_NAME)
    app.setOrganizationName(APP_NAME)
    app.setApplicationVersion(__version__)
    app.setDesktopFileName("localmind")
    for name in ("localmind.svg", "localmind.png", "localmind-256.png"):
        icon_file = resource_path("icons", name)
        if icon_file.is_file():
            app.setWindowIcon(QIcon(str(icon_file)))
            break
    return app


__all__ = ["create_application"]
