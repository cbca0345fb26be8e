"""The main window's size and place: fitted to the screen on a first run, as the user left it afterwards (where a
screen still is), and the sidebar's width."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QByteArray, QSettings, QSize, Qt
from PySide6.QtGui import QGuiApplication, QScreen
from PySide6.QtWidgets import QMainWindow, QSplitter

DEFAULT_SIZE = (1180, 780)
MINIMUM_SIZE = (720, 480)
FRAME_ALLOWANCE = QSize(16, 48)  # the window manager's title bar and borders, outside the window's own size


def fit_to_screen(window: QMainWindow, screen: QScreen | None = None) -> None:
    """The default size (1180×780), made smaller where the screen's free area is (1366×768, 150 % scale).

    Sizes are logical pixels: at 150 % a 1366×768 screen has 911×512 of them, less the panels. The window
    manager's title bar and borders are not in the window's size, so some room is left for them.
    """
    screen = screen or window.screen() or QGuiApplication.primaryScreen()
    if screen is None:
        window.resize(*DEFAULT_SIZE)
        window.setMinimumSize(*MINIMUM_SIZE)
        return
    free = screen.availableGeometry()
    room = QSize(max(free.width() - FRAME_ALLOWANCE.width(), 320), max(free.height() - FRAME_ALLOWANCE.height(), 240))
    window.setMinimumSize(min(MINIMUM_SIZE[0], room.width()), min(MINIMUM_SIZE[1], room.height()))
    size = QSize(min(DEFAULT_SIZE[0], room.width()), min(DEFAULT_SIZE[1], room.height()))
    window.resize(size)
    window.move(free.x() + (free.width() - size.width()) // 2, free.y() + max((free.height() - size.height()) // 2, 0))


class WindowState:
    """Saves and restores ``window``'s geometry and ``splitter``'s sizes in an INI file at ``path`` (none: nothing)."""

    def __init__(self, window: QMainWindow, splitter: QSplitter, path: Path | None) -> None:
        self.window = window
        self.splitter = splitter
        self.path = path
        self._pending_splitter: QByteArray | None = None

    def _settings(self) -> QSettings | None:
        if self.path is None:
            return None
        return QSettings(str(self.path), QSettings.Format.IniFormat)

    def restore(self) -> None:
        state = self._settings()
        if state is None:
            return
        geometry = state.value("window/geometry")
        if isinstance(geometry, QByteArray) and not geometry.isEmpty():
            self._restore_geometry_on_screen(geometry)
        splitter = state.value("window/splitter")
        # Applied once the window has its real size: sizes restored into a splitter not laid out yet get squeezed.
        self._pending_splitter = splitter if isinstance(splitter, QByteArray) and not splitter.isEmpty() else None

    def apply_pending_splitter(self) -> None:
        """On the window's first show."""
        if self._pending_splitter is not None:
            self.splitter.restoreState(self._pending_splitter)
            self._pending_splitter = None

    def _restore_geometry_on_screen(self, geometry: QByteArray) -> None:
        """The saved place and size, but only where a screen is now (a monitor unplugged, a lower resolution)."""
        window = self.window
        fitted = (window.pos(), window.size())
        if not window.restoreGeometry(geometry):
            return
        frame = window.frameGeometry() if window.isVisible() else window.geometry()
        screen = QGuiApplication.screenAt(frame.center())
        free = screen.availableGeometry() if screen is not None else None
        # Most of the window must be on one screen; otherwise start as on a first run.
        if free is None or free.intersected(frame).width() * free.intersected(frame).height() < (
            frame.width() * frame.height() // 2
        ):
            window.setWindowState(Qt.WindowState.WindowNoState)
            window.resize(fitted[1])
            window.move(fitted[0])
            return
        if window.isMaximized() or window.isFullScreen():
            return
        width = min(window.width(), max(free.width() - FRAME_ALLOWANCE.width(), window.minimumWidth()))
        height = min(window.height(), max(free.height() - FRAME_ALLOWANCE.height(), window.minimumHeight()))
        window.resize(width, height)
        x = min(max(window.x(), free.x()), free.right() + 1 - width)
        y = min(max(window.y(), free.y()), free.bottom() + 1 - height - FRAME_ALLOWANCE.height() // 2)
        window.move(max(x, free.x()), max(y, free.y()))

    def save(self) -> None:
        state = self._settings()
        if state is None:
            return
        state.setValue("window/geometry", self.window.saveGeometry())
        state.setValue("window/splitter", self.splitter.saveState())
        state.sync()


__all__ = ["DEFAULT_SIZE", "FRAME_ALLOWANCE", "MINIMUM_SIZE", "WindowState", "fit_to_screen"]
