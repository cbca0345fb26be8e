"""The documents feature in the window: the Documents place, the chat switch, source links, background indexing.

Built by ``app.LocalMind`` from the parts it works with (the store, the chat session, the inference service, the
window); everything it connects is listed in ``_connect`` (the app's own wiring stays in app.py).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, QObject, Qt, QUrl
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QFrame, QHBoxLayout, QPushButton, QScrollArea, QVBoxLayout, QWidget

from localmind.core.store import ConversationStore
from localmind.documents.chat import DocumentsChat
from localmind.documents.chunking import TokenCounter, approximate_tokens, tokenizer_counter
from localmind.documents.library import Library
from localmind.engine.types import LoadInfo
from localmind.settings import Settings
from localmind.ui import theme
from localmind.ui.documents import DocumentsPage
from localmind.ui.documents_chat import DocumentsSwitch, source_dialog
from localmind.ui.main_window import MainWindow
from localmind.viewmodels.chat_session import ChatSession
from localmind.workers.indexer import IndexerService
from localmind.workers.inference import InferenceService
from localmind.workers.tasks import TaskRunner

if TYPE_CHECKING:
    from localmind.workers.typeahead import TypeAhead

log = logging.getLogger(__name__)

# New passages in one turn may take at most this share of the context budget, leaving room for the conversation
# (earlier turns keep their passages, so several turns of them fit before the engine drops the oldest).
PASSAGE_SHARE = 0.25
# What the window is sent when the application's palette (the theme) changes. Only windows and widgets without a
# stylesheet are told, so the window is watched, not the place (which has one).
_THEME_EVENTS = (QEvent.Type.ApplicationPaletteChange, QEvent.Type.PaletteChange)


class PassageBudget:
    """Whether new passages fit the loaded chat model's context (a share of its budget), counted in its tokens."""

    def __init__(self, model: Callable[[], LoadInfo | None]) -> None:
        self._model = model  # the chat's loaded model, asked at each turn
        self._counter: TokenCounter = approximate_tokens  # the loaded model's tokenizer once there is one
        self._counter_dir = ""

    def count(self, text: str) -> int:
        """Tokens of ``text`` for the loaded chat model (its tokenizer.json; approximate without a model)."""
        model = self._model()
        if model is not None and model.model_dir != self._counter_dir:
            self._counter, self._counter_dir = tokenizer_counter(model.model_dir), model.model_dir
        return self._counter(text)

    def fits(self, blocks: str) -> bool:
        model = self._model()
        budget = model.context_budget if model is not None and model.context_budget else 4096
        return self.count(blocks) <= budget * PASSAGE_SHARE


@dataclass(frozen=True)
class DocumentsCore:
    """The Qt-free part, built before the chat session (which is given ``chat``): the library and the turns."""

    library: Library
    chat: DocumentsChat
    budget: PassageBudget


def open_documents(store: ConversationStore, model: Callable[[], LoadInfo | None]) -> DocumentsCore:
    """Open the documents' library (raises UserFacingError on a full or read-only disk)."""
    library = Library.open()
    budget = PassageBudget(model)

    def save_stats(message_id: int, stats: dict[str, Any]) -> None:
        store.update_message(message_id, stats=stats)

    return DocumentsCore(library, DocumentsChat(library, save_stats, fits=budget.fits), budget)


class DocumentsFeature(QObject):
    def __init__(
        self,
        core: DocumentsCore,
        session: ChatSession,
        inference: InferenceService,
        window: MainWindow,
        tasks: TaskRunner,
        settings: Settings,
        save_settings: Callable[[], None],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.session, self.inference, self.window = session, inference, window
        self.settings, self._save_settings = settings, save_settings  # "Use my documents" is kept in the settings
        self.library, self.chat, self.budget = core.library, core.chat, core.budget
        self.service = IndexerService(parent=self, tasks=tasks)  # its jobs run in the app's task runner
        self.page = DocumentsPage(
            self.library.index, self.service, self.library.embedder is not None, embedder_name=self.library.model_id
        )
        self.switch = DocumentsSwitch()
        self.switch.set_collections(self.library.index.collections())
        self._restore_switch()
        self.holder = self._holder()
        self.holder.installEventFilter(self)
        window.installEventFilter(self)  # a theme change (see _follow_theme)
        window.main_stack.addWidget(self.holder)
        header = window.header.layout()
        if isinstance(header, QHBoxLayout):
            header.insertWidget(1, self.switch)
        window.source_link_handler = self.show_source
        # Ctrl+Shift+D: "Use my documents" on and off from the keyboard.
        self.shortcut = QShortcut(QKeySequence("Ctrl+Shift+D"), window)
        self.shortcut.setContext(Qt.ShortcutContext.WindowShortcut)
        self.shortcut.activated.connect(self.switch.toggle)
        self._connect()
        # A run killed or cancelled last time left files waiting: pick them up. Folders added before are watched.
        if self.library.index.pending_files():
            self.service.submit("resume")
        self.service.watch(self.library.index.folders())

    def _holder(self) -> QWidget:
        holder = QWidget()
        layout = QVBoxLayout(holder)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        bar = QFrame()
        bar.setObjectName("ChatHeader")
        self.back_button = QPushButton()
        self.back_button.setObjectName("GhostButton")
        row = QHBoxLayout(bar)
        row.setContentsMargins(12, 8, 12, 8)
        row.addWidget(self.back_button)
        row.addStretch(1)
        layout.addWidget(bar)
        # In a scroll area: the window's minimum width stays what the chat needs, not what this page's toolbar needs.
        scroll = self.scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(self.page)
        layout.addWidget(scroll, 1)
        self._style(holder)
        self.retranslate()
        return holder

    def _style(self, holder: QWidget) -> None:
        """The theme's stylesheet on the place (it is not one of the window's own parts that ``apply_theme`` styles)."""
        self._styled_as = theme.current().name
        theme.style(holder)

    def _follow_theme(self) -> None:
        """The theme changed (Settings, or the OS's scheme under "system"): the application's palette changed, and
        the stylesheet set with the old colours must follow, or the page stays in the old theme until a restart."""
        if theme.current().name != self._styled_as:
            self._style(self.holder)

    def _connect(self) -> None:
        window = self.window
        window.sidebar.documents_requested.connect(self.show_page)
        self.back_button.clicked.connect(window.show_chat)
        self.switch.changed.connect(self._on_switch)
        self.service.job_finished.connect(lambda *_: self.switch.set_collections(self.library.index.collections()))
        self.page.get_embedding_model_requested.connect(self.download_embedder)
        self.inference.loaded.connect(lambda info: self.service.use_tokenizer_of(info.model_dir))
        # The context gauge shows the passages' share apart from the conversation's.
        self.session.context_usage.connect(self._show_passage_share)
        # The stats line says when the question's passages were read while it was typed (issue 19).
        self.session.turn_finished.connect(self._show_read_ahead)

    def download_embedder(self) -> None:
        """Download the catalog's embedding model in the model manager (its row shows progress, pause and cancel)."""
        from localmind.core.catalog import find_entry, load_catalog
        from localmind.core.hub import request_for_catalog
        from localmind.documents.embed import EMBEDDING_MODEL_ID

        window = self.window
        entry = find_entry(load_catalog(), EMBEDDING_MODEL_ID)
        window.show_model_manager()
        manager = window.model_manager
        start = getattr(manager, "start_download", None)
        if entry is None or start is None:  # a build without the model manager: say how to get it
            window.show_notice(
                self.tr("Installing the embedding model"),
                self.tr("Run: localmind models download multilingual-e5-small"),
                timeout_ms=0,
            )
            return
        start(request_for_catalog(entry, "cpu"))
        self.page.set_embedder_downloading()

    def use_embedding_model(self, folder: str) -> None:
        """An embedding model was installed: search with it, and embed the passages indexed so far (in the background)."""
        from pathlib import Path

        from localmind.documents.embed import EmbeddingModelError

        try:
            self.library.use_embedder(Path(folder))
        except EmbeddingModelError as exc:
            log.warning("embedding model not used: %s", exc)
            self.page.set_has_embedder(self.library.embedder is not None, self.library.model_id)
            return
        self.page.set_has_embedder(True, self.library.model_id)
        self.service.submit("embedder", [folder])

    def show_page(self) -> None:
        self.page.refresh()
        self.window.main_stack.setCurrentWidget(self.holder)

    def _restore_switch(self) -> None:
        """ "Use my documents" as the user left it last time (issue 21: it was off after every restart)."""
        settings = self.settings
        self.switch.chosen = [c for c in settings.document_collections if c in self.switch.collections]
        self.chat.enabled, self.chat.collections = settings.use_documents, list(self.switch.chosen)
        self.switch.blockSignals(True)  # nothing to save yet; the chat already has the values
        self.switch.setChecked(settings.use_documents)
        self.switch.blockSignals(False)
        self.switch.retranslate()

    def _on_switch(self, enabled: bool, collections: list[str]) -> None:
        self.chat.enabled = enabled
        self.chat.collections = collections
        if enabled and not self.chat.has_documents():
            # Said once, here, rather than under every answer: answers come from the model alone until then.
            self.window.show_notice(
                self.tr("You have not added any documents yet."),
                self.tr("Add files or a folder on the Documents page; until then answers come from the model alone."),
                timeout_ms=8000,
            )
        settings = self.settings
        if (settings.use_documents, settings.document_collections) != (enabled, collections):
            settings.use_documents, settings.document_collections = enabled, list(collections)
            self._save_settings()
        self.session.request_context_usage()  # the instruction counts in the gauge from now on

    def attach_typeahead(self, typeahead: TypeAhead) -> None:
        """With "Use my documents" on, type-ahead reads the question's turn as it will be sent (issue 19)."""
        typeahead.documents_turn = self.read_ahead_turn

    def read_ahead_turn(self, draft: str) -> Callable[[], str | None] | None:
        """What type-ahead's read runs first on the engine service's thread: the search for ``draft`` and the turn
        with its passages (None with the switch off: no search, the draft alone)."""
        if not self.chat.enabled:
            return None
        messages = list(self.session.messages)  # taken now, on the window's thread
        return lambda: self.chat.read_ahead_turn(messages, draft)

    def _show_read_ahead(self, _stats: object) -> None:
        label = self.window.status.ttft_label
        passages = self.chat.last_read_ahead
        text = (
            self.tr("{count} passage(s) from your documents were read while you typed the question.").format(
                count=passages
            )
            if passages
            else ""
        )
        label.setToolTip(text)
        label.setAccessibleDescription(text)

    def _show_passage_share(self, _used: int, _budget: int) -> None:
        session = self.session
        system_prompt, _ = session.chat_settings()
        try:
            tokens = self.chat.passage_tokens(system_prompt, session.messages, self.budget.count)
        except Exception:  # the gauge must never break the chat
            log.warning("could not count the passages' tokens", exc_info=True)
            tokens = 0
        self.window.status.set_documents_context(tokens)

    def show_source(self, url: QUrl) -> bool:
        dialog = source_dialog(self.window, self.chat, url)
        if dialog is None:
            return False
        theme.style(dialog)
        dialog.open()
        self.last_dialog = dialog
        return True

    def retranslate(self) -> None:
        self.back_button.setText(self.tr("← Back to chat"))
        self.scroll.setAccessibleName(self.tr("Documents"))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if not hasattr(self, "holder"):  # torn down by the garbage collector: its attributes are gone
            return False
        if watched is self.holder and event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        elif watched is self.window and event.type() in _THEME_EVENTS:
            self._follow_theme()
        return super().eventFilter(watched, event)

    def shutdown(self) -> None:
        self.page.closed = True
        self.service.shutdown()
        self.library.close()
