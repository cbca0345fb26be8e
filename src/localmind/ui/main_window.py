"""The main window: sidebar | header, notices, chat (or welcome page), composer, status.

The window only arranges widgets and turns keys and clicks into signals; what a
click means (sending, loading a model, saving) is wired in ``localmind.app``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt, QUrl, Signal
from PySide6.QtGui import (
    QAction,
    QCloseEvent,
    QDesktopServices,
    QGuiApplication,
    QKeySequence,
    QScreen,
    QShowEvent,
)
from PySide6.QtWidgets import (
    QApplication,
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QMainWindow,
    QPushButton,
    QScrollArea,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from localmind.core.conversations import Conversation, Message
from localmind.ui import theme
from localmind.ui.banner import Banner
from localmind.ui.chat_header import ChatHeader
from localmind.ui.chat_view import ChatView
from localmind.ui.composer import Composer
from localmind.ui.focus import FocusKeeper
from localmind.ui.plain import display_title, plain_labels
from localmind.ui.sidebar import Sidebar
from localmind.ui.status_bar import StatusBar
from localmind.ui.welcome import WelcomePage
from localmind.ui.window_state import WindowState, fit_to_screen
from localmind.viewmodels.conversation_list import ConversationListModel

CONTENT_WIDTH = 820
SAFE_LINK_SCHEMES = ("http", "https", "mailto")
BANNER_MARGIN = (20, 8)  # a notice's distance from the sides (as the message box's) and the top of the page


class MainWindow(QMainWindow):
    """Signals:
    model_folder_chosen(str): the user picked a folder to load.
    settings_requested(), closing()
    """

    model_folder_chosen = Signal(str)
    settings_requested = Signal()
    closing = Signal()
    restore_requested = Signal()  # "Restore from backup…" (store)

    CHAT_PAGE, MANAGER_PAGE = 0, 1

    def __init__(
        self,
        conversations: ConversationListModel | None = None,
        *,
        state_path: Path | None = None,
        model_manager_factory: Callable[[], QWidget] | None = None,
        status_indicators: Sequence[QWidget] = (),
    ) -> None:
        super().__init__()
        self.setObjectName("MainWindow")
        self._model_manager_factory = model_manager_factory
        self.model_manager: QWidget | None = None
        self._message_count = 0
        self._generating = False

        self.sidebar = Sidebar(conversations if conversations is not None else ConversationListModel(self))
        self.restore_action = self.sidebar.more_menu.addAction("")
        self.restore_action.triggered.connect(self.restore_requested)
        self.chat_view = ChatView()
        self.chat_view.setObjectName("ChatView")
        self.welcome = WelcomePage()
        self.welcome.set_model_manager_available(model_manager_factory is not None)
        self.welcome.open_folder_requested.connect(self.choose_model_folder)
        self.welcome.get_model_requested.connect(self.show_model_manager)
        self.composer = Composer()
        self.status = StatusBar(indicators=status_indicators)
        self.banner = Banner()

        # Header: the chat's title, the model picker, settings.
        self.header = ChatHeader(model_manager_factory is not None)
        self.header.model_chosen.connect(self.model_folder_chosen)
        self.header.open_folder_requested.connect(self.choose_model_folder)
        self.header.manager_requested.connect(self.show_model_manager)
        self.header.settings_requested.connect(self.settings_requested)
        self.title_label, self.model_button = self.header.title_label, self.header.model_button
        self.model_menu, self.settings_button = self.header.model_menu, self.header.settings_button
        self.open_folder_action, self.manager_action = self.header.open_folder_action, self.header.manager_action

        self.chat_area = self._build_chat_area()
        self.manager_holder = self._build_manager_holder()
        self.main_stack = QStackedWidget()
        self.main_stack.addWidget(self.chat_area)
        self.main_stack.addWidget(self.manager_holder)
        self.splitter = self._build_splitter()
        self.setCentralWidget(self.splitter)

        # After an action that does not take typing, the message box has the keyboard (ui/focus.py).
        self.focus_keeper = FocusKeeper(self, self.composer.input, self.main_stack, self.chat_area)
        self.focus_keeper.send_typing(self.sidebar.list_view)
        self.focus_keeper.send_typing(self.sidebar.results_view, to=self.sidebar.search_field)
        self._build_actions()
        self.chat_view.link_clicked.connect(self.open_link)
        self.chat_view.copy_requested.connect(self.copy_text)
        self.fit_to_screen()
        self.apply_theme()
        self.retranslate()
        self.show_conversation(None, [])
        self.window_state = WindowState(self, self.splitter, state_path)
        self.window_state.restore()
        # The first keys typed go to the message box. Without this Qt focuses the first widget in tab order (the
        # sidebar's "New chat" button) when the window is activated: it drops letters and a space "clicks" it, which
        # moved the focus to the box, so the first word of the first message was lost (issue 9.1).
        self.composer.input.setFocus()
        plain_labels(self)  # titles, paths, model names and messages are shown as text, never as HTML (issue 9.14)

    # -- building ---------------------------------------------------------------------------------------------------
    def _build_chat_area(self) -> QWidget:
        """The header, the page (welcome or chat), the message box and the status line; notices float over it."""
        # The welcome page scrolls where the window is short (1366×768 at 150 %) instead of squeezing its cards.
        self.welcome_page = QScrollArea()
        self.welcome_page.setObjectName("WelcomeScroll")
        self.welcome_page.setWidgetResizable(True)
        self.welcome_page.setFrameShape(QFrame.Shape.NoFrame)
        self.welcome_page.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.welcome_page.setWidget(self.welcome)
        self.pages = QStackedWidget()
        self.pages.addWidget(self.welcome_page)
        self.pages.addWidget(self.chat_view)

        composer_row = QHBoxLayout()
        composer_row.setContentsMargins(20, 6, 20, 10)
        self.composer.setMaximumWidth(CONTENT_WIDTH)
        composer_row.addStretch(1)
        composer_row.addWidget(self.composer, 100)
        composer_row.addStretch(1)

        chat_area = QWidget()
        chat_layout = QVBoxLayout(chat_area)
        chat_layout.setContentsMargins(0, 0, 0, 0)
        chat_layout.setSpacing(0)
        chat_layout.addWidget(self.header)
        chat_layout.addWidget(self.pages, 1)
        chat_layout.addLayout(composer_row)
        chat_layout.addWidget(self.status)
        # Notices float over the top of the page instead of pushing it down (and back up when a timed one goes):
        # a click aimed at a card while a notice came or went landed on another one (issue 21).
        self.banner.setParent(chat_area)
        self.banner.setMaximumWidth(CONTENT_WIDTH)
        chat_area.installEventFilter(self)
        self.banner.installEventFilter(self)
        return chat_area

    def _build_manager_holder(self) -> QWidget:
        """The model manager's place, with a way back to the chat (the manager is built the first time it opens)."""
        holder = QWidget()
        self.manager_layout = manager_layout = QVBoxLayout(holder)
        manager_layout.setContentsMargins(0, 0, 0, 0)
        manager_layout.setSpacing(0)
        self.manager_bar = manager_bar = QFrame()
        manager_bar.setObjectName("ChatHeader")
        manager_bar.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self.back_button = QPushButton()
        self.back_button.setObjectName("GhostButton")
        self.back_button.clicked.connect(self.show_chat)
        bar = QHBoxLayout(manager_bar)
        bar.setContentsMargins(12, 8, 12, 8)
        bar.addWidget(self.back_button)
        bar.addStretch(1)
        manager_layout.addWidget(manager_bar)
        return holder

    def _build_splitter(self) -> QSplitter:
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.setObjectName("MainSplitter")
        splitter.addWidget(self.sidebar)
        splitter.addWidget(self.main_stack)
        splitter.setStretchFactor(0, 0)
        splitter.setStretchFactor(1, 1)
        splitter.setCollapsible(1, False)
        splitter.setHandleWidth(1)
        splitter.setSizes([260, 900])
        return splitter

    # -- actions and shortcuts ---------------------------------------------------------------------------------
    def _build_actions(self) -> None:
        def action(shortcuts: list[QKeySequence], slot: Callable[[], None]) -> QAction:
            act = QAction(self)
            act.setShortcuts(shortcuts)
            act.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
            act.triggered.connect(slot)
            self.addAction(act)
            return act

        # "Ctrl" in a QKeySequence is Cmd on macOS, so these read right on every platform.
        self.new_chat_action = action(
            [QKeySequence(QKeySequence.StandardKey.New)], self.sidebar.new_chat_requested.emit
        )
        self.find_action = action([QKeySequence(QKeySequence.StandardKey.Find)], self.sidebar.focus_search)
        self.models_shortcut = action([QKeySequence("Ctrl+Shift+M")], self.show_model_manager)
        self.settings_action = action(
            [QKeySequence("Ctrl+,"), QKeySequence(QKeySequence.StandardKey.Preferences)], self.settings_requested.emit
        )
        self.stop_action = action([QKeySequence(Qt.Key.Key_Escape)], self.composer.stop_requested.emit)
        self.stop_action.setEnabled(False)
        self.copy_answer_action = action([QKeySequence("Ctrl+Shift+C")], self.copy_last_answer)
        # Ctrl+Q everywhere (Windows has no standard Quit key; Cmd+Q on macOS is the same sequence).
        self.quit_action = action([QKeySequence("Ctrl+Q")], self._quit)
        self.composer.send_blocked.connect(self._on_send_blocked)
        self.composer.send_queued.connect(self._on_send_queued)
        self.sidebar.settings_requested.connect(self.settings_requested)

    # -- state from the app ----------------------------------------------------------------------------------
    def show_conversation(self, conversation: Conversation | None, messages: list[Message]) -> None:
        self.chat_view.set_messages(messages)
        self._message_count = len(messages)
        self._set_title(conversation.title if conversation else "")
        self.sidebar.select_conversation(conversation.id if conversation else None)
        self._update_page()

    def add_message(self, message: Message) -> None:
        self.chat_view.append_message(message)
        self._message_count += 1
        self._update_page()

    def set_conversation_title(self, title: str) -> None:
        self._set_title(title)

    def _set_title(self, title: str) -> None:
        self._title = title
        shown = display_title(title)
        self.title_label.setText(shown or self.tr("New chat"))
        self.setWindowTitle(f"{shown} — LocalMind" if shown else "LocalMind")

    def _update_page(self) -> None:
        self.pages.setCurrentWidget(self.chat_view if self._message_count else self.welcome_page)

    def set_generating(self, generating: bool) -> None:
        self._generating = generating
        self.composer.set_generating(generating)
        self.chat_view.set_generating(generating)
        self.stop_action.setEnabled(generating)

    def set_model_state(self, state: str, name: str = "", model_dir: str = "") -> None:
        """``state``: WelcomePage.NO_MODEL, LOADING or READY; ``model_dir``: the folder of the model that is ready."""
        self.welcome.set_state(state, name)
        ready = state == WelcomePage.READY
        reason = self.tr("Loading the model…") if state == WelcomePage.LOADING else self.tr("Open a model first")
        self.composer.set_can_send(ready, "" if ready else reason, queue=state == WelcomePage.LOADING)
        self.header.set_model_state(state, name, model_dir)

    @property
    def remote_models(self) -> list[tuple[str, str, str]]:
        """(label, model id, tooltip) of models on a remote server, listed in the model picker (set by the app)."""
        return self.header.remote_models

    @remote_models.setter
    def remote_models(self, models: list[tuple[str, str, str]]) -> None:
        self.header.remote_models = models

    def refresh_model_menu(self) -> None:
        self.header.refresh_model_menu()

    def show_error(self, title: str, detail: str = "", actions: Sequence[tuple[str, Callable[[], None]]] = ()) -> None:
        self.banner.show_message("error", title, detail, actions)

    def show_notice(self, title: str, detail: str = "", timeout_ms: int = 4000) -> None:
        self.banner.show_message("info", title, detail, timeout_ms=timeout_ms)

    # -- doing things -------------------------------------------------------------------------------------------
    def choose_model_folder(self) -> None:
        start = str(Path.home())
        folder = QFileDialog.getExistingDirectory(self, self.tr("Open a model folder"), start)
        if folder:
            self.model_folder_chosen.emit(folder)

    def show_model_manager(self) -> None:
        if self._model_manager_factory is None:
            return
        if self.model_manager is None:
            self.model_manager = self._model_manager_factory()
            theme.style(self.model_manager)
            self.manager_layout.addWidget(self.model_manager, 1)
        self.main_stack.setCurrentWidget(self.manager_holder)

    def show_chat(self) -> None:
        if self.main_stack.currentWidget() is not self.chat_area:
            self.main_stack.setCurrentWidget(self.chat_area)
            self.composer.input.setFocus()  # back from the model manager: typing goes on in the message box

    def copy_text(self, text: str) -> None:
        QGuiApplication.clipboard().setText(text)

    def _quit(self) -> None:
        self.close()

    def _on_send_blocked(self, reason: str) -> None:
        if not self._generating:  # (while the model loads Enter queues the message instead: _on_send_queued)
            reason = self.tr("No model is loaded. Open a model folder or get a model first (the model picker above).")
        self.show_notice(self.tr("Your message was not sent yet."), reason + " " + self.tr("It stays in the box."))

    def _on_send_queued(self, queued: bool) -> None:
        title = self.tr("Your message will be sent when the model is ready.")
        if queued:
            detail = self.tr(
                "Edit it before then to hold it back (then press Enter again), or press Esc to keep it unsent."
            )
            self.show_notice(title, detail, timeout_ms=0)
        elif self.banner.isVisible() and self.banner.title.text() == title:
            self.banner.dismiss()  # sent, edited or held back: the notice is no longer true

    def copy_last_answer(self) -> None:
        text = self.chat_view.last_assistant_text()
        if text:
            self.copy_text(text)
            self.show_notice(self.tr("Copied the last answer."), timeout_ms=2000)

    source_link_handler: Callable[[QUrl], bool] | None = None  # a cited document source (set by the documents feature)

    def open_link(self, url: QUrl) -> bool:
        """Open a link the user clicked in an answer in the system browser; other schemes (file:, custom) are refused."""
        if url.scheme() == "localmind-source" and self.source_link_handler is not None:
            return self.source_link_handler(url)
        if url.scheme().lower() not in SAFE_LINK_SCHEMES:
            self.show_error(
                self.tr("This link was not opened."), self.tr("Only web and e-mail links open from a chat.")
            )
            return False
        return QDesktopServices.openUrl(url)

    # -- window state -------------------------------------------------------------------------------------------
    def fit_to_screen(self, screen: QScreen | None = None) -> None:
        fit_to_screen(self, screen)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.window_state.apply_pending_splitter()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (watched is getattr(self, "chat_area", None) and event.type() == QEvent.Type.Resize) or (
            watched is getattr(self, "banner", None) and event.type() in (QEvent.Type.Show, QEvent.Type.LayoutRequest)
        ):
            self._place_banner()
        return super().eventFilter(watched, event)

    def _place_banner(self) -> None:
        """The notice over the top of the page, as wide as the chat column (the page itself does not move)."""
        pages = self.pages.geometry()
        side, top = BANNER_MARGIN
        width = max(min(CONTENT_WIDTH, pages.width() - 2 * side), 1)
        height = self.banner.heightForWidth(width) if self.banner.hasHeightForWidth() else -1
        height = max(height, self.banner.minimumSizeHint().height())
        height = min(height, max(pages.height() - 2 * top, 1))
        self.banner.setGeometry(pages.x() + (pages.width() - width) // 2, pages.y() + top, width, height)
        layout = self.banner.layout()
        if layout is not None:
            layout.activate()  # its labels get their lines now, not on a later pass (a dialog opening meanwhile)
        self.banner.raise_()

    def focusNextPrevChild(self, next: bool) -> bool:
        # Tab and Shift+Tab end here from any widget of the window; so does a focused widget that is hidden or
        # disabled (then the focus is not moved on purpose).
        focused = QApplication.focusWidget()
        on_purpose = focused is not None and focused.isVisible() and focused.isEnabled()
        with self.focus_keeper.navigating(on_purpose):
            return super().focusNextPrevChild(next)

    def closeEvent(self, event: QCloseEvent) -> None:
        self.window_state.save()
        self.closing.emit()
        super().closeEvent(event)

    # -- look and language ---------------------------------------------------------------------------------------
    def apply_theme(self) -> None:
        for part in (
            self.sidebar,
            self.header,
            self.banner,
            self.composer,
            self.status,
            self.welcome,
            self.manager_bar,
            *([self.model_manager] if self.model_manager is not None else []),
        ):
            theme.style(part)
        self.header.apply_theme()
        self.sidebar.apply_theme()
        self.composer.apply_theme()
        self.status.apply_theme()
        self.welcome.apply_theme()

    def retranslate(self) -> None:
        self.header.retranslate()
        self.welcome_page.setAccessibleName(self.tr("Welcome"))
        self.restore_action.setText(QCoreApplication.translate("BackupRestore", "Restore from backup…"))
        self.back_button.setText(self.tr("← Back to chat"))
        self.chat_view.setAccessibleName(self.tr("Conversation"))
        self._set_title(getattr(self, "_title", ""))

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)
