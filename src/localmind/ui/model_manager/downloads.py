"""The downloads section of the model manager page: one row per download (progress, pause, resume, cancel), the
downloads left unfinished last time, and the Hugging Face token a gated model asks for."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Slot
from PySide6.QtWidgets import QGroupBox, QInputDialog, QLabel, QLineEdit, QPushButton, QVBoxLayout

from localmind.core import secrets
from localmind.core.hub import (
    DownloadProgress,
    DownloadRequest,
    InstalledModel,
    default_model_id,
    discard_unfinished,
    list_unfinished,
)
from localmind.ui.model_manager.widgets import DownloadRow, InlineNote, hbox
from localmind.workers.download import FAILURE_AUTH, FAILURE_OFFLINE, Failure

# The page supplies every attribute a section uses; typed as Any so mypy checks them on the page itself.
_Base: Any = object


class DownloadActions(_Base):  # type: ignore[misc]
    """Mixed into :class:`ModelManagerPage` (strings translate in its context)."""

    def _build_downloads(self) -> None:
        self.rows: dict[str, DownloadRow] = {}
        self._requests: dict[str, DownloadRequest] = {}
        self._failed_key: str | None = None
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

    def _connect_downloads(self) -> None:
        c = self.controller
        c.progress.connect(self._on_progress)
        c.download_succeeded.connect(self._on_download_succeeded)
        c.download_failed.connect(self._on_download_failed)
        c.download_stopped.connect(self._on_download_stopped)

    def _retranslate_downloads(self) -> None:
        self.token_button.setText(self.tr("Enter a Hugging Face token…"))
        self.downloads_box.setTitle(self.tr("Downloads"))
        self.downloads_empty.setText(self.tr("No downloads."))
        for row in self.rows.values():
            row.retranslate()

    def _list_unfinished(self) -> None:
        """Downloads stopped last time (their bytes are kept) are listed, paused, to resume."""
        for unfinished in list_unfinished():
            if unfinished.model_id not in self.rows:
                row = self._add_row(unfinished.model_id, unfinished.name, unfinished.request())
                row.show_stopped(
                    self.tr("Paused — resume to continue where it stopped."),
                    unfinished.done_bytes,
                    unfinished.total_bytes,
                )

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
            return str(
                self.tr(
                    "Cannot reach Hugging Face. Check the internet connection, then press Resume: "
                    "what was downloaded is kept."
                )
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

    def _token_dialog(self) -> str | None:
        text, ok = QInputDialog.getText(
            self,
            self.tr("Hugging Face token"),
            self.tr("Paste an access token from huggingface.co/settings/tokens (read access is enough):"),
            QLineEdit.EchoMode.Password,
        )
        return text.strip() if ok and text.strip() else None
