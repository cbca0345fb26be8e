"""What a second ``localmind`` start does when a LocalMind window already has the data folder: it asks that window
to come forward (a local socket named after the folder, served by the window), and says so where it cannot."""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QObject, Qt, Signal
from PySide6.QtNetwork import QLocalServer, QLocalSocket
from PySide6.QtWidgets import QMessageBox, QWidget

from localmind import APP_NAME

RAISE = b"raise\n"
RAISED = b"raised\n"
ANSWER_TIMEOUT_MS = 3000  # the window answers at once unless it is busy for longer; then the message box says it


def server_name(folder: Path) -> str:
    """The socket's name: one per data folder and user (a short name: Unix socket paths are limited to ~100 bytes)."""
    try:
        key = str(folder.resolve())
    except OSError:
        key = str(folder)
    user = str(os.getuid()) if hasattr(os, "getuid") else os.environ.get("USERNAME", "")
    return "localmind-" + hashlib.sha256(f"{user}:{key}".encode()).hexdigest()[:20]


class BringForward(QObject):
    """Served by the window that owns the data folder: a second start's request brings the window forward.

    Signals:
        requested(): a second start asked (the window is raised and activated before this is emitted).
    """

    requested = Signal()

    def __init__(self, folder: Path, window: QWidget) -> None:
        super().__init__(window)
        self.window = window
        self.server = QLocalServer(self)
        self.server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)  # this user's processes only
        name = server_name(folder)
        # A socket file left by a crashed window would make listen() fail; the folder's lock says we own it now.
        QLocalServer.removeServer(name)
        self.listening = self.server.listen(name)
        self.server.newConnection.connect(self._on_connection)

    def _on_connection(self) -> None:
        while self.server.hasPendingConnections():
            socket = self.server.nextPendingConnection()
            socket.readyRead.connect(lambda s=socket: self._on_request(s))
            socket.disconnected.connect(socket.deleteLater)

    def _on_request(self, socket: QLocalSocket) -> None:
        if bytes(socket.readAll().data()).startswith(RAISE.strip()):
            self.bring_forward()
            socket.write(RAISED)
            socket.flush()
            self.requested.emit()
        socket.disconnectFromServer()

    def bring_forward(self) -> None:
        window = self.window
        if window.isMinimized():
            window.showNormal()
        window.show()
        window.raise_()
        window.activateWindow()


def ask_to_come_forward(folder: Path, timeout_ms: int = ANSWER_TIMEOUT_MS) -> bool:
    """Ask the window that has ``folder`` to come forward; True once it said it did."""
    socket = QLocalSocket()
    socket.connectToServer(server_name(folder))
    if not socket.waitForConnected(timeout_ms):
        return False  # an older LocalMind, or a window too busy to answer: the message says what to do
    socket.write(RAISE)
    if not socket.waitForBytesWritten(timeout_ms):
        return False
    answer = b""
    while RAISED not in answer and socket.waitForReadyRead(timeout_ms):
        answer += bytes(socket.readAll().data())
    socket.abort()
    return RAISED in answer


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
    """Bring the open window forward; where that fails, tell the user: in a message box where there is a display,
    on stderr where there is none."""
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
    from localmind.ui.application import create_application
    from localmind.ui.i18n import Translations

    app = create_application()
    if ask_to_come_forward(folder):
        if sys.stderr is not None:
            print(f"localmind: {APP_NAME} is already running; its window was brought forward.", file=sys.stderr)
        return
    Translations.for_app(app).apply(language)
    headline, detail = message(folder)
    box = QMessageBox(QMessageBox.Icon.Information, APP_NAME, headline, QMessageBox.StandardButton.Ok)
    box.setTextFormat(Qt.TextFormat.PlainText)  # the folder's path is the user's text, never HTML
    box.setInformativeText(detail)
    box.exec()


__all__ = ["BringForward", "ask_to_come_forward", "has_display", "message", "server_name", "tell"]
