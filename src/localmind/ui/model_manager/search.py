"""Search the Hub from the model manager: results page in, then each one's verdict, all in the background.

A search asks the Hub for one page of ONNX repos (names, downloads, likes, dates) and shows them at once, then
checks each repo in turn (its file listing, and config.json for an onnx-community export — never weights) and
fills in its row as the answer arrives: runs here or not and why, the size of what LocalMind would download,
parameters, memory. A new search abandons the one before; nothing of this runs on the GUI thread.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtWidgets import QGroupBox, QLabel, QLineEdit, QPushButton, QTableWidgetItem, QWidget

from localmind.core import secrets
from localmind.core.catalog import MachineInfo
from localmind.core.hub import DownloadRequest, HubSettings
from localmind.core.hub.embedding import ENCODER_TYPES
from localmind.core.hub.search import Compatibility, HubSearch, SearchResult, Verdict, check_results
from localmind.engine.formats.variants import SUPPORTED_MODEL_TYPES
from localmind.ui.model_manager.details import parameters_text
from localmind.ui.model_manager.widgets import InlineNote, hbox, human_size, make_table, vbox
from localmind.viewmodels.plain_text import tooltip
from localmind.workers.download import FAILURE_OFFLINE, DownloadController, Failure

COLUMNS = 7
VERDICT_COLUMN = 1


class SearchPanel(QGroupBox):
    """The search box over the Hub and its results.

    Signals:
        download_requested(DownloadRequest): the user asked to download a result that runs here.
        reveal_requested(QWidget): scroll the page to this widget.
    """

    download_requested = Signal(object)
    reveal_requested = Signal(QWidget)
    _checked = Signal(int, int, object)  # generation, row, SearchResult — emitted from the worker thread

    def __init__(
        self,
        controller: DownloadController,
        *,
        settings: HubSettings | None,
        device: Callable[[], str],
        machine: MachineInfo,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("HubSearch")
        self.controller = controller
        self._settings = settings
        self._device = device
        self._machine = machine
        self._generation = 0
        self._search: HubSearch | None = None
        self.results: list[SearchResult] = []
        self.input = QLineEdit()
        self.input.returnPressed.connect(self.start_search)
        self.search_button = QPushButton()
        self.search_button.clicked.connect(self.start_search)
        self.table = make_table(COLUMNS)
        # The model's name first and its owner after it: a narrow column cuts the owner, not the name.
        self.table.hide()
        self.table.itemSelectionChanged.connect(self._show_selected)
        self.table.itemActivated.connect(self._on_activated)  # Enter or double-click
        self.detail = QLabel()
        self.detail.setWordWrap(True)
        self.detail.setTextFormat(Qt.TextFormat.PlainText)
        self.detail.hide()
        self.download_button = QPushButton()
        self.download_button.setObjectName("PrimaryButton")
        self.download_button.clicked.connect(self.download_selected)
        self.more_button = QPushButton()
        self.more_button.clicked.connect(self.more)
        self.note = InlineNote()
        self.download_button.hide()
        self.more_button.hide()
        vbox(
            self,
            hbox(self.input, self.search_button),
            self.note,
            self.table,
            self.detail,
            hbox(self.download_button, self.more_button, None),
        )
        self._checked.connect(self._on_checked)
        controller.task_succeeded.connect(self._on_task_succeeded)
        controller.task_failed.connect(self._on_task_failed)
        self.retranslate()

    def retranslate(self) -> None:
        self.setTitle(self.tr("Find models on Hugging Face"))
        self.input.setPlaceholderText(self.tr("Search, e.g. smollm2 or qwen3"))
        self.search_button.setText(self.tr("Search"))
        self.download_button.setText(self.tr("Download"))
        self.more_button.setText(self.tr("More results"))
        self.table.setHorizontalHeaderLabels(
            [
                self.tr("Model"),
                self.tr("Runs here?"),
                self.tr("Download"),
                self.tr("Parameters"),
                self.tr("Memory"),
                self.tr("Downloads · likes"),
                self.tr("Updated"),
            ]
        )
        for row, result in enumerate(self.results):
            self._fill_row(row, result)

    def changeEvent(self, event: Any) -> None:
        from PySide6.QtCore import QEvent

        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    # -- searching ------------------------------------------------------------------------------------------------
    def start_search(self) -> None:
        text = self.input.text().strip()
        if not text:
            self._say(self.tr("Type what to look for, e.g. smollm2."))
            return
        self.stop()
        self.results = []
        self.table.setRowCount(0)
        self.table.hide()
        self.detail.hide()
        self.download_button.hide()
        self.more_button.hide()
        self._search = HubSearch(text, settings=self._settings)
        self._say(self.tr("Searching Hugging Face for “{text}”…").format(text=text))
        self._next_page()

    def more(self) -> None:
        if self._search is not None and not self._search.exhausted:
            self.more_button.setEnabled(False)
            self._say(self.tr("Loading more results…"))
            self._next_page()

    def stop(self) -> None:
        """Abandon the current search: its workers stop after the repo they are checking."""
        self._generation += 1

    def _next_page(self) -> None:
        search = self._search
        if search is None:
            return

        def page() -> list[SearchResult]:
            search.token = secrets.get_token()  # asked in the worker: the keyring may block
            return search.next_page()

        self.controller.run_task(f"search-page:{self._generation}:{len(self.results)}", page)

    def _check(self, generation: int, first_row: int, page: list[SearchResult]) -> None:
        device, settings = self._device(), self._settings

        def task() -> list[SearchResult]:
            return check_results(
                page,
                device=device,
                token=secrets.get_token(),
                settings=settings,
                on_checked=lambda i, r: self._checked.emit(generation, first_row + i, r),
                stopped=lambda: generation != self._generation,
            )

        self.controller.run_task(f"search-check:{generation}:{first_row}", task)

    @Slot(str, object)
    def _on_task_succeeded(self, key: str, result: Any) -> None:
        kind, _, rest = key.partition(":")
        if not kind.startswith("search") or int(rest.split(":")[0]) != self._generation:
            return  # not ours, or an abandoned search
        if kind == "search-page":
            self._add_page(result)
        elif kind == "search-check":
            self._finish_checks()

    @Slot(str, object)
    def _on_task_failed(self, key: str, failure: Failure) -> None:
        kind, _, rest = key.partition(":")
        if not kind.startswith("search") or int(rest.split(":")[0]) != self._generation:
            return
        self.more_button.setEnabled(True)
        if failure.kind == FAILURE_OFFLINE:
            self._say(
                self.tr(
                    "Searching needs an internet connection: Hugging Face cannot be reached. Try again when online."
                ),
                error=True,
            )
        else:
            self._say(failure.message, error=True)

    def _add_page(self, page: list[SearchResult]) -> None:
        first = len(self.results)
        self.results.extend(page)
        self.table.setRowCount(len(self.results))
        for row in range(first, len(self.results)):
            self._fill_row(row, self.results[row])
        self.table.setVisible(bool(self.results))
        self.table.updateGeometry()
        self.more_button.setEnabled(True)
        self.more_button.setVisible(self._search is not None and not self._search.exhausted)
        if not self.results:
            self._say(self.tr("No ONNX models match this search."))
            return
        self.download_button.show()
        self._say(self.tr("{n} results; checking which run on this computer…").format(n=len(self.results)))
        if page:
            self._check(self._generation, first, page)
        self.reveal_requested.emit(self.table)

    @Slot(int, int, object)
    def _on_checked(self, generation: int, row: int, result: SearchResult) -> None:
        if generation != self._generation or row >= len(self.results):
            return
        self.results[row] = result
        self._fill_row(row, result)
        if self._selected_row() == row:
            self._show_selected()

    def _finish_checks(self) -> None:
        runs = sum(1 for r in self.results if r.compatibility is not None and r.compatibility.runs)
        self._say(
            self.tr("{runs} of {n} results run on this computer; those are marked ✓.").format(
                runs=runs, n=len(self.results)
            )
        )

    # -- showing ----------------------------------------------------------------------------------------------------
    def verdict_text(self, c: Compatibility | None) -> str:
        if c is None:
            return self.tr("checking…")
        if c.verdict is Verdict.READY:
            return self.tr("✓ Ready")
        if c.verdict is Verdict.SETUP:
            return self.tr("✓ Prepared")
        if c.verdict is Verdict.UNSUPPORTED:
            return self.tr("✗ Not supported")
        return self.tr("? Could not check")

    def why_text(self, c: Compatibility) -> str:
        """Why, in the UI language."""
        if c.code == "package":
            return self.tr("An onnxruntime-genai package: it runs as it is. LocalMind downloads {what}.").format(
                what=c.choice
            )
        if c.code == "community":
            return self.tr(
                "An ONNX export of a supported architecture ({type}). LocalMind downloads only the {variant} "
                "variant ({quant}) and writes the settings it lacks. Other variants: {others}."
            ).format(
                type=c.model_type,
                variant=c.choice,
                quant=c.quantization,
                others=", ".join(v for v in c.variants if v != c.choice) or "–",
            )
        if c.code == "architecture" and c.model_type.lower() in ENCODER_TYPES:
            return self.tr(
                "An embedding model, not a chat model. For search by meaning in your documents use Documents → "
                "“Download the embedding model”."
            )
        if c.code == "architecture":
            name = f"{c.architecture} ({c.model_type})" if c.architecture else (c.model_type or self.tr("unknown"))
            return self.tr("{name} is not an architecture LocalMind can run. Supported: {supported}.").format(
                name=name, supported=", ".join(sorted(SUPPORTED_MODEL_TYPES))
            )
        if c.code == "no_onnx":
            return self.tr("It has no ONNX model files (LocalMind runs ONNX models).")
        if c.code == "layout":
            return self.tr("Its ONNX files are not in a layout LocalMind knows.")
        return self.tr("It could not be checked (the connection failed). Search again to retry.")

    def _memory_text(self, c: Compatibility | None) -> str:
        if c is None or not c.runs or not c.memory_bytes:
            return ""
        text = "≈ " + human_size(c.memory_bytes)
        ram = self._machine.total_ram_bytes
        if ram and c.memory_bytes > ram * 0.85:
            text += " " + self.tr("(too much here)")
        return text

    def _fill_row(self, row: int, result: SearchResult) -> None:
        c = result.compatibility
        updated = result.last_modified.date().isoformat() if result.last_modified else ""
        owner, _, name = result.repo.rpartition("/")
        cells = [
            f"{name}  ·  {owner}" if owner else name,
            self.verdict_text(c),
            human_size(c.download_bytes) if c is not None and c.runs and c.download_bytes else "",
            parameters_text(c.parameters) if c is not None and c.runs and c.parameters else "",
            self._memory_text(c),
            f"{result.downloads or 0:,} · ♥ {result.likes or 0:,}",
            updated,
        ]
        tip = self.why_text(c) if c is not None else ""
        for column, text in enumerate(cells):
            item = QTableWidgetItem(text)
            item.setData(Qt.ItemDataRole.UserRole, row)
            item.setToolTip(tooltip(f"{result.repo}\n{tip}" if column == 0 else tip))  # repo ids and reasons: text
            self.table.setItem(row, column, item)

    def _selected_row(self) -> int | None:
        items = self.table.selectedItems()
        return int(items[0].data(Qt.ItemDataRole.UserRole)) if items else None

    def _show_selected(self) -> None:
        row = self._selected_row()
        if row is None or row >= len(self.results):
            self.detail.hide()
            return
        result = self.results[row]
        c = result.compatibility
        self.detail.setText(f"{result.repo}: {self.why_text(c) if c is not None else self.tr('checking…')}")
        self.detail.show()

    def _say(self, text: str, *, error: bool = False) -> None:
        self.note.show_text(text, error=error)
        if text:
            self.reveal_requested.emit(self.note)

    def select_repo(self, repo: str) -> None:
        for row, result in enumerate(self.results):
            if result.repo == repo:
                self.table.selectRow(row)

    def _on_activated(self, item: QTableWidgetItem) -> None:
        self.table.selectRow(item.row())  # from the keyboard the row may be current without being selected
        self.download_selected()

    def download_selected(self) -> None:
        row = self._selected_row()
        if row is None:
            self._say(self.tr("Select a result first."))
            return
        result = self.results[row]
        c = result.compatibility
        if c is None:
            self._say(self.tr("Still checking {repo}; a moment…").format(repo=result.repo))
            return
        if not c.runs:
            self._say(
                self.tr("{repo} cannot be used: {why}").format(repo=result.repo, why=self.why_text(c)), error=True
            )
            return
        if c.verdict is Verdict.SETUP:
            request = DownloadRequest(result.repo, variant=c.choice, device=self._device())
        else:
            folder = "" if c.choice == "(repo root)" else c.choice
            request = DownloadRequest(result.repo, folder=folder, device=self._device())
        self._say(self.tr("Downloading {repo}: see Downloads below.").format(repo=result.repo))
        self.download_requested.emit(request)
