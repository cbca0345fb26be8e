"""In a chat: the "Use my documents" switch (all, or chosen collections) and the dialog a clicked source opens."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QEvent, QProcess, QSize, Qt, QUrl, Signal
from PySide6.QtGui import QAction, QDesktopServices
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QMenu,
    QPlainTextEdit,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from localmind.documents.chat import SOURCE_SCHEME, DocumentsChat
from localmind.documents.open_at import open_at_page_command


def start_detached(argv: list[str]) -> bool:
    """Start the viewer as its own process (it outlives LocalMind); False when it could not be started."""
    ok, _pid = QProcess.startDetached(argv[0], argv[1:])
    return bool(ok)


class DocumentsSwitch(QToolButton):
    """A checkable header button; its menu picks all documents or some collections.

    Signals:
        changed(bool enabled, list collections): ``[]`` means all collections.
    """

    changed = Signal(bool, list)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("GhostButton")
        self.setCheckable(True)
        self.setPopupMode(QToolButton.ToolButtonPopupMode.MenuButtonPopup)
        self.menu_ = QMenu(self)
        self.menu_.aboutToShow.connect(self._fill_menu)
        self.setMenu(self.menu_)
        self.collections: list[str] = []  # all known, set by the app
        self.chosen: list[str] = []
        self.toggled.connect(self._on_toggled)
        self.retranslate()

    def minimumSizeHint(self) -> QSize:
        # The header must not widen the chat's minimum width: a narrow window clips this label, not the layout.
        return QSize(40, super().minimumSizeHint().height())

    def set_collections(self, names: list[str]) -> None:
        self.collections = names
        self.chosen = [c for c in self.chosen if c in names]
        self.retranslate()

    def _fill_menu(self) -> None:
        self.menu_.clear()
        everything = QAction(self.tr("All documents"), self.menu_)
        everything.setCheckable(True)
        everything.setChecked(not self.chosen)
        everything.triggered.connect(lambda: self._choose([]))
        self.menu_.addAction(everything)
        if self.collections:
            self.menu_.addSeparator()
        for name in self.collections:
            action = QAction(name, self.menu_)
            action.setCheckable(True)
            action.setChecked(name in self.chosen)
            action.triggered.connect(lambda _checked=False, n=name: self._toggle(n))
            self.menu_.addAction(action)

    def _choose(self, names: list[str]) -> None:
        self.chosen = names
        self.setChecked(True)
        self.retranslate()
        self._emit()

    def _toggle(self, name: str) -> None:
        chosen = [c for c in self.chosen if c != name] if name in self.chosen else [*self.chosen, name]
        self._choose(chosen)

    def _on_toggled(self, _on: bool) -> None:
        self.retranslate()
        self._emit()

    def _emit(self) -> None:
        self.changed.emit(self.isChecked(), list(self.chosen))

    def retranslate(self) -> None:
        if self.chosen:
            text = self.tr("Use my documents: %1").replace("%1", ", ".join(self.chosen))
        else:
            text = self.tr("Use my documents")
        self.setText(("✓ " if self.isChecked() else "") + text)  # a ghost button shows no pressed state of its own
        self.setToolTip(self.tr("Answer from the documents you added, citing the file and page (Ctrl+Shift+D)"))

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)


def is_source_link(url: QUrl) -> bool:
    return url.scheme() == SOURCE_SCHEME


class SourceDialog(QDialog):
    """A passage as plain text (it is the user's file, never markup), its file and page, and a button that opens the
    file — at the page, in the system's PDF viewer, where that viewer takes one (documents/open_at.py)."""

    def __init__(
        self,
        parent: QWidget | None,
        title: str,
        text: str,
        file: str | None,
        page: int | None = None,
        launch: Callable[[list[str]], bool] = start_detached,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("SourceDialog")
        self.setWindowTitle(title)
        self.file = file
        self.page = page
        self._launch = launch
        # Worked out now (a few small files read): the button says what it will do.
        self.command = open_at_page_command(Path(file), page) if file is not None else None
        self.opened_with: list[str] | None = None  # the command that opened the file at its page (tests read it)
        label = QLabel(title)
        label.setObjectName("DialogTitle")
        label.setTextFormat(Qt.TextFormat.PlainText)
        body = QPlainTextEdit(text)
        body.setReadOnly(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        if file is not None:
            text = (
                self.tr("Open at page {page}").format(page=page)
                if self.command is not None
                else self.tr("Open the file")
            )
            self.open_button = buttons.addButton(text, QDialogButtonBox.ButtonRole.ActionRole)
            self.open_button.clicked.connect(self.open_file)
        layout = QVBoxLayout(self)
        layout.addWidget(label)
        layout.addWidget(body, 1)
        layout.addWidget(buttons)
        self.resize(560, 360)

    def open_file(self) -> None:
        if self.file is None:
            return
        if self.command is not None and self._launch(self.command):
            self.opened_with = self.command
            return
        # No viewer that takes a page (or it would not start): the system opens the file; the passage is shown here.
        QDesktopServices.openUrl(QUrl.fromLocalFile(self.file))


def source_dialog(parent: QWidget, documents: DocumentsChat, url: QUrl) -> SourceDialog | None:
    """The dialog for a clicked source link (``localmind-source:<passage id>``); None for a malformed link."""
    try:
        chunk_id = int(url.path() or url.toString().split(":", 1)[1])
    except (ValueError, IndexError):
        return None
    passage = documents.passage(chunk_id)
    if passage is None:
        text = QCoreApplication.translate(
            "SourceDialog", "This passage is no longer in your documents (the file was removed or changed)."
        )
        return SourceDialog(parent, QCoreApplication.translate("SourceDialog", "Source"), text, None)
    return SourceDialog(parent, passage.label(), passage.text, passage.file, passage.page)
