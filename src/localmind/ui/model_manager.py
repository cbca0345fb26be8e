"""The model manager page: the catalog with fit hints, downloads with progress, installed models.

Everything slow (downloads, hashing, imports, asking the Hub) runs through a
:class:`DownloadController` in worker threads; this page only shows state and
turns clicks into requests. ``load_requested(model_dir)`` asks the main window
to load a verified model in the chat.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication, QEvent, QSize, Qt, QUrl, Signal, Slot
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFileDialog,
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QLineEdit,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from localmind.core import secrets
from localmind.core.catalog import CatalogEntry, Fit, MachineInfo, fit_hint, load_catalog, machine_info, recommend
from localmind.core.hub import (
    DownloadProgress,
    DownloadRequest,
    HubSettings,
    InstalledModel,
    Manifest,
    RepoListing,
    VerifyReport,
    default_model_id,
    discard_unfinished,
    empty_trash,
    import_folder,
    import_zip,
    list_installed,
    list_repo,
    list_unfinished,
    remove_model,
    request_for_catalog,
    verify_model,
)
from localmind.models.plain_text import tooltip
from localmind.ui.dialogs import ask_import_mode
from localmind.ui.i18n import current_language
from localmind.workers.download import FAILURE_AUTH, DownloadController, Failure


def _size(n: float) -> str:
    for unit in ("B", "kB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    return ""


def _duration(seconds: float | None) -> str:
    if seconds is None:
        return "–"
    s = int(seconds)
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"


class _WholeTable(QTableWidget):
    """A short table shown whole: as tall as its rows, never a box scrolled inside the scrolled page.

    The height is asked for at layout time, so it follows the theme's fonts and paddings.
    """

    def __init__(self, columns: int) -> None:
        super().__init__(0, columns)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)

    def _content_height(self) -> int:
        rows = sum(self.rowHeight(r) for r in range(self.rowCount())) or self.verticalHeader().defaultSectionSize()
        bar = self.horizontalScrollBar()
        scrollbar = bar.sizeHint().height() if bar.maximum() > 0 else 0
        return rows + self.horizontalHeader().sizeHint().height() + 2 * self.frameWidth() + scrollbar

    def sizeHint(self) -> QSize:
        return QSize(super().sizeHint().width(), self._content_height())

    def minimumSizeHint(self) -> QSize:
        return QSize(super().minimumSizeHint().width(), self._content_height())

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.Type.StyleChange, QEvent.Type.FontChange):
            self.updateGeometry()


class DownloadRow(QWidget):
    """One download: name, bar, bytes/speed/ETA or what went wrong, and its buttons."""

    pause_clicked = Signal(str)
    resume_clicked = Signal(str)
    cancel_clicked = Signal(str)

    def __init__(self, key: str, name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.key = key
        self.name = QLabel(name)
        self.name.setTextFormat(Qt.TextFormat.PlainText)  # a repo id or file name: text, never HTML
        self.bar = QProgressBar()
        self.bar.setRange(0, 1000)
        self.bar.setTextVisible(False)  # the line below says how far, in bytes and time
        self.detail = QLabel()
        self.detail.setTextFormat(Qt.TextFormat.PlainText)
        self.detail.setObjectName("DownloadDetail")
        self.detail.setWordWrap(True)
        self.pause_button = QPushButton()
        self.resume_button = QPushButton()
        self.cancel_button = QPushButton()
        self.pause_button.clicked.connect(lambda: self.pause_clicked.emit(self.key))
        self.resume_button.clicked.connect(lambda: self.resume_clicked.emit(self.key))
        self.cancel_button.clicked.connect(lambda: self.cancel_clicked.emit(self.key))
        top = QHBoxLayout()
        top.addWidget(self.name, 1)
        for button in (self.pause_button, self.resume_button, self.cancel_button):
            top.addWidget(button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 4)
        layout.addLayout(top)
        layout.addWidget(self.bar)
        layout.addWidget(self.detail)
        self.retranslate()
        self.set_running(True)

    def retranslate(self) -> None:
        self.pause_button.setText(self.tr("Pause"))
        self.resume_button.setText(self.tr("Resume"))
        self.cancel_button.setText(self.tr("Cancel"))

    def set_running(self, running: bool) -> None:
        self.pause_button.setVisible(running)
        self.resume_button.setVisible(not running)

    def show_progress(self, p: DownloadProgress) -> None:
        self.set_running(True)
        self.bar.setValue(int(1000 * p.fraction))
        if p.phase == "listing":
            text = self.tr("Asking Hugging Face for the file list…")
        elif p.phase in ("installing", "done"):
            text = self.tr("Installing…")
        else:
            text = self.tr("{done} of {total} · {speed}/s · {eta} left · file {n} of {count}").format(
                done=_size(p.done_bytes),
                total=_size(p.total_bytes),
                speed=_size(p.speed_bps),
                eta=_duration(p.eta_s),
                n=min(p.files_done + 1, p.files_total),
                count=p.files_total,
            )
        if p.status:
            text += "\n" + p.status
        self.detail.setText(text)

    def show_stopped(self, text: str, done: int = 0, total: int = 0) -> None:
        self.set_running(False)
        if total:
            self.bar.setValue(int(1000 * done / total))
        self.detail.setText(text)


class ModelManagerPage(QWidget):
    """Find, download, verify, import and remove models.

    Signals:
        load_requested(str): the folder of an installed, healthy model to load in the chat.
    """

    load_requested = Signal(str)

    def __init__(
        self,
        parent: QWidget | None = None,
        *,
        controller: DownloadController | None = None,
        settings: HubSettings | None = None,
        catalog: list[CatalogEntry] | None = None,
        machine: MachineInfo | None = None,
        confirm: Callable[[str, str], bool] | None = None,
        ask_token: Callable[[], str | None] | None = None,
        open_folder: Callable[[Path], None] | None = None,
        device: str = "cpu",
    ) -> None:
        super().__init__(parent)
        self.controller = controller or DownloadController(settings, self)
        self.catalog = catalog if catalog is not None else load_catalog()
        self.machine = machine or machine_info()
        self.device = device
        self._confirm = confirm or self._confirm_dialog
        self._ask_import_mode = ask_import_mode
        self._ask_token = ask_token or self._token_dialog
        self._open_folder = open_folder or (lambda path: QDesktopServices.openUrl(QUrl.fromLocalFile(str(path))))
        self._settings = settings
        self.rows: dict[str, DownloadRow] = {}
        self._requests: dict[str, DownloadRequest] = {}
        self._installed: list[InstalledModel] = []
        self._listing: RepoListing | None = None
        self._failed_key: str | None = None
        self.recommended: CatalogEntry | None = None
        empty_trash()  # what an interrupted delete left behind
        self._build()
        self.retranslate()
        c = self.controller
        c.progress.connect(self._on_progress)
        c.download_succeeded.connect(self._on_download_succeeded)
        c.download_failed.connect(self._on_download_failed)
        c.download_stopped.connect(self._on_download_stopped)
        c.task_succeeded.connect(self._on_task_succeeded)
        c.task_failed.connect(self._on_task_failed)
        app = QCoreApplication.instance()
        if app is not None:
            # Downloads running at exit are paused, not lost: they resume from the next start.
            app.aboutToQuit.connect(self.controller.shutdown)

    # -- building ---------------------------------------------------------------------------------------------------
    def _build(self) -> None:
        self.setObjectName("ModelManager")
        self.title = QLabel()
        self.title.setObjectName("PageTitle")
        self.machine_label = QLabel()
        self.machine_label.setObjectName("PageSubtitle")
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.token_button = QPushButton()
        self.token_button.hide()
        self.token_button.clicked.connect(self.enter_token)

        self.recommended_box = QGroupBox()
        self.recommended_label = QLabel()
        self.recommended_label.setWordWrap(True)
        self.recommended_button = QPushButton()
        self.recommended_button.setObjectName("PrimaryButton")
        self.recommended_button.clicked.connect(self.download_recommended)
        box = QHBoxLayout(self.recommended_box)
        box.addWidget(self.recommended_label, 1)
        box.addWidget(self.recommended_button)

        self.catalog_box = QGroupBox()
        self.catalog_table = self._table(5)
        self.catalog_download = QPushButton()
        self.catalog_download.clicked.connect(self.download_selected_catalog_entry)
        self.catalog_page = QPushButton()
        self.catalog_page.clicked.connect(self._open_model_page)
        self._vbox(self.catalog_box, self.catalog_table, self._hbox(self.catalog_download, self.catalog_page))

        self.repo_box = QGroupBox()
        self.repo_input = QLineEdit()
        self.repo_input.returnPressed.connect(self.find_repo)
        self.repo_find = QPushButton()
        self.repo_find.clicked.connect(self.find_repo)
        self.repo_folders = QComboBox()
        self.repo_folders.setEnabled(False)
        self.repo_download = QPushButton()
        self.repo_download.setEnabled(False)
        self.repo_download.clicked.connect(self.download_repo_folder)
        self._vbox(
            self.repo_box,
            self._hbox(self.repo_input, self.repo_find),
            self._hbox(self.repo_folders, self.repo_download),
        )

        self.downloads_box = QGroupBox()
        self.downloads_layout = QVBoxLayout(self.downloads_box)
        self.downloads_empty = QLabel()
        self.downloads_layout.addWidget(self.downloads_empty)

        self.installed_box = QGroupBox()
        self.installed_table = self._table(4)
        self.load_button = QPushButton()
        self.load_button.clicked.connect(self.load_selected)
        self.verify_button = QPushButton()
        self.verify_button.clicked.connect(self.verify_selected)
        self.open_button = QPushButton()
        self.open_button.clicked.connect(self.open_selected_folder)
        self.delete_button = QPushButton()
        self.delete_button.clicked.connect(self.delete_selected)
        self.import_folder_button = QPushButton()
        self.import_folder_button.clicked.connect(self._pick_folder)
        self.import_zip_button = QPushButton()
        self.import_zip_button.clicked.connect(self._pick_zip)
        buttons = self._hbox(
            self.load_button,
            self.verify_button,
            self.open_button,
            self.delete_button,
            None,
            self.import_folder_button,
            self.import_zip_button,
        )
        self._vbox(self.installed_box, self.installed_table, buttons)
        self.installed_table.itemSelectionChanged.connect(self._update_buttons)

        content = QWidget()
        content.setObjectName("ModelManagerContent")
        layout = QVBoxLayout(content)
        layout.setContentsMargins(28, 20, 28, 28)
        layout.setSpacing(10)
        for widget in (
            self.title,
            self.machine_label,
            self.message,
            self.token_button,
            self.recommended_box,
            self.downloads_box,
            self.installed_box,
            self.catalog_box,
            self.repo_box,
        ):
            layout.addWidget(widget)
        layout.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(content)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(scroll)

    @staticmethod
    def _table(columns: int) -> QTableWidget:
        table = _WholeTable(columns)
        table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        table.verticalHeader().hide()
        table.setShowGrid(False)
        table.setWordWrap(False)
        header = table.horizontalHeader()
        header.setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        header.setHighlightSections(False)
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        return table

    @staticmethod
    def _hbox(*widgets: QWidget | None) -> QHBoxLayout:
        row = QHBoxLayout()
        for widget in widgets:
            if widget is None:
                row.addStretch(1)
            else:
                row.addWidget(widget)
        return row

    @staticmethod
    def _vbox(parent: QWidget, *items: QWidget | QHBoxLayout) -> None:
        column = QVBoxLayout(parent)
        for item in items:
            if isinstance(item, QHBoxLayout):
                column.addLayout(item)
            else:
                column.addWidget(item)

    def retranslate(self) -> None:
        self.title.setText(self.tr("Models"))
        self.token_button.setText(self.tr("Enter a Hugging Face token…"))
        self.recommended_box.setTitle(self.tr("Recommended to start"))
        self.recommended_button.setText(self.tr("Download"))
        self.catalog_box.setTitle(self.tr("Ready-to-run models"))
        self.catalog_table.setHorizontalHeaderLabels(
            [self.tr("Model"), self.tr("Download"), self.tr("Memory"), self.tr("On this computer"), self.tr("Licence")]
        )
        self.catalog_download.setText(self.tr("Download"))
        self.catalog_page.setText(self.tr("Model page"))
        self.repo_box.setTitle(self.tr("Add a model from Hugging Face"))
        self.repo_input.setPlaceholderText(self.tr("owner/model, e.g. microsoft/Phi-3.5-mini-instruct-onnx"))
        self.repo_find.setText(self.tr("Find"))
        self.repo_download.setText(self.tr("Download this folder"))
        self.downloads_box.setTitle(self.tr("Downloads"))
        self.downloads_empty.setText(self.tr("No downloads."))
        self.installed_box.setTitle(self.tr("Installed models"))
        self.installed_table.setHorizontalHeaderLabels(
            [self.tr("Model"), self.tr("Size"), self.tr("From"), self.tr("Status")]
        )
        self.load_button.setText(self.tr("Load in chat"))
        self.verify_button.setText(self.tr("Verify"))
        self.open_button.setText(self.tr("Open folder"))
        self.delete_button.setText(self.tr("Delete…"))
        self.import_folder_button.setText(self.tr("Import folder…"))
        self.import_zip_button.setText(self.tr("Import .zip…"))
        for row in self.rows.values():
            row.retranslate()
        self.refresh()

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    # -- state shown --------------------------------------------------------------------------------------------------
    def fit_text(self, entry: CatalogEntry) -> str:
        fit = fit_hint(entry, self.machine, self.device).fit
        return {
            Fit.GOOD: self.tr("Fits"),
            Fit.TIGHT: self.tr("Fits, but tight: close other programs"),
            Fit.TOO_BIG: self.tr("Too big for this computer's memory"),
            Fit.NO_DISK: self.tr("Not enough free disk space"),
        }[fit]

    def source_text(self, manifest: Manifest) -> str:
        """Where an installed model came from, in the UI language (the terminal's wording is English)."""
        if manifest.source == "hub" and manifest.repo:
            return manifest.repo + (f" ({manifest.folder})" if manifest.folder else "")
        if manifest.source == "reference":
            return self.tr("Used in place from {path}").format(path=manifest.origin_path)
        return self.tr("Imported from {path}").format(path=manifest.origin_path)

    def refresh(self) -> None:
        ram = _size(self.machine.total_ram_bytes) if self.machine.total_ram_bytes else self.tr("unknown")
        disk = _size(self.machine.free_disk_bytes) if self.machine.free_disk_bytes is not None else self.tr("unknown")
        self.machine_label.setText(
            self.tr("This computer: {ram} memory, {disk} free disk space.").format(ram=ram, disk=disk)
        )
        # The UI language, not the OS locale: a Chinese UI on an English system shows Chinese descriptions.
        language = current_language()
        pick = recommend(self.catalog, self.machine, self.device)
        self.recommended = pick
        self.recommended_box.setVisible(pick is not None)
        if pick is not None:
            self.recommended_label.setText(
                self.tr("{name} ({size}) — {description}").format(
                    name=pick.name,
                    size=_size(pick.variant_for(self.device).download_bytes),
                    description=pick.description_for(language),
                )
            )
        self.catalog_table.setRowCount(len(self.catalog))
        for i, entry in enumerate(self.catalog):
            variant = entry.variant_for(self.device)
            name = entry.name + ("  ★" if pick is not None and entry.id == pick.id else "")
            cells = [name, _size(variant.download_bytes), _size(variant.ram_bytes), self.fit_text(entry), entry.licence]
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(entry.description_for(language))
                item.setData(Qt.ItemDataRole.UserRole, entry.id)
                self.catalog_table.setItem(i, column, item)
        self.catalog_table.updateGeometry()
        self._installed = list_installed()
        self.installed_table.setRowCount(len(self._installed))
        for i, model in enumerate(self._installed):
            status = self.tr("Ready") if model.ok else self.tr("Damaged: {problem}").format(problem=model.problem)
            size = _size(model.size_on_disk) if model.size_on_disk else self.tr("used in place")
            for column, text in enumerate([model.name, size, self.source_text(model.manifest), status]):
                item = QTableWidgetItem(text)
                item.setToolTip(tooltip(model.manifest.describe_source()) if column == 2 else "")
                item.setData(Qt.ItemDataRole.UserRole, model.id)
                self.installed_table.setItem(i, column, item)
        self.installed_table.updateGeometry()
        for unfinished in list_unfinished():
            if unfinished.model_id not in self.rows:
                row = self._add_row(unfinished.model_id, unfinished.name, unfinished.request())
                row.show_stopped(
                    self.tr("Paused — resume to continue where it stopped."),
                    unfinished.done_bytes,
                    unfinished.total_bytes,
                )
        self._update_buttons()

    def _update_buttons(self) -> None:
        model = self.selected_installed()
        for button in (self.verify_button, self.open_button, self.delete_button):
            button.setEnabled(model is not None)
        self.load_button.setEnabled(model is not None and model.ok)
        self.downloads_empty.setVisible(not self.rows)

    def show_message(self, text: str, *, error: bool = False, offer_token: bool = False) -> None:
        self.message.setProperty("error", error)
        self.message.setText(text)
        self.token_button.setVisible(offer_token)

    # -- selection ----------------------------------------------------------------------------------------------------
    def _selected_id(self, table: QTableWidget) -> str | None:
        items = table.selectedItems()
        return str(items[0].data(Qt.ItemDataRole.UserRole)) if items else None

    def selected_installed(self) -> InstalledModel | None:
        model_id = self._selected_id(self.installed_table)
        return next((m for m in self._installed if m.id == model_id), None)

    def select_installed(self, model_id: str) -> None:
        for i, model in enumerate(self._installed):
            if model.id == model_id:
                self.installed_table.selectRow(i)

    def select_catalog_entry(self, entry_id: str) -> None:
        for i, entry in enumerate(self.catalog):
            if entry.id == entry_id:
                self.catalog_table.selectRow(i)

    # -- downloads ------------------------------------------------------------------------------------------------------
    def _add_row(self, key: str, name: str, request: DownloadRequest) -> DownloadRow:
        row = DownloadRow(key, name)
        row.pause_clicked.connect(self.controller.pause)
        row.resume_clicked.connect(self.resume_download)
        row.cancel_clicked.connect(self.cancel_download)
        self.rows[key] = row
        self._requests[key] = request
        self.downloads_layout.addWidget(row)
        self._update_buttons()
        return row

    def start_download(self, request: DownloadRequest) -> str | None:
        key = request.model_id or default_model_id(request.repo, request.folder or "")
        if any(m.id == key for m in self._installed):
            self.show_message(self.tr("{name} is already installed.").format(name=key))
            return None
        if self.controller.is_running(key):
            return key
        if request.model_id is None:
            request = DownloadRequest(
                request.repo, request.revision, request.folder, key, request.name, request.fallback_device
            )
        row = self.rows.get(key) or self._add_row(key, request.name or key, request)
        self._requests[key] = request
        row.detail.setText(self.tr("Starting…"))
        row.set_running(True)
        self.controller.start_download(key, request, secrets.get_token)  # asked in the worker: the keyring may block
        self.show_message("")
        return key

    def download_recommended(self) -> None:
        if self.recommended is not None:
            self.start_download(request_for_catalog(self.recommended, self.device))

    def download_selected_catalog_entry(self) -> None:
        entry_id = self._selected_id(self.catalog_table)
        entry = next((e for e in self.catalog if e.id == entry_id), None)
        if entry is None:
            self.show_message(self.tr("Pick a model in the list first."))
            return
        hint = fit_hint(entry, self.machine, self.device)
        if not hint.usable and not self._confirm(self.tr("Download anyway?"), self.fit_text(entry)):
            return
        self.start_download(request_for_catalog(entry, self.device))

    @Slot(str)
    def resume_download(self, key: str) -> None:
        request = self._requests.get(key)
        if request is not None:
            self.start_download(request)

    @Slot(str)
    def cancel_download(self, key: str) -> None:
        if self.controller.is_running(key):
            self.controller.cancel(key)
            return
        self.controller.run_task(f"discard:{key}", lambda: discard_unfinished(key))
        self._remove_row(key)

    def _remove_row(self, key: str) -> None:
        row = self.rows.pop(key, None)
        self._requests.pop(key, None)
        if row is not None:
            row.setParent(None)
            row.deleteLater()
        self._update_buttons()

    @Slot(str, object)
    def _on_progress(self, key: str, progress: DownloadProgress) -> None:
        row = self.rows.get(key)
        if row is not None:
            row.show_progress(progress)

    @Slot(str, object)
    def _on_download_succeeded(self, key: str, model: InstalledModel) -> None:
        self._remove_row(key)
        self.refresh()
        self.select_installed(model.id)
        self.show_message(
            self.tr("{name} is installed and verified. Select it and press “Load in chat”.").format(name=model.name)
        )

    @Slot(str, object)
    def _on_download_failed(self, key: str, failure: Failure) -> None:
        row = self.rows.get(key)
        if row is not None:
            row.show_stopped(self.tr("Stopped: {reason}").format(reason=failure.message))
        self.show_message(failure.message, error=True, offer_token=failure.kind == FAILURE_AUTH)
        self._failed_key = key

    @Slot(str, str)
    def _on_download_stopped(self, key: str, reason: str) -> None:
        if reason == "cancel":
            self._remove_row(key)
            self.show_message(self.tr("Download cancelled; its partial files were deleted."))
        elif key in self.rows:
            self.rows[key].show_stopped(self.tr("Paused — resume to continue where it stopped."))

    def enter_token(self) -> None:
        token = self._ask_token()
        if not token:
            return
        where = secrets.set_token(token)
        if where is secrets.TokenStore.KEYRING:
            note = self.tr("Token saved in the system keyring.")
        else:
            note = self.tr(
                "No system keyring was found: the token is kept only until LocalMind closes (it is never written to a file)."
            )
        self.show_message(note)
        key = self._failed_key
        if key is not None and key in self._requests:
            self.start_download(self._requests[key])

    # -- add by repo id ----------------------------------------------------------------------------------------------
    def find_repo(self) -> None:
        repo = self.repo_input.text().strip()
        if not repo:
            return
        self.repo_folders.clear()
        self.repo_folders.setEnabled(False)
        self.repo_download.setEnabled(False)
        self.show_message(self.tr("Looking up {repo}…").format(repo=repo))
        settings = self._settings  # the keyring is asked in the worker thread: it may block
        self.controller.run_task("list-repo", lambda: list_repo(repo, token=secrets.get_token(), settings=settings))

    def _show_listing(self, listing: RepoListing) -> None:
        self._listing = listing
        folders = listing.model_folders()
        if not folders:
            self.show_message(
                self.tr("{repo} holds no onnxruntime-genai model (no genai_config.json).").format(repo=listing.repo),
                error=True,
            )
            return
        for folder in folders:
            label = f"{folder or self.tr('(repo root)')} — {_size(listing.size_of(folder))}"
            self.repo_folders.addItem(label, folder)
        cpu = next((i for i, f in enumerate(folders) if "cpu" in f.lower()), 0)
        self.repo_folders.setCurrentIndex(cpu)
        self.repo_folders.setEnabled(True)
        self.repo_download.setEnabled(True)
        self.show_message(self.tr("Pick the folder for your device (a cpu folder runs everywhere) and download it."))

    def download_repo_folder(self) -> None:
        if self._listing is None or self.repo_folders.currentIndex() < 0:
            return
        folder = str(self.repo_folders.currentData())
        self.start_download(DownloadRequest(self._listing.repo, self._listing.commit, folder))

    # -- installed models ------------------------------------------------------------------------------------------------
    def load_selected(self) -> None:
        model = self.selected_installed()
        if model is None:
            return
        if not model.ok:
            self.show_message(
                self.tr("{name} is damaged ({problem}). Verify it, or delete it and download it again.").format(
                    name=model.name, problem=model.problem
                ),
                error=True,
            )
            return
        self.load_requested.emit(str(model.model_path))

    def verify_selected(self) -> None:
        model = self.selected_installed()
        if model is not None:
            self.show_message(self.tr("Verifying {name}…").format(name=model.name))
            self.controller.run_task(f"verify:{model.id}", lambda: verify_model(model.id))

    def open_selected_folder(self) -> None:
        model = self.selected_installed()
        if model is not None:
            self._open_folder(model.model_path)

    def delete_selected(self) -> None:
        model = self.selected_installed()
        if model is None:
            return
        if model.manifest.source == "reference":
            detail = self.tr("LocalMind forgets it; the files in {path} stay where they are.").format(
                path=model.model_path
            )
        else:
            detail = self.tr("This deletes {size} from {path}.").format(
                size=_size(model.size_on_disk), path=model.folder
            )
        if self._confirm(self.tr("Delete {name}?").format(name=model.name), detail):
            self.controller.run_task(f"remove:{model.id}", lambda: remove_model(model.id))

    def import_path(self, path: str, *, copy: bool = True) -> None:
        self.show_message(self.tr("Importing {path}…").format(path=path))
        if path.lower().endswith(".zip"):
            self.controller.run_task(f"import:{path}", lambda: import_zip(path))
        else:
            self.controller.run_task(f"import:{path}", lambda: import_folder(path, copy=copy))

    def _pick_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, self.tr("Import a model folder"))
        if folder:
            # The question with Cancel; Esc cancels (it used to mean "No" = import in place) (issue 9.8).
            mode = self._ask_import_mode(self, folder)
            if mode is not None:
                self.import_path(folder, copy=mode == "copy")

    def _pick_zip(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, self.tr("Import a zipped model"), "", self.tr("Zip files (*.zip)"))
        if path:
            self.import_path(path)

    def _open_model_page(self) -> None:
        entry_id = self._selected_id(self.catalog_table)
        entry = next((e for e in self.catalog if e.id == entry_id), None)
        if entry is not None:
            QDesktopServices.openUrl(QUrl(entry.page_url))

    @Slot(str, object)
    def _on_task_succeeded(self, key: str, result: Any) -> None:
        kind = key.split(":", 1)[0]
        if key == "list-repo":
            self._show_listing(result)
            return
        if kind == "verify" and isinstance(result, VerifyReport):
            if result.ok:
                self.show_message(self.tr("All {n} files match their hashes.").format(n=result.checked_files))
            else:
                self.show_message(
                    self.tr("Damaged: {files}. Delete the model and download it again.").format(
                        files="; ".join(result.damaged)
                    ),
                    error=True,
                )
        elif kind == "remove":
            self.show_message(self.tr("Deleted {name}.").format(name=result.name))
        elif kind == "import":
            self.show_message(self.tr("Imported {name}.").format(name=result.name))
        self.refresh()

    @Slot(str, object)
    def _on_task_failed(self, key: str, failure: Failure) -> None:
        self.show_message(failure.message, error=True, offer_token=failure.kind == FAILURE_AUTH)
        self.refresh()

    # -- dialogs (replaced in tests) -------------------------------------------------------------------------------------
    def _confirm_dialog(self, title: str, detail: str) -> bool:
        box = QMessageBox(
            QMessageBox.Icon.Question,
            "LocalMind",
            title,
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            self,
        )
        box.setTextFormat(Qt.TextFormat.PlainText)  # names and paths: text, never HTML
        box.setInformativeText(detail)
        box.setEscapeButton(QMessageBox.StandardButton.No)
        return box.exec() == QMessageBox.StandardButton.Yes

    def _token_dialog(self) -> str | None:
        text, ok = QInputDialog.getText(
            self,
            self.tr("Hugging Face token"),
            self.tr("Paste an access token from huggingface.co/settings/tokens (read access is enough):"),
            QLineEdit.EchoMode.Password,
        )
        return text.strip() if ok and text.strip() else None
