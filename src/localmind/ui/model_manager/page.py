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
    QLabel,
    QMessageBox,
    QScrollArea,
    QTableWidget,
    QVBoxLayout,
    QWidget,
)

from localmind.core.catalog import (
    CatalogEntry,
    MachineInfo,
    load_catalog,
    machine_info,
)
from localmind.core.hub import (
    HubSettings,
    InstalledModel,
    Manifest,
    VerifyReport,
    empty_trash,
)
from localmind.ui.dialogs import ask_import_mode
from localmind.ui.i18n import current_language
from localmind.ui.model_manager.catalog import CatalogActions
from localmind.ui.model_manager.downloads import DownloadActions
from localmind.ui.model_manager.installed import InstalledActions
from localmind.ui.model_manager.repo import RepoActions
from localmind.ui.model_manager.search import SearchPanel
from localmind.ui.model_manager.widgets import InlineNote, human_size
from localmind.workers.download import FAILURE_AUTH, DownloadController, Failure


class ModelManagerPage(CatalogActions, DownloadActions, InstalledActions, RepoActions, QWidget):
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
        self._installed: list[InstalledModel] = []
        self._listing = None
        self._last_note: InlineNote | None = None
        empty_trash()  # what an interrupted delete left behind
        self._build()
        self.retranslate()
        self._connect_downloads()
        c = self.controller
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

        self._build_recommended()
        self.search = SearchPanel(
            self.controller, settings=self._settings, device=lambda: self.device, machine=self.machine
        )
        self.search.download_requested.connect(self.start_download)
        self.search.reveal_requested.connect(self.reveal)

        # Built in the order they always were: their widgets join the focus chain in this order.
        self._build_catalog()
        self._build_downloads()
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
        self._retranslate_catalog()
        self._retranslate_downloads()
        self._retranslate_installed()
        self._retranslate_repo()
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
        self._refresh_catalog(current_language())
        self._refresh_installed()
        self._list_unfinished()
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

    # -- background tasks (verify, remove, import, a repo's listing, saving the token) ----------------------------------
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
