"""The crash dialog: what went wrong, as copyable plain text, with the log's folder one click away.

:class:`CrashReporter` connects :mod:`localmind.crash` to the window: a crash
reported from any thread is queued to the GUI thread and shown in one dialog
(further crashes while it is open are added to it, not stacked as new dialogs).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QEvent, QObject, Qt, QUrl, Signal, Slot
from PySide6.QtGui import QDesktopServices, QFontDatabase, QGuiApplication
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from localmind import crash


class CrashDialog(QDialog):
    """Shows crash reports. The log text is plain text (it holds paths and messages that are not ours)."""

    def __init__(
        self,
        report: crash.CrashReport,
        *,
        previous_run: bool = False,
        open_folder: Callable[[Path], None] | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("CrashDialog")
        self.reports: list[crash.CrashReport] = []
        self.previous_run = previous_run
        self._open_folder = open_folder or (lambda path: QDesktopServices.openUrl(QUrl.fromLocalFile(str(path))))
        self.heading = QLabel()
        self.heading.setObjectName("CrashHeading")
        self.heading.setWordWrap(True)
        self.heading.setTextFormat(Qt.TextFormat.PlainText)
        font = self.heading.font()
        font.setBold(True)
        self.heading.setFont(font)
        self.explanation = QLabel()
        self.explanation.setWordWrap(True)
        self.explanation.setTextFormat(Qt.TextFormat.PlainText)
        self.explanation.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.details = QPlainTextEdit()
        self.details.setReadOnly(True)
        self.details.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.details.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.details.setMinimumSize(560, 260)
        self.buttons = QDialogButtonBox()
        self.copy_button = QPushButton()
        self.folder_button = QPushButton()
        self.close_button = QPushButton()
        self.close_button.setDefault(True)
        self.buttons.addButton(self.copy_button, QDialogButtonBox.ButtonRole.ActionRole)
        self.buttons.addButton(self.folder_button, QDialogButtonBox.ButtonRole.ActionRole)
        self.buttons.addButton(self.close_button, QDialogButtonBox.ButtonRole.RejectRole)
        self.copy_button.clicked.connect(self.copy_to_clipboard)
        self.folder_button.clicked.connect(self.open_folder)
        self.close_button.clicked.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.heading)
        layout.addWidget(self.explanation)
        layout.addWidget(self.details, 1)
        layout.addWidget(self.buttons)
        self.add_report(report)
        self.retranslate()

    def add_report(self, report: crash.CrashReport) -> None:
        self.reports.append(report)
        self.details.setPlainText("\n\n".join(r.text for r in self.reports))
        self.retranslate()

    def retranslate(self) -> None:
        self.setWindowTitle(self.tr("LocalMind: something went wrong"))
        if self.previous_run:
            self.heading.setText(self.tr("LocalMind closed unexpectedly the last time it ran."))
        elif len(self.reports) > 1:
            self.heading.setText(
                self.tr("LocalMind ran into {count} unexpected errors.").format(count=len(self.reports))
            )
        else:
            self.heading.setText(self.tr("LocalMind ran into an unexpected error."))
        paths = ", ".join(str(r.path) for r in self.reports)
        self.explanation.setText(
            self.tr(
                "Your chats are saved. If something no longer works, restart LocalMind. "
                "The details below were written to {path}; nothing was sent anywhere. "
                "To report the problem, copy them into your report."
            ).format(path=paths)
        )
        self.copy_button.setText(self.tr("Copy details"))
        self.folder_button.setText(self.tr("Open folder"))
        self.close_button.setText(self.tr("Close"))

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    @Slot()
    def copy_to_clipboard(self) -> None:
        QGuiApplication.clipboard().setText(self.details.toPlainText())

    @Slot()
    def open_folder(self) -> None:
        self._open_folder(self.reports[-1].path.parent)


class CrashReporter(QObject):
    """Receives crash reports from any thread and shows them in the GUI thread, in one dialog at a time."""

    reported = Signal(object)  # CrashReport, queued to this object's thread

    def __init__(
        self,
        parent_window: Callable[[], QWidget | None] | None = None,
        open_folder: Callable[[Path], None] | None = None,
    ) -> None:
        super().__init__()
        self._parent_window = parent_window or (lambda: None)
        self._open_folder = open_folder
        self.dialog: CrashDialog | None = None
        self.reported.connect(self._show, Qt.ConnectionType.QueuedConnection)

    def notify(self, report: crash.CrashReport) -> None:
        """For :func:`localmind.crash.install`: safe to call from any thread."""
        self.reported.emit(report)

    def show_previous_run(self, report: crash.CrashReport) -> CrashDialog:
        return self._open(report, previous_run=True)

    @Slot(object)
    def _show(self, report: crash.CrashReport) -> None:
        if self.dialog is not None and self.dialog.isVisible():
            self.dialog.add_report(report)
            self.dialog.raise_()
            return
        self._open(report)

    def _open(self, report: crash.CrashReport, *, previous_run: bool = False) -> CrashDialog:
        dialog = CrashDialog(
            report, previous_run=previous_run, open_folder=self._open_folder, parent=self._parent_window()
        )
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.destroyed.connect(lambda *_: setattr(self, "dialog", None))
        self.dialog = dialog
        dialog.show()  # not exec(): a crash in a slot must not start a nested event loop inside that slot
        return dialog


__all__ = ["CrashDialog", "CrashReporter"]
