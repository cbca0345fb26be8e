"""The Documents place: add files or folders (picker or drag and drop), see each file's state, remove, re-index.

Indexing runs in the indexer thread (``workers.indexer``); this page shows its progress with a Cancel button and
reads the index (a separate SQLite connection) to list files. Everything shown that comes from the user's disk —
file names, paths, error details — is plain text.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QAbstractTableModel, QEvent, QModelIndex, QPersistentModelIndex, Qt, QTimer, Signal
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QProgressBar,
    QPushButton,
    QTableView,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from localmind.documents.extract import SUPPORTED_SUFFIXES
from localmind.documents.index import DEFAULT_COLLECTION, AddResult, DocumentIndex, FileRecord
from localmind.workers.indexer import IndexerService

COLUMNS = 4
PATH_ROLE = Qt.ItemDataRole.UserRole
STATE_ROLE = Qt.ItemDataRole.UserRole + 1


class FilesModel(QAbstractTableModel):
    """The indexed files, one row each; the view asks only for the rows it shows (a 1,000-file list stays cheap)."""

    def __init__(self, page: DocumentsPage) -> None:
        super().__init__(page)
        self.page = page
        self.rows: list[tuple[FileRecord, str]] = []  # (record, state shown)
        self.headers: list[str] = [""] * COLUMNS

    def set_rows(self, rows: list[tuple[FileRecord, str]]) -> None:
        self.beginResetModel()
        self.rows = rows
        self.endResetModel()

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else COLUMNS

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.headers[section]
        return None

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if not index.isValid():
            return None
        record, state = self.rows[index.row()]
        if role == PATH_ROLE:
            return record.path
        if role == STATE_ROLE:
            return state
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            column = index.column()
            if column == 0:
                return record.name if role == Qt.ItemDataRole.DisplayRole else record.path
            if column == 1:
                return self.page.collection_name(record.collection)
            if column == 2:
                return self.page.state_text(state)
            if record.state == "failed":
                return self.page.error_text(record.error_kind) or record.error
            return self.page.pieces_text(record.chunks, technical=role == Qt.ItemDataRole.ToolTipRole)
        return None


class DocumentsPage(QWidget):
    """Signals:
    get_embedding_model_requested(): the user pressed "Get search by meaning" (the model manager downloads the
    embedding model).
    """

    get_embedding_model_requested = Signal()

    def __init__(
        self,
        index: DocumentIndex,
        service: IndexerService,
        has_embedder: bool,
        parent: QWidget | None = None,
        embedder_name: str = "",
    ):
        super().__init__(parent)
        self.setObjectName("DocumentsPage")
        self.setAcceptDrops(True)
        self.index = index
        self.service = service
        self.has_embedder = has_embedder

        self.title = QLabel()
        self.title.setObjectName("PageTitle")
        self.title.setStyleSheet("font-size: 22px; font-weight: 600;")  # the theme styles PageTitle in its own pages
        self.subtitle = QLabel()
        self.subtitle.setObjectName("PageSubtitle")
        self.subtitle.setWordWrap(True)
        self.embedder_name = embedder_name  # the embedding model in use, shown when there is one
        self._make_embedder_row(has_embedder)
        tools = self._make_tools()
        self._make_progress()
        self._make_table()

        layout = QVBoxLayout(self)
        layout.setContentsMargins(32, 24, 32, 24)
        layout.setSpacing(10)
        layout.addWidget(self.title)
        layout.addWidget(self.subtitle)
        layout.addWidget(self.embedder_row)
        layout.addLayout(tools)
        layout.addWidget(self.progress_box)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.empty, 1)

        self.service.progress.connect(self.on_progress)
        self.service.busy_changed.connect(self.on_busy)
        self.service.job_finished.connect(self.on_job_finished)
        self.service.failed.connect(self.on_failed)
        # While indexing, the list is re-read now and then (not per file: a 1,000-file folder would flood the view).
        self._refresh_timer = QTimer(self)
        self._refresh_timer.setInterval(1000)
        self._refresh_timer.timeout.connect(self.refresh)
        self.last_error = ""
        self.closed = False  # the index is closed at shutdown; late signals from the indexer change nothing then
        self.retranslate()
        self.refresh()

    def _make_embedder_row(self, has_embedder: bool) -> None:
        self.embedder_note = QLabel()
        self.embedder_note.setObjectName("NoticeText")
        self.embedder_note.setWordWrap(True)
        self.embedder_note.setTextFormat(Qt.TextFormat.PlainText)
        self.get_embedder_button = QPushButton()
        self.get_embedder_button.setObjectName("SecondaryButton")
        self.get_embedder_button.clicked.connect(self.get_embedding_model_requested)
        # The technical words (the embedding model, passages) one click away, for whoever wants them (issue 21).
        self.details_button = QToolButton()
        self.details_button.setObjectName("GhostButton")
        self.details_button.setCheckable(True)
        self.details_button.toggled.connect(self._show_details)
        self.details_button.setStyleSheet("#GhostButton { padding-left: 0px; }")  # its text lines up with the note's
        self.details = QLabel()
        self.details.setObjectName("CardText")  # muted, as the welcome cards' details
        self.details.setWordWrap(True)
        self.details.setTextFormat(Qt.TextFormat.PlainText)
        self.details.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.details.hide()
        self.embedder_row = QWidget()
        column = QVBoxLayout(self.embedder_row)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(2)
        embedder_layout = QHBoxLayout()
        embedder_layout.addWidget(self.embedder_note, 1)
        embedder_layout.addWidget(self.get_embedder_button, 0, Qt.AlignmentFlag.AlignVCenter)
        column.addLayout(embedder_layout)
        column.addWidget(self.details_button, 0, Qt.AlignmentFlag.AlignLeft)
        column.addWidget(self.details)
        self.get_embedder_button.setVisible(not has_embedder)

    def _show_details(self, shown: bool) -> None:
        self.details.setVisible(shown)
        label = self.tr("Details")
        self.details_button.setText(("▾ " if shown else "▸ ") + label)
        self.details_button.setAccessibleName(label)

    def _make_tools(self) -> QVBoxLayout:
        """Two rows (adding; the collection and what to do with the selected files): one row was wider than the
        window at 150 %, which then scrolled sideways and cut the text mid-word."""
        self.add_files_button = QPushButton()
        self.add_files_button.setObjectName("PrimaryButton")
        self.add_files_button.clicked.connect(self.choose_files)
        self.add_folder_button = QPushButton()
        self.add_folder_button.setObjectName("SecondaryButton")
        self.add_folder_button.clicked.connect(self.choose_folder)
        self.collection_label = QLabel()
        self.collection = QComboBox()
        self.collection.setEditable(True)
        self.collection.setMinimumWidth(120)
        self.reindex_button = QPushButton()
        self.reindex_button.setObjectName("SecondaryButton")
        self.reindex_button.clicked.connect(self.reindex_selected)
        self.remove_button = QPushButton()
        self.remove_button.setObjectName("SecondaryButton")
        self.remove_button.clicked.connect(self.remove_selected)

        adding = QHBoxLayout()
        adding.addWidget(self.add_files_button)
        adding.addWidget(self.add_folder_button)
        adding.addStretch(1)
        managing = QHBoxLayout()
        managing.addWidget(self.collection_label)
        managing.addWidget(self.collection)
        managing.addStretch(1)
        managing.addWidget(self.reindex_button)
        managing.addWidget(self.remove_button)
        tools = QVBoxLayout()
        tools.addLayout(adding)
        tools.addLayout(managing)
        return tools

    def _make_progress(self) -> None:
        self.progress = QProgressBar()
        self.progress.setObjectName("BusyBar")
        self.progress.setTextVisible(False)
        self.progress.setMaximumHeight(6)
        self.progress_label = QLabel()
        self.progress_label.setTextFormat(Qt.TextFormat.PlainText)
        self.cancel_button = QPushButton()
        self.cancel_button.setObjectName("SecondaryButton")
        self.cancel_button.clicked.connect(self.service.cancel)
        progress_row = QHBoxLayout()
        progress_row.addWidget(self.progress_label, 1)
        progress_row.addWidget(self.cancel_button)
        self.progress_box = QWidget()
        box = QVBoxLayout(self.progress_box)
        box.setContentsMargins(0, 0, 0, 0)
        box.addLayout(progress_row)
        box.addWidget(self.progress)
        self.progress_box.setVisible(False)

    def _make_table(self) -> None:
        self.files = FilesModel(self)
        self.table = QTableView()
        self.table.setModel(self.files)
        self.table.setObjectName("DocumentsTable")
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.setShowGrid(False)
        self.table.setWordWrap(False)
        self.table.setAlternatingRowColors(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)  # the details (an error says why a file failed) get what is left
        header.resizeSection(0, 280)
        header.resizeSection(1, 110)
        header.resizeSection(2, 90)
        self.table.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.empty = QLabel()
        self.empty.setObjectName("EmptyHint")
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setWordWrap(True)

    # -- adding ----------------------------------------------------------------------------------------------
    def collection_name(self, name: str) -> str:
        """A collection as shown: the default one in the UI's language (the index keeps "default")."""
        return self.tr("General") if name == DEFAULT_COLLECTION else name

    def current_collection(self) -> str:
        text = self.collection.currentText().strip()
        index = self.collection.findText(text)
        if index >= 0 and self.collection.itemData(index):
            return str(self.collection.itemData(index))
        return text or DEFAULT_COLLECTION

    def add_paths(self, paths: list[str]) -> None:
        if paths:
            self.service.submit("add", paths, self.current_collection())

    def choose_files(self) -> None:
        patterns = " ".join(f"*{s}" for s in sorted(SUPPORTED_SUFFIXES))
        files, _ = QFileDialog.getOpenFileNames(
            self, self.tr("Add documents"), str(Path.home()), self.tr("Documents (%1)").replace("%1", patterns)
        )
        self.add_paths(files)

    def choose_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, self.tr("Add a folder"), str(Path.home()))
        if folder:
            self.add_paths([folder])

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasUrls() and any(u.isLocalFile() for u in event.mimeData().urls()):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        self.add_paths([u.toLocalFile() for u in event.mimeData().urls() if u.isLocalFile()])
        event.acceptProposedAction()

    # -- selection actions -----------------------------------------------------------------------------------
    def selected_paths(self) -> list[str]:
        rows = sorted({i.row() for i in self.table.selectionModel().selectedRows()})
        return [self.files.rows[r][0].path for r in rows if r < len(self.files.rows)]

    def remove_selected(self) -> None:
        paths = self.selected_paths()
        if paths:
            self.service.submit("remove", paths)

    def reindex_selected(self) -> None:
        paths = self.selected_paths() or [r.path for r in self.index.files()]
        if paths:
            self.service.submit("reindex", paths)

    # -- progress --------------------------------------------------------------------------------------------
    def on_busy(self, busy: bool) -> None:
        self.progress_box.setVisible(busy)
        self.cancel_button.setEnabled(True)
        if busy:
            self.progress.setRange(0, 0)
            self.progress_label.setText(self.tr("Preparing…"))
            self._refresh_timer.start()
        else:
            self._refresh_timer.stop()
            self.refresh()

    def on_progress(self, done: int, total: int, name: str) -> None:
        self.progress.setRange(0, max(total, 1))
        self.progress.setValue(done)
        self.progress_label.setText(self.tr("Indexing %1 of %2: %3").replace("%1", str(min(done + 1, total)))
                                    .replace("%2", str(total)).replace("%3", name))  # fmt: skip

    def on_job_finished(self, result: AddResult, cancelled: bool) -> None:
        self.service.watch(self.index.folders())
        if cancelled:
            self.progress_label.setText(self.tr("Stopped. Files not indexed yet are picked up next time."))

    def on_failed(self, message: str) -> None:
        self.last_error = message
        self.progress_label.setText(self.tr("Indexing stopped: %1").replace("%1", message))

    # -- the list --------------------------------------------------------------------------------------------
    def state_text(self, state: str) -> str:
        return {
            "indexed": self.tr("Indexed"),
            "changed": self.tr("Changed"),
            "failed": self.tr("Failed"),
            "pending": self.tr("Waiting"),
        }.get(state, state)

    def error_text(self, kind: str) -> str:
        """Why a file failed, in the UI language (the index keeps the English message as well)."""
        return {
            "no_text": self.tr(
                "No text found: it looks like a scan. Run text recognition (OCR) on it, then add it again."
            ),
            "empty": self.tr("No text found: the file is empty."),
            "damaged": self.tr("The file looks damaged. Save a fresh copy from its own program and add that."),
            "password": self.tr("The PDF is password-protected. Save a copy without the password and add that."),
            "unsupported": self.tr("This kind of file is not supported."),
            "too_large": self.tr("Too large to index. Split it into smaller files and add those."),
            "binary": self.tr("This is not text: the file holds binary data (a program, a picture or an archive)."),
            "garbled": self.tr(
                "The PDF's text comes out as gibberish (its fonts do not say which letters they draw)."
                " Print it to a new PDF or run text recognition (OCR), then add that copy."
            ),
        }.get(kind, "")

    def refresh(self) -> None:
        if self.closed:
            return
        records = self.index.files()
        busy = self.service.busy  # while indexing, "changed" is not worked out (a stat per file, every second)
        self.files.set_rows(
            [(r, "changed" if not busy and r.state == "indexed" and self.index.stale(r) else r.state) for r in records]
        )
        has_files = bool(records)
        self.table.setVisible(has_files)
        self.empty.setVisible(not has_files)
        self.reindex_button.setEnabled(has_files)
        self.remove_button.setEnabled(has_files)
        names = [self.collection.itemData(i) for i in range(self.collection.count())]
        for name in [DEFAULT_COLLECTION, *self.index.collections()]:
            if name not in names:
                self.collection.addItem(self.collection_name(name), name)
                names.append(name)

    def set_has_embedder(self, has: bool, name: str = "") -> None:
        self.has_embedder = has
        self.embedder_name = name
        self.get_embedder_button.setVisible(not has)
        self.get_embedder_button.setEnabled(True)
        self._embedder_text()

    def set_embedder_downloading(self) -> None:
        """The download was started in the model manager: say where its progress is, and do not start it twice."""
        self.get_embedder_button.setEnabled(False)
        self.embedder_note.setText(
            self.tr("Downloading search by meaning: its progress is on the Models page. Searching by words until then.")
        )

    def _embedder_text(self) -> None:
        """Plain words in the note; the technical ones (the embedding model and its name) under Details."""
        if self.has_embedder:
            text = self.tr("Search by meaning is on, together with search by words.")
            details = self.tr(
                "Search by meaning uses an embedding model that runs on this computer: {name}. Each file is split "
                "into pieces of text (passages); a question finds them by their words and by their meaning."
            ).format(name=self.embedder_name or "?")
        else:
            text = self.tr(
                "Searching by words only. Search by meaning also finds text worded differently from your question, "
                "or in another language (a download of about 140 MB)."
            )
            details = self.tr(
                "Search by meaning uses an embedding model that runs on this computer: multilingual-e5-small, about "
                "140 MB. Each file is split into pieces of text (passages); without the model they are found by "
                "keyword search."
            )
        self.embedder_note.setText(text)
        self.details.setText(details)

    def pieces_text(self, count: int, technical: bool = False) -> str:
        """How many pieces of text a file was split into (its passages, the technical word, in the tooltip)."""
        if technical:
            return self.tr("Passages (pieces of text searched and quoted): %1").replace("%1", str(count))
        if count == 1:
            return self.tr("1 piece of text")
        return self.tr("%1 pieces of text").replace("%1", str(count))

    # -- language --------------------------------------------------------------------------------------------
    def retranslate(self) -> None:
        self.title.setText(self.tr("Documents"))
        self.subtitle.setText(
            self.tr(
                "Add files or folders and LocalMind answers from them when “Use my documents” is on in a chat. "
                "They are read and indexed on this computer and never leave it. "
                "PDF, Word (.docx), HTML, Markdown and text files. Drop them here or use the buttons."
            )
        )
        self.get_embedder_button.setText(self.tr("Get search by meaning"))
        self.get_embedder_button.setToolTip(self.tr("Downloads the embedding model (about 140 MB) on the Models page"))
        self._show_details(self.details_button.isChecked())
        if self.get_embedder_button.isEnabled():
            self._embedder_text()
        self.add_files_button.setText(self.tr("Add files…"))
        self.add_folder_button.setText(self.tr("Add folder…"))
        # "Group" in the words shown; a collection (the index's word) in the tooltip.
        self.collection_label.setText(self.tr("Add to group:"))
        group_tip = self.tr(
            "Files are added to this group (a collection). “Use my documents” in a chat can answer from all groups "
            "or from the ones you choose. Type a new name to start a group."
        )
        self.collection_label.setToolTip(group_tip)
        self.collection.setToolTip(group_tip)
        self.collection.setAccessibleName(self.tr("Group"))
        if (line := self.collection.lineEdit()) is not None:
            line.setAccessibleName(self.tr("Group"))
        for i in range(self.collection.count()):  # the default collection's name follows the language
            if self.collection.itemData(i) == DEFAULT_COLLECTION:
                self.collection.setItemText(i, self.collection_name(DEFAULT_COLLECTION))
        self.reindex_button.setText(self.tr("Re-index"))
        self.remove_button.setText(self.tr("Remove"))
        self.cancel_button.setText(self.tr("Cancel"))
        self.files.headers = [self.tr("File"), self.tr("Group"), self.tr("State"), self.tr("Details")]
        self.files.headerDataChanged.emit(Qt.Orientation.Horizontal, 0, COLUMNS - 1)
        self.empty.setText(self.tr("No documents yet. Drop files or a folder here, or use Add files…"))
        self.refresh()

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)
