"""The installed-models section of the model manager page: list, details, load, verify, delete, import."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog, QGroupBox, QLabel, QPushButton, QTableWidgetItem

from localmind.core.hub import InstalledModel, import_folder, import_zip, list_installed, remove_model, verify_model
from localmind.core.hub.details import model_facts
from localmind.ui.model_manager.details import facts_text
from localmind.ui.model_manager.widgets import InlineNote, hbox, human_size, make_table, vbox
from localmind.viewmodels.plain_text import tooltip
from localmind.workers.messages import phrase_text
from localmind.workers.tasks import TaskContext

# The page supplies every attribute a section uses; typed as Any so mypy checks them on the page itself.
_Base: Any = object


class InstalledActions(_Base):  # type: ignore[misc]
    """Mixed into :class:`ModelManagerPage` (strings translate in its context)."""

    def _build_installed(self) -> None:
        self.installed_box = QGroupBox()
        self.installed_table = make_table(4)
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
        # Verifying or importing a large model takes minutes: the user can stop it (issue 9.20).
        self.stop_task_button = QPushButton()
        self.stop_task_button.clicked.connect(self.stop_installed_task)
        self.stop_task_button.hide()
        self._stoppable: str | None = None
        self.installed_details = QLabel()
        self.installed_details.setObjectName("ModelDetails")
        self.installed_details.setWordWrap(True)
        self.installed_details.setTextFormat(Qt.TextFormat.PlainText)
        self.installed_details.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.installed_details.hide()
        self.installed_note = InlineNote()
        # Two rows: one row of six buttons made the page wider than the window at 150 % (a horizontal scroll bar,
        # and the Search and Download buttons cut at the right edge).
        actions = hbox(
            self.load_button, self.verify_button, self.open_button, self.delete_button, self.stop_task_button, None
        )
        imports = hbox(self.import_folder_button, self.import_zip_button, None)
        vbox(self.installed_box, self.installed_table, self.installed_details, actions, imports, self.installed_note)
        self.installed_table.itemSelectionChanged.connect(self._update_buttons)

    def _retranslate_installed(self) -> None:
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
        self.stop_task_button.setText(self.tr("Stop"))

    def _refresh_installed(self) -> None:
        self._installed = list_installed()
        self.installed_table.setRowCount(len(self._installed))
        for i, model in enumerate(self._installed):
            status = (
                self.tr("Ready")
                if model.ok
                else self.tr("Damaged: {problem}").format(problem=phrase_text(model.problem or ""))
            )
            if model.ok and model.kind == "embedding":
                status = self.tr("Ready: used by Documents to search by meaning")
            size = human_size(model.size_on_disk) if model.size_on_disk else self.tr("used in place")
            for column, text in enumerate([model.name, size, self.source_text(model.manifest), status]):
                item = QTableWidgetItem(text)
                item.setToolTip(tooltip(model.manifest.describe_source()) if column == 2 else "")
                item.setData(Qt.ItemDataRole.UserRole, model.id)
                self.installed_table.setItem(i, column, item)
        self.installed_table.updateGeometry()

    def _update_installed_buttons(self) -> None:
        model = self.selected_installed()
        for button in (self.verify_button, self.open_button, self.delete_button):
            button.setEnabled(model is not None)
        # An embedding model is not a chat model: Documents uses it, the chat cannot load it.
        self.load_button.setEnabled(model is not None and model.ok and model.kind == "chat")
        if model is None:
            self.installed_details.hide()
        else:
            self.installed_details.setText(facts_text(model_facts(model.model_path, model.manifest)))
            self.installed_details.show()

    def selected_installed(self) -> InstalledModel | None:
        model_id = self._selected_id(self.installed_table)
        return next((m for m in self._installed if m.id == model_id), None)

    def select_installed(self, model_id: str) -> None:
        for i, model in enumerate(self._installed):
            if model.id == model_id:
                self.installed_table.selectRow(i)

    def _need_selection(self) -> InstalledModel | None:
        model = self.selected_installed()
        if model is None:
            self.show_message(self.tr("Select a model in the list first."), near=self.installed_note)
        return model

    def load_selected(self) -> None:
        model = self._need_selection()
        if model is None:
            return
        if not model.ok:
            self.show_message(
                self.tr("{name} is damaged ({problem}). Verify it, or delete it and download it again.").format(
                    name=model.name, problem=phrase_text(model.problem or "")
                ),
                error=True,
                near=self.installed_note,
            )
            return
        self.load_requested.emit(str(model.model_path))

    def verify_selected(self) -> None:
        model = self._need_selection()
        if model is not None:
            self.show_message(self.tr("Verifying {name}…").format(name=model.name), near=self.installed_note)
            self._run_stoppable(f"verify:{model.id}", lambda ctx: verify_model(model.id, on_bytes=_checker(ctx)))

    def open_selected_folder(self) -> None:
        model = self._need_selection()
        if model is not None:
            self._open_folder(model.model_path)

    def delete_selected(self) -> None:
        model = self._need_selection()
        if model is None:
            return
        if model.manifest.source == "reference":
            detail = self.tr("LocalMind forgets it; the files in {path} stay where they are.").format(
                path=model.model_path
            )
        else:
            detail = self.tr("This deletes {size} from {path}.").format(
                size=human_size(model.size_on_disk), path=model.folder
            )
        if self._confirm(self.tr("Delete {name}?").format(name=model.name), detail):
            self.controller.run_task(f"remove:{model.id}", lambda: remove_model(model.id))

    def import_path(self, path: str, *, copy: bool = True) -> None:
        self.show_message(self.tr("Importing {path}…").format(path=path), near=self.installed_note)
        if path.lower().endswith(".zip"):
            self._run_stoppable(f"import:{path}", lambda ctx: import_zip(path, on_bytes=_checker(ctx)))
        else:
            self._run_stoppable(f"import:{path}", lambda ctx: import_folder(path, copy=copy, on_bytes=_checker(ctx)))

    def _run_stoppable(self, key: str, task: Callable[[TaskContext], Any]) -> None:
        if self.controller.run_cancellable(key, task):
            self._stoppable = key
            self.stop_task_button.show()

    def stop_installed_task(self) -> None:
        """Stop the verify or import in progress: a stopped verify changes nothing, a stopped import installs nothing."""
        if self._stoppable is not None:
            self.controller.cancel(self._stoppable)

    def _installed_task_ended(self, key: str) -> None:
        if key == self._stoppable:
            self._stoppable = None
            self.stop_task_button.hide()

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


def _checker(ctx: TaskContext) -> Callable[[int], None]:
    """An ``on_bytes`` callback that ends the task at the next chunk once a stop was asked for."""

    def check(_n: int) -> None:
        ctx.check()

    return check
