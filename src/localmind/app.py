"""The composition root: builds the app's objects in order, wires every signal, and tears them down.

Behaviour lives in the controllers (localmind/controllers: model loading, conversations and drafts, import/export,
the API server, the settings dialog); this module only builds them, connects them and orders start and stop.

Start-up order: Qt application -> settings -> theme and language (before any
widget, so the first strings are already translated) -> conversation store ->
task runner -> inference service (its engine is a child process) -> documents'
library -> chat session -> window -> controllers -> features -> wiring ->
conversation list -> model load in the background.

Shut-down order is the reverse, and starts when the window closes: a reply that
is streaming is stopped and saved, every background task is cancelled and drained
against one deadline, the API server, the worker thread and the engine process end,
the documents' index closes, the trash is emptied and the store closed.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QSettings, QTimer
from PySide6.QtWidgets import QWidget

from localmind import paths
from localmind.controllers.api_server import ApiServerLifecycle
from localmind.controllers.conversations import Conversations
from localmind.controllers.export_import import ImportExport
from localmind.controllers.loading import ModelLoading
from localmind.controllers.settings import SettingsFlow
from localmind.core import secrets
from localmind.core.conversations import Conversation
from localmind.core.store import WHEN_DUE, ConversationStore
from localmind.engine import winml
from localmind.engine.types import ChatEngine, ChatMessage
from localmind.errors import UserFacingError
from localmind.instance import InstanceLock
from localmind.settings import Settings, load_settings, save_settings
from localmind.ui import already_running, store_dialogs
from localmind.ui.announce import AnswerAnnouncer
from localmind.ui.application import create_application
from localmind.ui.chat.thinking import ThinkingSwitch
from localmind.ui.i18n import Translations
from localmind.ui.main_window import MainWindow
from localmind.ui.plain import plain_labels
from localmind.ui.server_settings import REMOTE_KEY_NAME, ApiStatusLabel
from localmind.ui.settings_dialog import SettingsDialog
from localmind.ui.theme import ThemeManager
from localmind.ui.welcome import WelcomePage
from localmind.viewmodels.chat_session import ChatSession
from localmind.viewmodels.conversation_list import ConversationListModel
from localmind.viewmodels.drafts import Drafts
from localmind.workers import collector
from localmind.workers.api_server import AppApiServer
from localmind.workers.inference import InferenceService
from localmind.workers.messages import user_text
from localmind.workers.tasks import TaskRunner
from localmind.workers.typeahead import TypeAhead

if TYPE_CHECKING:
    from localmind.ui.documents_wiring import DocumentsCore, DocumentsFeature

log = logging.getLogger(__name__)

TRASH_KEEP_S = 0.0  # a deleted chat can be undone until the app closes; then it is gone for good


def _local_or_remote_engine() -> ChatEngine:
    """The engine child process for model folders, a remote server for the picker's remote models."""
    from localmind.engine.process import EngineProcess
    from localmind.engine.remote import RoutingEngine

    return RoutingEngine(EngineProcess(), lambda _url: secrets.get_token(REMOTE_KEY_NAME))


class LocalMind(QObject):
    """Owns the app's objects for one window, connects them, and tears them down in order.

    The behaviour lives in the controllers (localmind/controllers); the methods here are the app's entry points
    for the self-test and the tests, and hand over to them.

    Args:
        model_dir: load this model now; ``None`` loads the last one used, if it is still there.
        engine_factory: builds the engine (default: the engine child process); tests pass a fake.
        settings, store: injected by tests; by default read from the data folder.
    """

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
        # Cyclic garbage (closed dialogs among it) is collected on this thread only (workers/collector.py).
        self.collector = collector.install(qapp)
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
        # Documents' turns are the session's from the start ("Use my documents"); None when the disk has no room.
        self.documents_core = self._open_documents()
        chat = self.documents_core.chat if self.documents_core is not None else None
        self.session = ChatSession(self.store, self.service, self.settings, documents=chat)
        self.conversations = ConversationListModel()
        self.drafts = Drafts(data / "drafts.json", self)
        self.api_status = ApiStatusLabel()  # the local API server's state, in the status bar
        self.window = MainWindow(
            self.conversations,
            state_path=paths.window_state_path(),
            model_manager_factory=self._model_manager_factory(),
            status_indicators=[self.api_status],
        )
        self._build_controllers()
        self.documents = self._build_documents()
        plain_labels(self.window)  # the pages features added too: file names and paths are text, never HTML
        # Shown under the message box while a reasoning model with a thinking switch (Qwen3) is loaded.
        self.thinking_switch = ThinkingSwitch(self.session, self.service)
        self.window.composer.footer.insertWidget(1, self.thinking_switch)
        self.typeahead = TypeAhead(
            self.service, self._typeahead_history, self._typeahead_draft, lambda: self.settings.prepare_replies, self
        )
        if self.documents is not None:
            self.documents.attach_typeahead(self.typeahead)  # the question's passages are read as it is typed
        self._connect()
        self.api.start()
        self.chats.reload()
        self.session.new_chat()
        self.window.set_model_state(WelcomePage.NO_MODEL)
        self.loading.load_at_start(model_dir, load_last_model)

    def _build_controllers(self) -> None:
        window, session, tasks = self.window, self.session, self.tasks
        self.loading = ModelLoading(self.service, session, window, self.settings, self._save_settings, self)
        self.chats = Conversations(self.store, session, window, self.conversations, self.drafts, self)
        self.transfer = ImportExport(self.store, self.chats, window, tasks, self)
        # The local API server (off by default): the window's engine, shared turn by turn (workers/api_server.py).
        self.api_server = AppApiServer(self.service, self)
        self.api = ApiServerLifecycle(self.api_server, self.api_status, self.settings, window, tasks, self)
        self.settings_flow = SettingsFlow(
            self.settings,
            session,
            window,
            tasks,
            loading=self.loading,
            api=self.api,
            theme=self.theme,
            translations=self.translations,
            save_settings=self._save_settings,
            parent=self,
        )

    def _open_documents(self) -> DocumentsCore | None:
        from localmind.ui.documents_wiring import open_documents

        try:
            return open_documents(self.store, lambda: self.session.model)
        except UserFacingError as exc:
            # A full or read-only disk (issue 10.3) must not stop the chats from opening; documents wait for space.
            log.warning("Documents are unavailable: %s", exc)
            return None

    def _build_documents(self) -> DocumentsFeature | None:
        """The Documents place, "Use my documents", indexing (issue 13)."""
        from localmind.ui.documents_wiring import DocumentsFeature

        if self.documents_core is None:
            return None
        return DocumentsFeature(
            self.documents_core,
            self.session,
            self.service,
            self.window,
            self.tasks,
            self.settings,
            self._save_settings,
            self,
        )

    # -- wiring: every connection in the app, in one place ---------------------------------------------------------
    def _connect(self) -> None:
        service, session, window = self.service, self.session, self.window
        composer, chat_view = window.composer, window.chat_view
        for controller in (self.loading, self.chats, self.transfer, self.settings_flow):
            controller.wire()

        service.tokens_ready.connect(session.on_tokens)
        service.finished.connect(session.on_finished)
        service.failed.connect(session.on_failed)
        service.token_count_ready.connect(session.on_token_count)

        session.message_added.connect(window.add_message)
        session.reply_delta.connect(chat_view.append_to_last)
        session.turn_finished.connect(window.status.set_turn_stats)
        self.announcer = AnswerAnnouncer(session, chat_view, parent=self)  # screen readers hear the answer end
        session.context_usage.connect(window.status.set_context)
        session.error.connect(lambda title, detail: window.show_error(title, detail))
        session.saver.problem.connect(lambda title, detail: window.show_error(title, detail))
        session.saver.saved.connect(lambda title, detail: window.show_notice(title, detail, timeout_ms=8000))
        window.restore_requested.connect(self.restore_backup)

        composer.send_requested.connect(session.send)
        composer.edit_submitted.connect(session.edit_message)
        composer.stop_requested.connect(session.stop)
        composer.regenerate_requested.connect(session.regenerate)
        chat_view.regenerate_requested.connect(session.regenerate)

        # Type-ahead (issue 12): the engine reads the chat and the message while the user types.
        composer.input.textChanged.connect(self.typeahead.text_changed)
        session.conversation_opened.connect(lambda *_: self.typeahead.chat_changed())
        session.generating_changed.connect(self._typeahead_after_turn)
        service.loaded.connect(lambda *_: self.typeahead.chat_changed())

        window.closing.connect(self.shutdown)
        self.qapp.aboutToQuit.connect(self.shutdown)

    def _model_manager_factory(self) -> Callable[[], QWidget]:
        def build() -> QWidget:
            # Imported on first use: the page pulls in the Hub client, which the chat alone does not need.
            from localmind.core.hub.device import download_device
            from localmind.ui.model_manager import ModelManagerPage
            from localmind.workers.download import DownloadController

            # Downloads are for the device the engine actually uses (under "auto": a GPU first, as the engine tries).
            device = download_device(self.settings.device, self.loading.loaded_device)
            page = ModelManagerPage(device=device, controller=DownloadController(runner=self.tasks))
            plain_labels(page)  # repo ids, paths and file names are shown as text, never as HTML
            page.load_requested.connect(self.loading.load_from_manager)
            page.model_installed.connect(lambda path: self.loading.on_model_installed(page, path))
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

    # -- entry points (the self-test, the tests, the backup restore) -----------------------------------------------
    def load_model(self, model_dir: str) -> None:
        self.loading.load(model_dir)

    def reload_conversations(self) -> None:
        self.chats.reload()

    def new_chat(self) -> None:
        self.chats.new_chat()

    def open_conversation(self, conversation_id: str) -> None:
        self.chats.open(conversation_id)

    def delete_conversation(self, conversation_id: str) -> None:
        self.chats.delete(conversation_id)

    def search(self, query: str) -> None:
        self.chats.search(query)

    def export_conversations(self, conversation_ids: Sequence[str] | None, fmt: str, path: Path) -> int:
        return self.transfer.export_conversations(conversation_ids, fmt, path)

    def import_conversations(self, path: Path) -> list[Conversation]:
        return self.transfer.import_conversations(path)

    def restore_backup(self) -> None:
        store_dialogs.restore_flow(self)

    def open_settings(self) -> SettingsDialog:
        return self.settings_flow.open()

    @property
    def settings_dialog(self) -> SettingsDialog | None:
        return self.settings_flow.dialog

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
        self.chats.closed = True
        self.chats.drafts.remember()
        self.drafts.flush()
        self.session.shutdown()
        store_dialogs.save_or_rescue(self.session.saver)  # an answer a full disk kept out is asked about, not dropped
        # Every background task stops together, against one deadline; downloads pause and resume at the next start.
        self.tasks.shutdown()
        self.api.shutdown()
        self.service.shutdown()
        if self.documents is not None:
            self.documents.shutdown()
        if self.owns_data_folder:
            try:
                self.store.purge_deleted(TRASH_KEEP_S)
            except UserFacingError as exc:
                log.warning("Could not empty the trash: %s", exc)
        self.store.close()


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


def run_gui(
    args: argparse.Namespace,
    *,
    engine_factory: Callable[[], ChatEngine] | None = None,
    before_show: Callable[[LocalMind], None] | None = None,
) -> int:
    """``localmind`` / ``localmind --model DIR``: open the window and run until it closes.

    A second start on a data folder whose window is open says so and exits (0) before it opens anything.
    ``engine_factory`` and ``before_show`` (called with the app before its window shows) are for the end-to-end
    tests' entry point (tests/helpers/app_hooks.py); ``localmind`` itself passes neither.
    """
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    lock = InstanceLock(paths.ensure_data_dir())
    if not lock.acquire():
        already_running.tell(paths.data_dir(), lock.holder(), load_settings().language)
        return 0
    try:
        return _run_window(args, engine_factory, before_show)
    finally:
        lock.release()


def _run_window(
    args: argparse.Namespace,
    engine_factory: Callable[[], ChatEngine] | None,
    before_show: Callable[[LocalMind], None] | None,
) -> int:
    app = create_application()
    reporter, crashes, previous_crash = _install_crash_reporting()
    # The database is opened before the main window: a full or read-only disk, a lock or damage is told in a
    # window of its own (store_dialogs), never only on stderr.
    store = _open_store_for_window()
    if store is None:
        crashes.uninstall()
        return 1
    mind = create_app(getattr(args, "model", None), store=store, engine_factory=engine_factory)
    already_running.BringForward(paths.data_dir(), mind.window)  # a second start brings this window forward
    if store.read_only:
        mind.window.show_error(*store_dialogs.read_only_notice())
    store_dialogs.start_backup(store, mind.tasks)
    if before_show is not None:
        before_show(mind)
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
