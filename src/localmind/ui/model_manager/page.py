"""The model manager page: Hub search, the catalog with fit hints, downloads with progress, installed models.

Everything slow (downloads, hashing, imports, asking the Hub) runs through a
:class:`DownloadController` in worker threads; this page only shows state and
turns clicks into requests. ``load_requested(model_dir)`` asks the main window
to load a verified model in the chat. Feedback appears in the section where the
user acted (an :class:`InlineNote` under its buttons), scrolled into view.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication, QEvent, Qt, QTimer, QUrl, Signal, Slot
from PySide6.QtGui import QDesktopServices, QShowEvent
from PySide6.QtWidgets import (
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QScrollArea,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from localmind.core import secrets
from localmind.core.catalog import (
    CatalogEntry,
    Fit,
    MachineInfo,
    fit_hint,
    load_catalog,
    machine_info,
    recommend,
    tokens_per_s,
)
from localmind.core.hub import (
    DownloadProgress,
    DownloadRequest,
    HubSettings,
    InstalledModel,
    Manifest,
    VerifyReport,
    default_model_id,
    discard_unfinished,
    empty_trash,
    list_unfinished,
    request_for_catalog,
)
from localmind.models.plain_text import tooltip
from localmind.ui.dialogs import ask_import_mode
from localmind.ui.i18n import current_language
from localmind.ui.model_manager.installed import InstalledActions
from localmind.ui.model_manager.repo import RepoActions
from localmind.ui.model_manager.search import SearchPanel
from localmind.ui.model_manager.widgets import DownloadRow, InlineNote, hbox, human_size, make_table, vbox
from localmind.workers.download import FAILURE_AUTH, FAILURE_OFFLINE, DownloadController, Failure


class ModelManagerPage(InstalledActions, RepoActions, QWidget):
    """Find, download, verify, import and remove models.

    Signals:
        load_requested(str): the folder of an installed, healthy model to load in the chat.
        model_installed(str): a download finished and was installed (the app loads it when no model is loaded).
    """

    load_requested = Signal(str)
    model_installed = Signal(str)  # a download finished: the installed model's folder
    embedding_model_installed = Signal(str)  # an embedding model (for Documents) finished: its folder

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
        self.device = device  # the device downloads are for (the one the engine will use)
        self._confirm = confirm or self._confirm_dialog
        self._ask_token = ask_token or self._token_dialog
        self._ask_import_mode = ask_import_mode
        self._open_folder = open_folder or (lambda path: QDesktopServices.openUrl(QUrl.fromLocalFile(str(path))))
        self._settings = settings
        self.rows: dict[str, DownloadRow] = {}
        self._requests: dict[str, DownloadRequest] = {}
        self._installed: list[InstalledModel] = []
        self._listing = None
        self._failed_key: str | None = None
        self._last_note: InlineNote | None = None
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
        c.task_cancelled.connect(self._on_task_cancelled)
        app = QCoreApplication.instance()
        if app is not None:
            # Downloads running at exit are paused, not lost: they resume from the next start.
            app.aboutToQuit.connect(self.search.stop)
            app.aboutToQuit.connect(self.controller.shutdown)

    # -- building ---------------------------------------------------------------------------------------------------
    def _build(self) -> None:
        self.setObjectName("ModelManager")
        self.title = QLabel()
        self.title.setObjectName("PageTitle")
        self.machine_label = QLabel()
        self.machine_label.setObjectName("PageSubtitle")
        self.message = InlineNote()  # messages that belong to no section

        self.recommended_box = QGroupBox()
        self.recommended_label = QLabel()
        self.recommended_label.setWordWrap(True)
        self.recommended_button = QPushButton()
        self.recommended_button.setObjectName("PrimaryButton")
        self.recommended_button.clicked.connect(self.download_recommended)
        box = QHBoxLayout(self.recommended_box)
        box.addWidget(self.recommended_label, 1)
        box.addWidget(self.recommended_button)

        self.search = SearchPanel(
            self.controller, settings=self._settings, device=lambda: self.device, machine=self.machine
        )
        self.search.download_requested.connect(self.start_download)
        self.search.reveal_requested.connect(self.reveal)

        self.catalog_box = QGroupBox()
        self.catalog_table = make_table(5)
        self.catalog_table.names_first()
        self.catalog_download = QPushButton()
        self.catalog_download.clicked.connect(self.download_selected_catalog_entry)
        self.catalog_page = QPushButton()
        self.catalog_page.clicked.connect(self._open_model_page)
        self.catalog_note = InlineNote()
        vbox(
            self.catalog_box,
            self.catalog_table,
            hbox(self.catalog_download, self.catalog_page, None),
            self.catalog_note,
        )

        self.downloads_box = QGroupBox()
        self.downloads_layout = QVBoxLayout(self.downloads_box)
        self.downloads_empty = QLabel()
        self.downloads_layout.addWidget(self.downloads_empty)
        self.downloads_note = InlineNote()
        self.token_button = QPushButton()
        self.token_button.hide()
        self.token_button.clicked.connect(self.enter_token)
        # Rows are inserted above these two: the note and the token button stay under the last download.
        self.downloads_layout.addWidget(self.downloads_note)
        self.downloads_layout.addLayout(hbox(self.token_button, None))

        self._build_installed()
        self._build_repo()

        content = QWidget()
        content.setObjectName("ModelManagerContent")
        layout = QVBoxLayout(content)
        layout.setContentsMargins(28, 20, 28, 28)
        layout.setSpacing(10)
        for widget in (
            self.title,
            self.machine_label,
            self.message,
            self.recommended_box,
            self.search,
            self.downloads_box,
            self.installed_box,
            self.catalog_box,
            self.repo_box,
        ):
            layout.addWidget(widget)
        layout.addStretch(1)
        self.scroll_area = QScrollArea()
        self.scroll_area.setWidgetResizable(True)
        self.scroll_area.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll_area.setWidget(content)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(self.scroll_area)

    def retranslate(self) -> None:
        self.title.setText(self.tr("Models"))
        self.scroll_area.setAccessibleName(self.tr("Models"))
        self.token_button.setText(self.tr("Enter a Hugging Face token…"))
        self.recommended_box.setTitle(self.tr("Recommended to start"))
        self.recommended_button.setText(self.tr("Download"))
        self.catalog_box.setTitle(self.tr("Ready-to-run models"))
        self.catalog_table.setHorizontalHeaderLabels(
            [self.tr("Model"), self.tr("Download"), self.tr("Memory"), self.tr("On this computer"), self.tr("Licence")]
        )
        self.catalog_table.fit_columns()
        self.catalog_download.setText(self.tr("Download"))
        self.catalog_page.setText(self.tr("Model page"))
        self.downloads_box.setTitle(self.tr("Downloads"))
        self.downloads_empty.setText(self.tr("No downloads."))
        self._retranslate_installed()
        self._retranslate_repo()
        for row in self.rows.values():
            row.retranslate()
        self.refresh()

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.search.input.setFocus()  # the page opens ready to type what to look for
        self._update_installed_buttons()  # facts measured since (a model's memory after its first use) show

    def set_device(self, device: str) -> None:
        """The device downloads are for changed (a model loaded on another device, or the setting changed)."""
        if device != self.device:
            self.device = device
            self.refresh()

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
            variant = manifest.generated.get("variant") if manifest.generated else None
            where = manifest.folder or (f"{variant}" if variant else "")
            return manifest.repo + (f" ({where})" if where else "")
        if manifest.source == "reference":
            return self.tr("Used in place from {path}").format(path=manifest.origin_path)
        return self.tr("Imported from {path}").format(path=manifest.origin_path)

    def refresh(self) -> None:
        ram = human_size(self.machine.total_ram_bytes) if self.machine.total_ram_bytes else self.tr("unknown")
        disk = (
            human_size(self.machine.free_disk_bytes) if self.machine.free_disk_bytes is not None else self.tr("unknown")
        )
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
                    size=human_size(pick.variant_for(self.device).download_bytes),
                    description=pick.description_for(language),
                )
            )
        self.catalog_table.setRowCount(len(self.catalog))
        for i, entry in enumerate(self.catalog):
            variant = entry.variant_for(self.device)
            name = entry.name + ("  ★" if pick is not None and entry.id == pick.id else "")
            cells = [
                name,
                human_size(variant.download_bytes),
                human_size(variant.ram_bytes),
                self.fit_text(entry),
                entry.licence,
            ]
            tip = [entry.description_for(language), entry.form_note_for(language)]
            speed = tokens_per_s(entry, self.machine)
            if speed is not None and self.device == "cpu":
                tip.append(
                    self.tr("About {n} tokens per second on this computer (an estimate).").format(n=f"{speed:.0f}")
                )
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(tooltip("\n".join(t for t in tip if t)))
                item.setData(Qt.ItemDataRole.UserRole, entry.id)
                self.catalog_table.setItem(i, column, item)
        self.catalog_table.updateGeometry()
        self.catalog_table.fit_columns()
        self._refresh_installed()
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
        self._update_installed_buttons()
        self.downloads_empty.setVisible(not self.rows)

    def show_message(
        self, text: str, *, error: bool = False, offer_token: bool = False, near: InlineNote | None = None
    ) -> None:
        """Show ``text`` in ``near`` (the note of the section the user acted in) and scroll it into view."""
        note = near or self.message
        note.show_text(text, error=error)
        self._last_note = note
        self.token_button.setVisible(offer_token)
        if text:
            self.reveal(note)

    def message_text(self) -> str:
        """The last message shown (in whichever section)."""
        return self._last_note.text() if self._last_note is not None else ""

    @Slot(QWidget)
    def reveal(self, widget: QWidget) -> None:
        """Scroll the page so ``widget`` is in view, once the layout has placed it (a zero timer runs after that)."""

        def scroll() -> None:
            with contextlib.suppress(RuntimeError):  # the widget was deleted meanwhile
                if widget.isVisibleTo(self):
                    self.scroll_area.ensureWidgetVisible(widget, 20, 40)

        QTimer.singleShot(0, self, scroll)

    # -- selection ----------------------------------------------------------------------------------------------------
    def _selected_id(self, table: QTableWidget) -> str | None:
        items = table.selectedItems()
        return str(items[0].data(Qt.ItemDataRole.UserRole)) if items else None

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
        self.downloads_layout.insertWidget(self.downloads_layout.indexOf(self.downloads_note), row)
        self._update_buttons()
        return row

    @Slot(object)
    def start_download(self, request: DownloadRequest, near: InlineNote | None = None) -> str | None:
        key = request.model_id or default_model_id(request.repo, request.folder or "")
        if request.variant and request.model_id is None:
            from localmind.core.hub.community import community_model_id

            key = community_model_id(request.repo, request.variant)
        if any(m.id == key for m in self._installed):
            self.show_message(self.tr("{name} is already installed.").format(name=key), near=near)
            return None
        if self.controller.is_running(key):
            return key
        if request.model_id is None:
            from dataclasses import replace

            request = replace(request, model_id=key)
        row = self.rows.get(key) or self._add_row(key, request.name or key, request)
        self._requests[key] = request
        row.detail.setText(self.tr("Starting…"))
        row.set_running(True)
        self.controller.start_download(key, request, secrets.get_token)  # asked in the worker: the keyring may block
        self.show_message("", near=self.downloads_note)
        self.reveal(row)
        return key

    def download_recommended(self) -> None:
        if self.recommended is not None:
            self.start_download(request_for_catalog(self.recommended, self.device))

    def download_selected_catalog_entry(self) -> None:
        entry_id = self._selected_id(self.catalog_table)
        entry = next((e for e in self.catalog if e.id == entry_id), None)
        if entry is None:
            self.show_message(self.tr("Pick a model in the list first."), near=self.catalog_note)
            return
        hint = fit_hint(entry, self.machine, self.device)
        if not hint.usable and not self._confirm(self.tr("Download anyway?"), self.fit_text(entry)):
            return
        self.start_download(request_for_catalog(entry, self.device), near=self.catalog_note)

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
        if model.kind == "embedding":  # not a chat model: Documents takes it, the chat never loads it
            self.show_message(
                self.tr("{name} is installed and verified. Documents now uses it to search by meaning.").format(
                    name=model.name
                ),
                near=self.installed_note,
            )
            self.embedding_model_installed.emit(str(model.model_path))
            return
        self.show_message(
            self.tr("{name} is installed and verified. Select it and press “Load in chat”.").format(name=model.name),
            near=self.installed_note,
        )
        self.model_installed.emit(str(model.model_path))

    def note_loading(self, name: str) -> None:
        """The app loads a model that was just installed (no other one was loaded): say so where it was announced."""
        self.show_message(
            self.tr("{name} is installed, verified and loading in the chat.").format(name=name),
            near=self.installed_note,
        )

    def failure_text(self, failure: Failure) -> str:
        """A failure in the UI language where LocalMind knows the kind; the engine's own words otherwise."""
        if failure.kind == FAILURE_OFFLINE:
            return self.tr(
                "Cannot reach Hugging Face. Check the internet connection, then press Resume: "
                "what was downloaded is kept."
            )
        return failure.message

    @Slot(str, object)
    def _on_download_failed(self, key: str, failure: Failure) -> None:
        # Said once, on the download's own row (not repeated in a page-wide message).
        text = self.tr("Stopped: {reason}").format(reason=self.failure_text(failure))
        row = self.rows.get(key)
        if row is not None:
            row.show_stopped(text)
            self.show_message("", near=self.downloads_note, offer_token=failure.kind == FAILURE_AUTH)
            self.reveal(row)
        else:
            self.show_message(text, error=True, offer_token=failure.kind == FAILURE_AUTH, near=self.downloads_note)
        self._failed_key = key

    @Slot(str, str)
    def _on_download_stopped(self, key: str, reason: str) -> None:
        if reason == "cancel":
            self._remove_row(key)
            self.show_message(self.tr("Download cancelled; its partial files were deleted."), near=self.downloads_note)
        elif key in self.rows:
            self.rows[key].show_stopped(self.tr("Paused — resume to continue where it stopped."))

    def enter_token(self) -> None:
        token = self._ask_token()
        if not token:
            return
        # The keyring may be slow or wait for the user to unlock it: never on the GUI thread (issue 9.20).
        self.controller.run_task("save-token", lambda: secrets.set_token(token))

    def _token_saved(self, where: secrets.TokenStore) -> None:
        if where is secrets.TokenStore.KEYRING:
            note = self.tr("Token saved in the system keyring.")
        else:
            note = self.tr(
                "No system keyring was found: the token is kept only until LocalMind closes (it is never written to a file)."
            )
        self.show_message(note, near=self.downloads_note)
        key = self._failed_key
        if key is not None and key in self._requests:
            self.start_download(self._requests[key])

    def _open_model_page(self) -> None:
        entry_id = self._selected_id(self.catalog_table)
        entry = next((e for e in self.catalog if e.id == entry_id), None)
        if entry is None:
            self.show_message(self.tr("Pick a model in the list first."), near=self.catalog_note)
            return
        QDesktopServices.openUrl(QUrl(entry.page_url))

    @Slot(str, object)
    def _on_task_succeeded(self, key: str, result: Any) -> None:
        self._installed_task_ended(key)
        kind = key.split(":", 1)[0]
        if kind == "list-repo":
            if self._lookup_answered(key):
                self._show_listing(result)
            return
        if key == "save-token":
            self._token_saved(result)
            return
        if kind.startswith("search"):
            return  # the search panel handles its own
        if kind == "verify" and isinstance(result, VerifyReport):
            if result.ok:
                self.show_message(
                    self.tr("All {n} files match their hashes.").format(n=result.checked_files),
                    near=self.installed_note,
                )
            else:
                self.show_message(
                    self.tr("Damaged: {files}. Delete the model and download it again.").format(
                        files="; ".join(result.damaged)
                    ),
                    error=True,
                    near=self.installed_note,
                )
        elif kind == "remove":
            self.show_message(self.tr("Deleted {name}.").format(name=result.name), near=self.installed_note)
        elif kind == "import":
            self.show_message(self.tr("Imported {name}.").format(name=result.name), near=self.installed_note)
        self.refresh()

    @Slot(str, object)
    def _on_task_failed(self, key: str, failure: Failure) -> None:
        self._installed_task_ended(key)
        kind = key.split(":", 1)[0]
        if kind.startswith("search") or (kind == "list-repo" and not self._lookup_answered(key)):
            return
        near = {"list-repo": self.repo_note, "discard": self.downloads_note, "save-token": self.downloads_note}.get(
            kind, self.installed_note
        )
        self.show_message(self.failure_text(failure), error=True, offer_token=failure.kind == FAILURE_AUTH, near=near)
        self.refresh()

    @Slot(str, str)
    def _on_task_cancelled(self, key: str, reason: str) -> None:
        self._installed_task_ended(key)
        kind = key.split(":", 1)[0]
        if kind == "verify":
            self.show_message(self.tr("Verification stopped; nothing was changed."), near=self.installed_note)
        elif kind == "import":
            self.show_message(self.tr("Import stopped; nothing was installed."), near=self.installed_note)
        else:
            return
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
