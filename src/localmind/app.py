"""The composition root: builds the app's objects in order, wires every signal, and tears them down.

Start-up order: Qt application -> settings -> theme and language (before any
widget, so the first strings are already translated) -> conversation store ->
inference service (its engine is a child process) -> chat session -> window ->
wiring -> conversation list -> model load in the background.

Shut-down order is the reverse, and starts when the window closes: a reply that
is streaming is stopped and saved, the worker thread and the engine process end,
the trash is emptied and the store closed.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import logging
import os
import signal
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QSettings, QTimer, Signal
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication, QBoxLayout, QFileDialog, QToolButton, QWidget

from localmind import APP_NAME, __version__, paths
from localmind.core import secrets, transfer
from localmind.core.conversations import Conversation, ImportResult, Message
from localmind.core.store import WHEN_DUE, ConversationStore
from localmind.engine import winml
from localmind.engine.types import (
    ChatEngine,
    ChatMessage,
    GenerationOptions,
    LoadInfo,
    LoadOptions,
    TurnStats,
)
from localmind.errors import UserFacingError
from localmind.instance import InstanceLock
from localmind.models.chat_session import ChatSession
from localmind.models.conversation_list import ConversationListModel
from localmind.models.drafts import Drafts
from localmind.resources import resource_path
from localmind.settings import Settings, load_settings, save_settings
from localmind.ui import already_running, store_dialogs
from localmind.ui.announce import AnswerAnnouncer
from localmind.ui.chat.thinking import ThinkingSwitch
from localmind.ui.i18n import Translations
from localmind.ui.main_window import MainWindow
from localmind.ui.plain import plain_labels
from localmind.ui.server_settings import API_KEY_NAME, REMOTE_KEY_NAME, ApiStatusLabel, store_keys
from localmind.ui.settings_dialog import SettingsDialog, SettingsResult
from localmind.ui.theme import ThemeManager
from localmind.ui.welcome import WelcomePage
from localmind.workers.api_server import AppApiServer
from localmind.workers.inference import InferenceService
from localmind.workers.messages import phrase_text, user_text
from localmind.workers.tasks import TaskContext, TaskRunner
from localmind.workers.typeahead import TypeAhead

log = logging.getLogger(__name__)

TRASH_KEEP_S = 0.0  # a deleted chat can be undone until the app closes; then it is gone for good


def create_application(argv: Sequence[str] | None = None) -> QApplication:
    """The QApplication, with LocalMind's name and icon (reused when one exists, as in tests)."""
    app = QApplication.instance()
    if not isinstance(app, QApplication):
        app = QApplication(list(argv) if argv is not None else [sys.argv[0] if sys.argv else "localmind"])
    app.setApplicationName(APP_NAME)
    app.setApplicationDisplayName(APP_NAME)
    app.setOrganizationName(APP_NAME)
    app.setApplicationVersion(__version__)
    app.setDesktopFileName("localmind")
    for name in ("localmind.svg", "localmind.png", "localmind-256.png"):
        icon_file = resource_path("icons", name)
        if icon_file.is_file():
            app.setWindowIcon(QIcon(str(icon_file)))
            break
    return app


def _local_or_remote_engine() -> ChatEngine:
    """The engine child process for model folders, a remote server for the picker's remote models."""
    from localmind.engine.process import EngineProcess
    from localmind.engine.remote import RoutingEngine

    return RoutingEngine(EngineProcess(), lambda _url: secrets.get_token(REMOTE_KEY_NAME))


class LocalMind(QObject):
    """Owns the app's objects for one window and connects them.

    Args:
        model_dir: load this model now; ``None`` loads the last one used, if it is still there.
        engine_factory: builds the engine (default: the engine child process); tests pass a fake.
        settings, store: injected by tests; by default read from the data folder.
    """

    remote_models_found = Signal(object)  # [(label, model id, tooltip)] from the remote server, for the picker

    def __init__(
        self,
        *,
        model_dir: str | None = None,
        engine_factory: Callable[[], ChatEngine] | None = None,
        settings: Settings | None = None,
        store: ConversationStore | None = None,
        load_last_model: bool = True,
        owns_data_folder: bool = True,
    ) -> None:
        qapp = create_application()
        super().__init__()
        self.qapp = qapp
        self._shut_down = False
        # False beside another window on the same folder (the self-test): that window's trash is its undo.
        self.owns_data_folder = owns_data_folder
        data = paths.ensure_data_dir()
        # Qt's own widgets (the file dialog's recent folders) keep settings in the user's config folder;
        # point them into the data folder, so LocalMind writes nowhere else (INI-based platforms).
        for fmt in (QSettings.Format.NativeFormat, QSettings.Format.IniFormat):
            QSettings.setPath(fmt, QSettings.Scope.UserScope, str(data / "qt"))
        self.settings = settings if settings is not None else load_settings()
        # The engine child inherits it: Windows ML downloads a provider only if the user allowed it (engine/winml.py).
        os.environ[winml.ENV_ALLOW_DOWNLOADS] = "1" if self.settings.accelerator_downloads else "0"
        self.theme = ThemeManager.for_app(qapp, self.settings.theme)
        self.theme.apply()
        self.translations = Translations.for_app(qapp)
        self.translations.apply(self.settings.language)
        self.store = (
            store if store is not None else ConversationStore(busy_timeout_ms=store_dialogs.GUI_BUSY_TIMEOUT_MS)
        )
        self.tasks = TaskRunner(self)  # every slow job off the GUI thread; drained at shutdown
        self.service = InferenceService(engine_factory or _local_or_remote_engine)
        self.session = ChatSession(self.store, self.service, self.settings)
        self.conversations = ConversationListModel()
        self.drafts = Drafts(data / "drafts.json", self)
        self._draft_key: str | None = None  # the conversation whose draft the message box shows ("" = a new chat)
        self.window = MainWindow(
            self.conversations,
            state_path=paths.window_state_path(),
            model_manager_factory=self._model_manager_factory(),
        )
        self.settings_dialog: SettingsDialog | None = None
        self._setup_api_server()
        self._model_dir: str | None = None
        # The model that worked before a load began: kept in use if the new one fails (issue 9.3).
        self._working_model: LoadInfo | None = None
        self._restoring = False
        from localmind.ui.documents_wiring import DocumentsFeature

        self.documents: DocumentsFeature | None = None
        try:
            self.documents = DocumentsFeature(self)  # the Documents place, "Use my documents", indexing (issue 13)
        except UserFacingError as exc:
            # A full or read-only disk (issue 10.3) must not stop the chats from opening; documents wait for space.
            log.warning("Documents are unavailable: %s", exc)
        plain_labels(self.window)  # the pages features added too: file names and paths are text, never HTML
        # Shown under the message box while a reasoning model with a thinking switch (Qwen3) is loaded.
        self.thinking_switch = ThinkingSwitch(self.session, self.service)
        self.window.composer.footer.insertWidget(1, self.thinking_switch)
        self.last_import: ImportResult | None = None  # what the last import did, for its notice
        self.typeahead = TypeAhead(
            self.service, self._typeahead_history, self._typeahead_draft, lambda: self.settings.prepare_replies, self
        )
        self._loaded_device: str | None = None
        self._connect()
        self.reload_conversations()
        self.session.new_chat()
        self.window.set_model_state(WelcomePage.NO_MODEL)
        target = model_dir or (self.settings.last_model if load_last_model else None)
        if target is None and load_last_model:
            from localmind.core.starter import starter_model_dir

            starter = starter_model_dir()  # first launch of a build that carries a model: chat at once
            target = str(starter) if starter is not None else None
        if target:
            if model_dir is None and not Path(target).is_dir():
                self.window.show_notice(
                    self.tr("The model you used last is no longer there."),
                    self.tr("{path} was moved or deleted. Open a model folder to continue.").format(path=target),
                    timeout_ms=0,
                )
            else:
                self.load_model(target)

    # -- wiring: every connection in the app, in one place ---------------------------------------------------------
    def _connect(self) -> None:
        service, session, window = self.service, self.session, self.window
        sidebar, composer, chat_view = window.sidebar, window.composer, window.chat_view

        service.loading_started.connect(self._on_loading_started)
        service.load_progress.connect(self.window.status.set_load_progress)
        service.loaded.connect(self._on_loaded)
        service.load_failed.connect(self._on_load_failed)
        service.tokens_ready.connect(session.on_tokens)
        service.finished.connect(session.on_finished)
        service.failed.connect(session.on_failed)
        service.token_count_ready.connect(session.on_token_count)

        session.conversation_opened.connect(self._on_conversation_opened)
        session.conversations_changed.connect(self.reload_conversations)
        session.message_added.connect(window.add_message)
        session.reply_delta.connect(chat_view.append_to_last)
        session.message_updated.connect(self._on_message_updated)
        session.generating_changed.connect(self._on_generating_changed)
        session.turn_finished.connect(window.status.set_turn_stats)
        self.announcer = AnswerAnnouncer(session, chat_view, parent=self)  # screen readers hear the answer end
        session.context_usage.connect(window.status.set_context)
        session.error.connect(lambda title, detail: window.show_error(title, detail))
        session.draft_returned.connect(self._on_draft_returned)
        composer.input.textChanged.connect(self._remember_draft)
        session.saver.problem.connect(lambda title, detail: window.show_error(title, detail))
        session.saver.saved.connect(lambda title, detail: window.show_notice(title, detail, timeout_ms=8000))
        window.restore_requested.connect(self.restore_backup)

        sidebar.new_chat_requested.connect(self.new_chat)
        sidebar.conversation_selected.connect(self.open_conversation)
        sidebar.delete_requested.connect(self.delete_conversation)
        sidebar.undo_delete_requested.connect(self.undo_delete)
        sidebar.search_requested.connect(self.search)
        sidebar.search_hit_activated.connect(self._on_search_hit)
        sidebar.export_requested.connect(self._ask_export)
        sidebar.import_requested.connect(self._ask_import)
        self.conversations.rename_requested.connect(self.rename_conversation)

        composer.send_requested.connect(session.send)
        composer.edit_submitted.connect(session.edit_message)
        composer.stop_requested.connect(session.stop)
        composer.regenerate_requested.connect(session.regenerate)
        chat_view.edit_requested.connect(self._begin_edit)
        chat_view.regenerate_requested.connect(session.regenerate)
        chat_view.version_requested.connect(self._choose_version)
        window.welcome.suggestion_chosen.connect(self._use_suggestion)

        # Type-ahead (issue 12): the engine reads the chat and the message while the user types.
        composer.input.textChanged.connect(self.typeahead.text_changed)
        session.conversation_opened.connect(lambda *_: self.typeahead.chat_changed())
        session.generating_changed.connect(self._typeahead_after_turn)
        service.loaded.connect(lambda *_: self.typeahead.chat_changed())

        window.model_folder_chosen.connect(self.load_model)
        window.settings_requested.connect(self.open_settings)
        window.closing.connect(self.shutdown)
        self.qapp.aboutToQuit.connect(self.shutdown)

    def _model_manager_factory(self) -> Callable[[], QWidget]:
        def build() -> QWidget:
            # Imported on first use: the page pulls in the Hub client, which the chat alone does not need.
            from localmind.core.hub.device import download_device
            from localmind.ui.model_manager import ModelManagerPage
            from localmind.workers.download import DownloadController

            # Downloads are for the device the engine actually uses (under "auto": a GPU first, as the engine tries).
            device = download_device(self.settings.device, self._loaded_device)
            page = ModelManagerPage(device=device, controller=DownloadController(runner=self.tasks))
            plain_labels(page)  # repo ids, paths and file names are shown as text, never as HTML
            page.load_requested.connect(self._load_from_manager)
            page.model_installed.connect(lambda path: self._on_model_installed(page, path))
            if self.documents is not None:  # Documents searches by meaning with an embedding model once installed
                page.embedding_model_installed.connect(self.documents.use_embedding_model)
            return page

        return build

    def _typeahead_after_turn(self, generating: bool) -> None:
        if not generating:
            self.typeahead.chat_changed()  # the reply joins the history; what is typed meanwhile follows

    def _typeahead_history(self) -> list[ChatMessage] | None:
        session = self.session
        return None if session.model is None or session.generating or self._shut_down else session.engine_history()

    def _typeahead_draft(self) -> str | None:
        composer = self.window.composer
        return None if composer.editing is not None else composer.text

    # -- model ----------------------------------------------------------------------------------------------------
    def load_options(self) -> LoadOptions:
        s = self.settings
        return LoadOptions(device=s.device, threads=s.threads, context_budget=s.context_budget)

    def load_model(self, model_dir: str) -> None:
        self.session.stop()
        self.service.load(model_dir, self.load_options())

    def _on_model_installed(self, page: Any, model_dir: str) -> None:
        """A download finished while no model is loaded (nor loading): load it, so the next message gets a reply."""
        if self.session.model is None and self._model_dir is None:
            page.note_loading(Path(model_dir).name)
            self.load_model(model_dir)

    def _load_from_manager(self, model_dir: str) -> None:
        self.window.show_chat()
        self.load_model(model_dir)

    def _on_loading_started(self, model_dir: str) -> None:
        if self._restoring:
            return  # going back to the model that worked: the window keeps showing it as ready
        if self.session.model is not None:
            self._working_model = self.session.model
        self._model_dir = model_dir
        self.session.set_model(None)
        name = Path(model_dir).name or model_dir
        self.window.set_model_state(WelcomePage.LOADING, name)
        self.window.status.set_loading(model_dir)
        if self.window.banner.kind == "error":
            self.window.banner.dismiss()

    def _on_loaded(self, info: LoadInfo) -> None:
        restored, self._restoring = self._restoring, False
        self._working_model = None
        self._model_dir = info.model_dir
        self._record_loaded(info)
        self.session.set_model(info)
        self.window.set_model_state(WelcomePage.READY, info.model_name, info.model_dir)
        self.window.status.set_model(info)
        if self.session.conversation is not None:
            self.session.request_context_usage()
        if self.settings.last_model != info.model_dir:
            self.settings.last_model = info.model_dir
            self._save_settings()
        if info.warnings and not restored:
            warnings = "\n".join(phrase_text(w) for w in info.warnings)
            self.window.show_notice(self.tr("The model loaded with warnings."), warnings, timeout_ms=0)

    def _record_loaded(self, info: LoadInfo) -> None:
        """Remember the device and the memory measured after the load (the model manager shows both)."""
        from localmind.core.hub.details import record_loaded_memory
        from localmind.core.hub.device import download_device

        self._loaded_device = info.device
        record_loaded_memory(info.model_dir, info.memory_bytes)
        manager = self.window.model_manager
        if manager is not None and hasattr(manager, "set_device"):
            manager.set_device(download_device(self.settings.device, info.device))

    def _on_load_failed(self, message: str) -> None:
        working, restoring = self._working_model, self._restoring
        self._working_model, self._restoring = None, False
        if working is not None and not restoring and Path(working.model_dir).is_dir():
            self._keep_working_model(working, message)
            return
        self.session.set_model(None)
        self._model_dir = None  # nothing loaded, nothing loading
        self.window.set_model_state(WelcomePage.NO_MODEL)
        self.window.status.set_load_failed()
        actions: list[tuple[str, Callable[[], None]]] = [
            (self.tr("Open another model folder…"), self.window.choose_model_folder)
        ]
        if self.window.manager_action.isVisible():
            actions.append((self.tr("Get a model"), self.window.show_model_manager))
        self.window.show_error(
            self.tr("The model could not be loaded."),
            message + "\n" + self.tr("Your chats are still here; you can read and search them meanwhile."),
            actions,
        )

    def _keep_working_model(self, working: LoadInfo, message: str) -> None:
        """The new model failed: go on with the one that worked, and say so.

        The engine holds one model; it checks a folder before letting the old model go, but a model that passes the
        checks and then fails inside onnxruntime-genai has already replaced it. So the working model is loaded again
        (a message sent meanwhile waits for it in the worker's queue) and the window shows it as ready throughout.
        """
        self._restoring = True
        self._model_dir = working.model_dir
        self.session.set_model(working)
        self.window.set_model_state(WelcomePage.READY, working.model_name, working.model_dir)
        self.window.status.set_model(working)
        self.service.load(working.model_dir, self.load_options())
        self.window.show_error(
            self.tr("The model could not be loaded."),
            message + "\n" + self.tr("You are still chatting with {name}.").format(name=working.model_name),
            [(self.tr("Open another model folder…"), self.window.choose_model_folder)],
        )

    # -- conversations --------------------------------------------------------------------------------------------
    def reload_conversations(self) -> None:
        self.conversations.set_conversations(self.store.list_conversations())
        self.window.sidebar.select_conversation(self.session.conversation_id)

    def new_chat(self) -> None:
        self.window.show_chat()
        self.window.composer.cancel_edit()
        self.session.new_chat()
        self.window.composer.input.setFocus()

    def _choose_version(self, message_id: int, version: int) -> None:
        self.session.choose_version(message_id, version)
        if not isinstance(QApplication.focusWidget(), QToolButton):  # ‹ › pressed from the keyboard keep the focus
            self.window.composer.input.setFocus()  # a click: typing goes on in the message box

    def open_conversation(self, conversation_id: str) -> None:
        if conversation_id == self.session.conversation_id:
            return
        self.window.show_chat()
        self.window.composer.cancel_edit()
        self.session.open_conversation(conversation_id)

    def rename_conversation(self, conversation_id: str, title: str) -> None:
        self.session.rename_conversation(conversation_id, title)
        if conversation_id == self.session.conversation_id:
            self.window.set_conversation_title(title)

    def delete_conversation(self, conversation_id: str) -> None:
        try:
            title = self.store.get_conversation(conversation_id).title
            self.session.delete_conversation(conversation_id)
        except UserFacingError as exc:
            self.window.show_error(self.tr("The chat could not be deleted."), user_text(exc))
            return
        self.window.sidebar.show_deleted(conversation_id, title)

    def undo_delete(self, conversation_id: str) -> None:
        try:
            self.session.restore_conversation(conversation_id)
        except UserFacingError as exc:
            self.window.show_error(self.tr("The chat could not be restored."), user_text(exc))
            return
        self.open_conversation(conversation_id)

    def search(self, query: str) -> None:
        if self._shut_down:
            return  # the sidebar's typing pause can end after the window closed and the store with it
        try:
            hits = self.store.search(query)
        except UserFacingError as exc:
            self.window.show_error(self.tr("Search failed."), user_text(exc))
            hits = []
        self.window.sidebar.show_results(query, hits)

    def _on_search_hit(self, conversation_id: str, message_id: int | None) -> None:
        self.window.show_chat()  # opening the chat already shown does not switch pages by itself
        self.open_conversation(conversation_id)
        if message_id is not None:
            self.window.chat_view.scroll_to_message(message_id)

    def _on_conversation_opened(self, conversation: Conversation | None, messages: list[Message]) -> None:
        self._switch_draft(conversation.id if conversation is not None else "")
        self.window.show_conversation(conversation, messages)
        # The status bar speaks of this chat's last answer, not of the chat shown before (issue 9.10).
        self.window.status.set_turn_stats(last_turn_stats(messages))
        self._update_regenerate()

    def _on_message_updated(self, message: Message) -> None:
        self.window.chat_view.update_message(
            message.id, content=message.content, status=message.status, details=message
        )
        self._update_regenerate()

    def _on_generating_changed(self, generating: bool) -> None:
        self.window.set_generating(generating)
        self._update_regenerate()

    def _update_regenerate(self) -> None:
        session = self.session
        # The chat view offers Regenerate under the last answer; the composer's button covers a question
        # left without one (its answer failed, or the app closed before it began).
        unanswered = bool(session.messages) and session.messages[-1].role == "user"
        self.window.composer.set_can_regenerate(not session.generating and session.model is not None and unanswered)

    def _switch_draft(self, key: str) -> None:
        """Keep what is in the box for the chat being left, and show what was left in the one opened."""
        if key == self._draft_key:
            return
        composer = self.window.composer
        previous, self._draft_key = self._draft_key, None  # no saving while the box is refilled
        if previous is not None and composer.editing is None:
            self.drafts.set(previous, composer.text)
        if composer.editing is None:
            composer.set_text(self.drafts.get(key))
        self._draft_key = key

    def _remember_draft(self) -> None:
        if self._draft_key is not None and self.window.composer.editing is None:
            self.drafts.set(self._draft_key, self.window.composer.text)

    def _on_draft_returned(self, text: str) -> None:
        composer = self.window.composer
        current = composer.text
        composer.set_text(text if not current.strip() else text + "\n\n" + current)
        composer.input.setFocus()

    def _begin_edit(self, message_id: int) -> None:
        message = next((m for m in self.session.messages if m.id == message_id), None)
        if message is not None and message.role == "user" and not self.session.generating:
            self.window.composer.begin_edit(message_id, message.content)

    def _use_suggestion(self, prompt: str) -> None:
        self.window.composer.set_text(prompt)
        self.window.composer.input.setFocus()

    # -- export / import ------------------------------------------------------------------------------------------
    def export_conversations(self, conversation_ids: Sequence[str] | None, fmt: str, path: Path) -> int:
        """Write the conversations (all with ``None``) to ``path`` as ``md`` or ``json``; returns how many."""
        items = transfer.collect(self.store, conversation_ids)
        text = transfer.to_json(items) if fmt == "json" else transfer.to_markdown(items)
        try:
            path.write_text(text, encoding="utf-8")
        except OSError as exc:
            raise UserFacingError(
                self.tr("Could not write {path}: {reason}.").format(path=path, reason=exc.strerror or exc),
                hint=self.tr("Choose another folder."),
            ) from exc
        return len(items)

    def import_conversations(self, path: Path) -> list[Conversation]:
        result = transfer.merge_json(self.store, transfer.read_file(path), str(path))
        self.last_import = result
        self.reload_conversations()
        if result.changed:
            self.open_conversation(result.changed[0].id)
        return result.changed

    def _ask_export(self, conversation_id: str, fmt: str) -> None:
        ids = [conversation_id] if conversation_id else None
        suffix = "json" if fmt == "json" else "md"
        name = "localmind-chats"
        if conversation_id:
            with contextlib.suppress(UserFacingError):
                name = self.store.get_conversation(conversation_id).title
        safe = "".join(ch if ch.isalnum() or ch in " -_" else "_" for ch in name).strip() or "chat"
        filters = self.tr("JSON (*.json)") if fmt == "json" else self.tr("Markdown (*.md)")
        target, _ = QFileDialog.getSaveFileName(
            self.window, self.tr("Export"), str(Path.home() / f"{safe}.{suffix}"), filters
        )
        if not target:
            return

        def done(count: int) -> None:
            self.window.show_notice(self.tr("Exported {count} chat(s) to {path}.").format(count=count, path=target))

        # Off the GUI thread: thousands of chats take a while to write (the store is thread-safe).
        self.tasks.start(
            lambda _ctx: self.export_conversations(ids, fmt, Path(target)),
            key=f"export:{target}",
            on_success=done,
            on_failure=lambda exc: self._task_failed(self.tr("Export failed."), exc),
        )

    def _ask_import(self) -> None:
        source, _ = QFileDialog.getOpenFileName(
            self.window, self.tr("Import conversations"), str(Path.home()), self.tr("LocalMind export (*.json)")
        )
        if not source:
            return

        def done(result: ImportResult) -> None:
            self.last_import = result
            self.reload_conversations()
            if result.changed:
                self.open_conversation(result.changed[0].id)
            self.window.show_notice(store_dialogs.import_summary(result))

        self.tasks.start(
            lambda _ctx: _import_with_own_connection(self.store.path, Path(source)),
            key=f"import:{source}",
            on_success=done,
            on_failure=lambda exc: self._task_failed(self.tr("Import failed."), exc),
        )

    def _task_failed(self, title: str, exc: BaseException) -> None:
        if not isinstance(exc, UserFacingError):
            raise exc  # a bug: the crash handler shows it
        self.window.show_error(title, user_text(exc))

    def restore_backup(self) -> None:
        store_dialogs.restore_flow(self)

    # -- settings -------------------------------------------------------------------------------------------------
    def open_settings(self) -> SettingsDialog:
        if self.settings_dialog is not None and self.settings_dialog.isVisible():
            self.settings_dialog.raise_()
            return self.settings_dialog
        system_prompt, chat_settings = self.session.chat_settings()
        dialog = SettingsDialog(
            self.settings,
            system_prompt,
            chat_settings,
            has_conversation=self.session.conversation is not None,
            tasks=self.tasks,
            loaded_model=self.session.model,
            parent=self.window,
        )
        dialog.applied.connect(self.apply_settings)
        dialog.finished.connect(self._settings_closed)
        self.settings_dialog = dialog
        dialog.open()
        return dialog

    def _settings_closed(self) -> None:
        if self.settings_dialog is not None:
            self.settings_dialog.deleteLater()
            self.settings_dialog = None

    def apply_settings(self, result: SettingsResult) -> None:
        current, new = self.settings, result.app
        reload_model = (current.device, current.context_budget, current.threads) != (
            new.device,
            new.context_budget,
            new.threads,
        )
        theme_changed, language_changed = current.theme != new.theme, current.language != new.language
        for name in ("theme", "language", "device", "context_budget", "threads", "generation"):
            setattr(current, name, getattr(new, name))
        server_fields = ("api_server", "api_server_port", "api_server_lan", "remote_models", "remote_url")
        for name in server_fields:
            setattr(current, name, getattr(new, name))
        self._save_settings()
        self._apply_server_settings(result.keys)  # restarts a running server: a new key may have come
        self.session.set_chat_settings(result.system_prompt, result.chat_settings)
        if theme_changed:
            self.theme.apply(current.theme)
            self.window.apply_theme()
        if language_changed:
            # Installing the translator sends LanguageChange: every LocalMind widget re-reads its strings.
            self.translations.apply(current.language)
        if reload_model and self._model_dir and self.session.model is not None and not self.session.generating:
            self.load_model(self._model_dir)

    def _apply_server_settings(self, key_changes: dict[str, str | None]) -> None:
        """Store changed keys, then (re)start or stop the API server and list the remote models, with the keys.

        The keyring and the server's start and stop (its web framework's import, the wait for it to listen, a
        stop that lets a streaming request end) run off the GUI thread: each may take seconds (a locked keychain
        asks for its password). Stopping needs no key: at once. Of several rounds in flight, only the last one
        applies the server.
        """
        if not self.settings.api_server:
            self.api_status.set_url(None)
            self.tasks.start(lambda _ctx: self._run_api_server(None, None), key=f"server-stop:{self._server_round}")
        self._server_round += 1
        round_ = self._server_round
        wanted = self._wanted_api_server()

        def keys(_ctx: TaskContext) -> tuple[str | None, str | None, str | None]:
            with self._server_keys_lock:  # one round at a time: a later round's keys are stored after this one's
                store_keys(key_changes)
                api_key, remote_key = secrets.get_token(API_KEY_NAME), secrets.get_token(REMOTE_KEY_NAME)
            if round_ != self._server_round:
                return api_key, remote_key, None  # a later round applies the server with its own settings
            return api_key, remote_key, self._run_api_server(wanted, api_key)

        def done(found: tuple[str | None, str | None, str | None]) -> None:
            if round_ == self._server_round:
                self._show_api_server(found[2])
                self._refresh_remote_models(found[1])

        self.tasks.start(
            keys,
            key=f"server-keys:{round_}",
            on_success=done,
            on_failure=lambda exc: self._task_failed(self.tr("The keyring could not be used."), exc),
        )

    def _refresh_remote_models(self, key: str | None) -> None:
        """List the remote server's models (Settings → Server → Remote models) for the picker, off the GUI thread."""
        s = self.settings
        self.window.remote_models = []
        if not (s.remote_models and s.remote_url):
            return
        url = s.remote_url
        runs_on = self.tr("{name} — runs on {host}")
        leaves = self.tr("Runs on {host}: your messages leave this computer.")

        def run() -> None:
            from localmind.engine.remote import list_remote_models, remote_model_dir

            try:
                host, names = list_remote_models(url, key)
            except UserFacingError as exc:
                log.warning("Remote models: %s", exc)
                return
            found = [
                (runs_on.format(name=n, host=host), remote_model_dir(url, n), leaves.format(host=host)) for n in names
            ]
            self.remote_models_found.emit(found)

        threading.Thread(target=run, name="localmind-remote-models", daemon=True).start()

    def _on_remote_models(self, found: list[tuple[str, str, str]]) -> None:
        if self.settings.remote_models:
            self.window.remote_models = found

    def _setup_api_server(self) -> None:
        """The local API server (off by default): the window's engine, shared turn by turn (workers/api_server.py)."""
        self.api_server = AppApiServer(self.service, self)
        self.api_status = ApiStatusLabel()
        status_row = self.window.status.layout()
        assert isinstance(status_row, QBoxLayout)
        status_row.insertWidget(status_row.count() - 3, self.api_status)  # before the stretch and the gauge
        self.api_server.busy_changed.connect(self.api_status.set_busy)
        self.remote_models_found.connect(self._on_remote_models)
        self._server_round = 0
        self._server_keys_lock = threading.Lock()
        self._server_lock = threading.Lock()  # one start or stop of the API server at a time
        s = self.settings
        if s.api_server or (s.remote_models and s.remote_url):  # else no key is needed: the keyring is not imported
            self._apply_server_settings({})

    def _wanted_api_server(self) -> tuple[int, bool, GenerationOptions] | None:
        """What the settings ask of the API server (read on the GUI thread): port, LAN, defaults; None: off."""
        s = self.settings
        if not s.api_server:
            return None
        g = s.generation
        defaults = GenerationOptions(
            temperature=g.temperature,
            top_p=g.top_p,
            top_k=g.top_k,
            repetition_penalty=g.repetition_penalty,
            max_new_tokens=g.max_new_tokens,
        )
        return s.api_server_port, s.api_server_lan, defaults

    def _run_api_server(self, wanted: tuple[int, bool, GenerationOptions] | None, api_key: str | None) -> str | None:
        """Start, restart or stop the local API server (in a task's thread: see _apply_server_settings). Returns
        why it could not start, or None."""
        with self._server_lock:
            if wanted is None:
                self.api_server.stop()
                return None
            port, lan, defaults = wanted
            self.api_server.defaults = defaults
            try:
                self.api_server.start(port, api_key, lan)
            except UserFacingError as exc:
                return user_text(exc)
            return None

    def _show_api_server(self, error: str | None) -> None:
        self.api_status.set_url(self.api_server.url if self.settings.api_server else None)
        if error is not None:
            self.window.show_error(self.tr("The local API server could not start."), error)

    def _save_settings(self) -> None:
        try:
            save_settings(self.settings)
        except UserFacingError as exc:
            self.window.show_error(self.tr("Settings could not be saved."), user_text(exc))

    # -- shutdown -------------------------------------------------------------------------------------------------
    def shutdown(self) -> None:
        """Stop and save a streaming reply, end the worker and the engine process, close the store. Idempotent."""
        if self._shut_down:
            return
        self._shut_down = True
        self._remember_draft()
        self.drafts.flush()
        self.session.shutdown()
        store_dialogs.save_or_rescue(self.session.saver)  # an answer a full disk kept out is asked about, not dropped
        # Every background task stops together, against one deadline; downloads pause and resume at the next start.
        self.tasks.shutdown()
        with self._server_lock:  # after a start or stop still running in a task
            self.api_server.stop()
        self.service.shutdown()
        if self.documents is not None:
            self.documents.shutdown()
        if self.owns_data_folder:
            try:
                self.store.purge_deleted(TRASH_KEEP_S)
            except UserFacingError as exc:
                log.warning("Could not empty the trash: %s", exc)
        self.store.close()


def last_turn_stats(messages: Sequence[Message]) -> TurnStats | None:
    """The stored figures of the last answer in ``messages`` (a stopped one's too), or ``None``."""
    for message in reversed(messages):
        if message.role != "assistant":
            continue
        stats = message.stats if isinstance(message.stats, dict) else {}
        known = {f.name for f in dataclasses.fields(TurnStats)}
        try:
            return TurnStats(**{k: v for k, v in stats.items() if k in known}) if stats else None
        except TypeError:
            return None
    return None


def create_app(
    model_dir: str | None = None,
    *,
    engine_factory: Callable[[], ChatEngine] | None = None,
    settings: Settings | None = None,
    load_last_model: bool = True,
    store: ConversationStore | None = None,
    owns_data_folder: bool = True,
) -> LocalMind:
    """Build the whole app for one window (QApplication included); the caller shows ``.window``."""
    hooks = _test_hooks()
    if engine_factory is None and hooks is not None:
        engine_factory = hooks.slowed_engine_factory()
    mind = LocalMind(
        model_dir=model_dir,
        engine_factory=engine_factory,
        settings=settings,
        store=store,
        load_last_model=load_last_model,
        owns_data_folder=owns_data_folder,
    )
    # The window keeps its app object alive: whoever holds the window holds everything.
    mind.setParent(mind.window)
    return mind


def _test_hooks() -> Any:
    """The end-to-end tests' switches (localmind/app_hooks.py), or ``None``: the frozen app does not ship them."""
    if getattr(sys, "frozen", False):
        return None
    try:
        from localmind import app_hooks
    except ImportError:
        return None
    return app_hooks if app_hooks.active() else None


def create_main_window(args: argparse.Namespace | None = None, **kwargs: Any) -> MainWindow:
    """The main window exactly as ``localmind`` builds it, wired to its services (for the self-test).

    A QApplication may already exist; the event loop is not started. Closing the window stops the
    worker thread and the engine process. Run while a LocalMind window has the data folder, it leaves
    that window's conversations as they are: no start-up recovery (the reply it streams stays
    "streaming"), no emptying of its trash (its undo).
    """
    model = getattr(args, "model", None) if args is not None else None
    lock = InstanceLock(paths.ensure_data_dir())
    owner = lock.acquire()
    if not owner:
        kwargs.setdefault("store", ConversationStore(recover_interrupted=False))
        kwargs["owns_data_folder"] = False
    window = create_app(model, **kwargs).window
    if owner:
        window.destroyed.connect(lambda *_: lock.release())
    return window


def run_gui(args: argparse.Namespace) -> int:
    """``localmind`` / ``localmind --model DIR``: open the window and run until it closes.

    A second start on a data folder whose window is open says so and exits (0) before it opens anything.
    """
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    lock = InstanceLock(paths.ensure_data_dir())
    if not lock.acquire():
        already_running.tell(paths.data_dir(), lock.holder(), load_settings().language)
        return 0
    try:
        return _run_window(args)
    finally:
        lock.release()


def _run_window(args: argparse.Namespace) -> int:
    app = create_application()
    reporter, crashes, previous_crash = _install_crash_reporting()
    # The database is opened before the main window: a full or read-only disk, a lock or damage is told in a
    # window of its own (store_dialogs), never only on stderr.
    store = _open_store_for_window()
    if store is None:
        crashes.uninstall()
        return 1
    mind = create_app(getattr(args, "model", None), store=store)
    already_running.BringForward(paths.data_dir(), mind.window)  # a second start brings this window forward
    if store.read_only:
        mind.window.show_error(*store_dialogs.read_only_notice())
    store_dialogs.start_backup(store)
    hooks = _test_hooks()
    if hooks is not None:
        hooks.install(mind)
    mind.window.show()

    # Ctrl+C in the terminal and SIGTERM at logout close the window properly (the reply in progress is saved).
    def close_window(*_: object) -> None:
        mind.window.close()

    signal.signal(signal.SIGINT, close_window)
    if hasattr(signal, "SIGTERM"):
        signal.signal(signal.SIGTERM, close_window)
    # Python runs signal handlers only between bytecodes; give it a chance while Qt's loop waits.
    wakeup = QTimer()
    wakeup.timeout.connect(lambda: None)
    wakeup.start(250)
    if previous_crash is not None:
        QTimer.singleShot(0, lambda: reporter.show_previous_run(previous_crash))
    try:
        return int(app.exec())
    finally:
        crashes.uninstall()  # a clean exit: the native-crash log is removed, nothing to offer next time


def _install_crash_reporting() -> tuple[Any, Any, Any]:
    """Exceptions in slots and threads, and native crashes, leave a log in the data folder and open a dialog."""
    from PySide6.QtWidgets import QApplication as _QApplication

    from localmind import crash
    from localmind.ui.crash_dialog import CrashReporter

    data = paths.ensure_data_dir()
    previous = crash.take_native_crash(data)  # the last run died in native code: offer its log once
    reporter = CrashReporter(parent_window=_QApplication.activeWindow)
    return reporter, crash.install(data, reporter.notify), previous


def _import_with_own_connection(database: Path, source: Path) -> ImportResult:
    """Import on a worker thread through a connection of its own: the window's store is never held by it, so the
    window waits at most its short busy timeout for SQLite's lock, never for the whole import (issue 10.6)."""
    with ConversationStore(database, recover_interrupted=False) as store:
        return transfer.merge_json(store, transfer.read_file(source), str(source))


def _open_store_for_window() -> ConversationStore | None:
    if not already_running.has_display():
        try:  # no window can be shown: say it in the terminal
            return ConversationStore(check=WHEN_DUE, busy_timeout_ms=store_dialogs.GUI_BUSY_TIMEOUT_MS)
        except UserFacingError as exc:
            print(f"localmind: {exc}", file=sys.stderr)
            return None
    Translations.for_app(create_application()).apply(load_settings().language)
    return store_dialogs.open_store()


__all__ = ["LocalMind", "create_app", "create_application", "create_main_window", "run_gui"]
