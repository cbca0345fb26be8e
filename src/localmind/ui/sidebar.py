"""The left column: new chat, search, the list of conversations, and an undo bar after a delete."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QModelIndex, QObject, QPersistentModelIndex, QPoint, QRect, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QColor, QFont, QKeyEvent, QPainter, QResizeEvent, QTextLayout
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListView,
    QMenu,
    QPushButton,
    QSizePolicy,
    QStackedWidget,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from localmind.core.conversations import SearchHit
from localmind.ui import icons, theme
from localmind.viewmodels.conversation_list import ConversationListModel
from localmind.viewmodels.plain_text import display_title, markdown_snippet
from localmind.viewmodels.search_results import SearchResultsModel

SEARCH_DELAY_MS = 200
UNDO_SECONDS = 8


class SearchHitDelegate(QStyledItemDelegate):
    """Conversation title in bold, then the snippet with the matched words highlighted."""

    PAD = 8

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> QSize:
        line = option.fontMetrics.lineSpacing()
        hit: SearchHit | None = index.data(SearchResultsModel.HitRole)
        lines = 1 if hit is None or hit.message_id is None else 3
        return QSize(200, lines * line + 2 * self.PAD + 2)

    def paint(
        self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> None:
        hit: SearchHit | None = index.data(SearchResultsModel.HitRole)
        if hit is None:
            return
        c = theme.current()
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        rect = option.rect.adjusted(0, 1, 0, -1)
        state = option.state
        if state & QStyle.StateFlag.State_Selected:
            painter.setBrush(QColor(c.selected))
        elif state & QStyle.StateFlag.State_MouseOver:
            painter.setBrush(QColor(c.hover))
        else:
            painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.drawRoundedRect(rect, 8, 8)
        inner = rect.adjusted(10, self.PAD, -10, -self.PAD)
        bold = QFont(option.font)
        bold.setWeight(QFont.Weight.DemiBold)
        painter.setFont(bold)
        painter.setPen(QColor(c.text))
        fm = painter.fontMetrics()
        title = fm.elidedText(display_title(hit.conversation_title), Qt.TextElideMode.ElideRight, inner.width())
        painter.drawText(QRect(inner.left(), inner.top(), inner.width(), fm.lineSpacing()), 0, title)
        if hit.message_id is not None:
            painter.setFont(option.font)
            painter.setPen(QColor(c.muted))
            top = inner.top() + fm.lineSpacing()
            snippet_rect = QRect(inner.left(), top, inner.width(), inner.bottom() - top)
            self._draw_snippet(painter, snippet_rect, hit, c)
        painter.restore()

    def _draw_snippet(self, painter: QPainter, rect: QRect, hit: SearchHit, c: theme.ThemeColors) -> None:
        # Shown as it reads, not as Markdown source (issue 9.10): the highlights move with the text.
        text, spans = markdown_snippet(" ".join(hit.snippet.split("\n")), hit.match_spans)
        layout = QTextLayout(text, painter.font())
        formats = []
        for start, end in spans:
            fmt = QTextLayout.FormatRange()
            fmt.start, fmt.length = start, end - start
            fmt.format.setForeground(QColor(c.text))
            fmt.format.setFontWeight(QFont.Weight.DemiBold)
            formats.append(fmt)
        layout.setFormats(formats)
        layout.beginLayout()
        y = 0.0
        lines = 0
        fm = painter.fontMetrics()
        while lines < 2:
            line = layout.createLine()
            if not line.isValid():
                break
            line.setLineWidth(rect.width())
            line.setPosition(QRect(0, int(y), 0, 0).topLeft().toPointF())
            y += fm.lineSpacing()
            lines += 1
        layout.endLayout()
        layout.draw(painter, rect.topLeft().toPointF())


class FitWidthDelegate(QStyledItemDelegate):
    """Rows as wide as the list, never wider: a long title is elided ("…") instead of scrolling sideways."""

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> QSize:
        return QSize(0, super().sizeHint(option, index).height())


class ConversationList(QListView):
    """The list itself: Delete removes the selected chat, F2 renames it."""

    delete_pressed = Signal()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_Delete and self.state() != QAbstractItemView.State.EditingState:
            self.delete_pressed.emit()
            return
        super().keyPressEvent(event)


class ElidedTitleLabel(QLabel):
    """A one-line label of a sentence around a title ("Deleted “{title}”"): where the line is too narrow the title is
    shortened with "…" and the sentence around it stays whole; the full title is in the tooltip."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._template = "{title}"
        self._title = ""
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.setTextFormat(Qt.TextFormat.PlainText)

    def set_title(self, template: str, title: str) -> None:
        self._template, self._title = template, title
        self.setToolTip(title)
        self._fit()

    def minimumSizeHint(self) -> QSize:
        return QSize(0, super().minimumSizeHint().height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit()

    def _fit(self) -> None:
        metrics = self.fontMetrics()
        room = self.contentsRect().width() - metrics.horizontalAdvance(self._template.format(title=""))
        title = metrics.elidedText(self._title, Qt.TextElideMode.ElideRight, max(room, 0)) if room > 0 else "…"
        self.setText(self._template.format(title=title or "…"))


class Sidebar(QFrame):
    """Signals:
    new_chat_requested(), conversation_selected(str id), delete_requested(str id), undo_delete_requested(str id),
    search_requested(str query) (after the user pauses typing), search_hit_activated(str conversation id, object message id),
    export_requested(str id or "" for all, str format), import_requested(), settings_requested()
    """

    new_chat_requested = Signal()
    conversation_selected = Signal(str)
    delete_requested = Signal(str)
    undo_delete_requested = Signal(str)
    search_requested = Signal(str)
    search_hit_activated = Signal(str, object)
    export_requested = Signal(str, str)
    import_requested = Signal()
    settings_requested = Signal()
    documents_requested = Signal()

    def __init__(self, model: ConversationListModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("Sidebar")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self.model = model
        self.results = SearchResultsModel(self)
        self._deleted_id: str | None = None
        self._selecting = False

        self.logo = QLabel()
        self.logo.setFixedSize(22, 22)
        self.app_title = QLabel("LocalMind")
        self.app_title.setObjectName("AppTitle")
        self.new_chat_button = QPushButton()
        self.new_chat_button.setObjectName("NewChatButton")
        self.new_chat_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.new_chat_button.clicked.connect(self.new_chat_requested)

        self._build_search()
        self.section_label = QLabel()
        self.section_label.setObjectName("SectionLabel")

        self._build_lists(model)
        self.empty_hint = QLabel()
        self.empty_hint.setObjectName("EmptyHint")
        self.empty_hint.setWordWrap(True)
        self.empty_hint.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignHCenter)

        self.stack = QStackedWidget()
        self.stack.addWidget(self.list_view)
        self.stack.addWidget(self.results_view)
        self.stack.addWidget(self.empty_hint)

        self._build_undo_bar()
        self._build_footer()
        title_row = QHBoxLayout()
        title_row.setContentsMargins(4, 0, 0, 0)
        title_row.setSpacing(8)
        title_row.addWidget(self.logo)
        title_row.addWidget(self.app_title, 1)
        bottom = QHBoxLayout()
        bottom.setContentsMargins(0, 0, 0, 0)
        bottom.addWidget(self.settings_button, 1, Qt.AlignmentFlag.AlignLeft)
        bottom.addWidget(self.more_button)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 12, 10, 10)
        layout.setSpacing(8)
        layout.addLayout(title_row)
        layout.addSpacing(4)
        layout.addWidget(self.new_chat_button)
        layout.addWidget(self.search_field)
        layout.addWidget(self.section_label)
        layout.addWidget(self.stack, 1)
        layout.addWidget(self.undo_bar)
        layout.addWidget(self.documents_button, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addLayout(bottom)
        self.setMinimumWidth(200)
        self.apply_theme()
        self.retranslate()
        self._update_empty()

    # -- building ----------------------------------------------------------------------------------------------------
    def _build_search(self) -> None:
        self.search_field = QLineEdit()
        self.search_field.setObjectName("SearchField")
        self.search_field.setClearButtonEnabled(True)
        self.search_icon = QAction(self)
        self.search_field.addAction(self.search_icon, QLineEdit.ActionPosition.LeadingPosition)
        self.search_field.textChanged.connect(self._on_search_text)
        self.search_field.installEventFilter(self)
        self._search_timer = QTimer(self)
        self._search_timer.setSingleShot(True)
        self._search_timer.setInterval(SEARCH_DELAY_MS)
        self._search_timer.timeout.connect(self._emit_search)

    def _build_lists(self, model: ConversationListModel) -> None:
        """The chats, and the search results shown instead of them while searching."""
        self.list_view = ConversationList()
        self.list_view.setObjectName("ConversationList")
        self.list_view.setModel(model)
        self.list_view.setItemDelegate(FitWidthDelegate(self.list_view))
        self.list_view.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list_view.setUniformItemSizes(True)
        self.list_view.setEditTriggers(
            QAbstractItemView.EditTrigger.DoubleClicked | QAbstractItemView.EditTrigger.EditKeyPressed
        )
        self.list_view.setMouseTracking(True)
        self.list_view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.list_view.customContextMenuRequested.connect(self._show_menu)
        self.list_view.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.list_view.selectionModel().currentChanged.connect(self._on_current_changed)
        self.list_view.delete_pressed.connect(self._delete_current)
        model.modelReset.connect(self._update_empty)

        self.results_view = QListView()
        self.results_view.setObjectName("SearchResults")
        self.results_view.setModel(self.results)
        self.results_view.setItemDelegate(SearchHitDelegate(self.results_view))
        self.results_view.setMouseTracking(True)
        self.results_view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.results_view.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.results_view.clicked.connect(self._on_hit)
        self.results_view.activated.connect(self._on_hit)

    def _build_undo_bar(self) -> None:
        """ "Deleted “…”" with Undo, for a few seconds after a delete."""
        self.undo_bar = QFrame()
        self.undo_bar.setObjectName("UndoBar")
        self.undo_label = ElidedTitleLabel()
        self.undo_button = QPushButton()
        self.undo_button.setObjectName("GhostButton")
        self.undo_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.undo_button.clicked.connect(self._undo)
        undo = QHBoxLayout(self.undo_bar)
        undo.setContentsMargins(10, 4, 4, 4)
        undo.addWidget(self.undo_label, 1)
        undo.addWidget(self.undo_button)
        self.undo_bar.hide()
        self._undo_timer = QTimer(self)
        self._undo_timer.setSingleShot(True)
        self._undo_timer.setInterval(UNDO_SECONDS * 1000)
        self._undo_timer.timeout.connect(self.undo_bar.hide)

    def _build_footer(self) -> None:
        """Documents, Settings and the import/export menu at the bottom."""
        self.settings_button = QPushButton()
        self.settings_button.setObjectName("GhostButton")
        self.settings_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.settings_button.clicked.connect(self.settings_requested)
        self.documents_button = QPushButton()  # the Documents place (issue 13)
        self.documents_button.setObjectName("GhostButton")
        self.documents_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.documents_button.clicked.connect(self.documents_requested)
        self.more_button = QToolButton()
        self.more_button.setObjectName("HeaderButton")
        self.more_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.more_menu = QMenu(self)
        self.import_action = self.more_menu.addAction("")
        self.import_action.triggered.connect(self.import_requested)
        self.export_md_action = self.more_menu.addAction("")
        self.export_md_action.triggered.connect(lambda: self.export_requested.emit("", "md"))
        self.export_json_action = self.more_menu.addAction("")
        self.export_json_action.triggered.connect(lambda: self.export_requested.emit("", "json"))
        self.more_button.setMenu(self.more_menu)

    # -- from the app --------------------------------------------------------------------------------------------
    def select_conversation(self, conversation_id: str | None) -> None:
        """Highlight ``conversation_id`` (none for a new chat) without announcing it as the user's choice."""
        row = self.model.row_of(conversation_id)
        self._selecting = True
        try:
            if row < 0:
                self.list_view.clearSelection()
                self.list_view.setCurrentIndex(QModelIndex())
            else:
                index = self.model.index(row)
                self.list_view.setCurrentIndex(index)
                self.list_view.scrollTo(index)
        finally:
            self._selecting = False

    def show_results(self, query: str, hits: list[SearchHit]) -> None:
        self.results.set_hits(query, hits)
        self._update_empty()

    def show_deleted(self, conversation_id: str, title: str) -> None:
        self._deleted_id = conversation_id
        self.undo_label.set_title(self.tr("Deleted “{title}”"), display_title(title))
        self.undo_bar.show()
        self._undo_timer.start()

    def focus_search(self) -> None:
        self.search_field.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.search_field.selectAll()

    @property
    def searching(self) -> bool:
        return bool(self.search_field.text().strip())

    # -- internals -----------------------------------------------------------------------------------------------
    def _on_search_text(self, _text: str) -> None:
        self._search_timer.start()
        if not self.searching:
            self._search_timer.stop()
            self.results.set_hits("", [])
            self._update_empty()

    def _emit_search(self) -> None:
        if self.searching:
            self.search_requested.emit(self.search_field.text().strip())

    def _update_empty(self) -> None:
        if self.searching:
            self.section_label.setText(self.tr("Search results"))
            if self.results.rowCount() == 0 and self.results.query:
                self.empty_hint.setText(self.tr("Nothing matches “{query}”.").format(query=self.results.query))
                self.stack.setCurrentWidget(self.empty_hint)
            else:
                self.stack.setCurrentWidget(self.results_view)
            return
        self.section_label.setText(self.tr("Chats"))
        if self.model.rowCount() == 0:
            self.empty_hint.setText(self.tr("Your chats will appear here."))
            self.stack.setCurrentWidget(self.empty_hint)
        else:
            self.stack.setCurrentWidget(self.list_view)

    def _on_current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if not self._selecting and current.isValid():
            self.conversation_selected.emit(current.data(ConversationListModel.IdRole))

    def _on_hit(self, index: QModelIndex) -> None:
        hit = self.results.hit(index.row())
        if hit is not None:
            self.search_hit_activated.emit(hit.conversation_id, hit.message_id)

    def _delete_current(self) -> None:
        index = self.list_view.currentIndex()
        if index.isValid():
            self.delete_requested.emit(index.data(ConversationListModel.IdRole))

    def _undo(self) -> None:
        self.undo_bar.hide()
        self._undo_timer.stop()
        if self._deleted_id is not None:
            self.undo_delete_requested.emit(self._deleted_id)
            self._deleted_id = None

    def _show_menu(self, pos: QPoint) -> None:
        index = self.list_view.indexAt(pos)
        if not index.isValid():
            return
        conversation_id = index.data(ConversationListModel.IdRole)
        c = theme.current()
        menu = QMenu(self)
        rename = menu.addAction(icons.icon("edit-square", c.text), self.tr("Rename"))
        rename.triggered.connect(lambda: self.list_view.edit(index))
        export_md = menu.addAction(icons.icon("download", c.text), self.tr("Export as Markdown…"))
        export_md.triggered.connect(lambda: self.export_requested.emit(conversation_id, "md"))
        export_json = menu.addAction(self.tr("Export as JSON…"))
        export_json.triggered.connect(lambda: self.export_requested.emit(conversation_id, "json"))
        menu.addSeparator()
        delete = menu.addAction(icons.icon("trash", c.danger), self.tr("Delete"))
        delete.triggered.connect(lambda: self.delete_requested.emit(conversation_id))
        menu.exec(self.list_view.viewport().mapToGlobal(pos))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (
            watched is getattr(self, "search_field", None)
            and isinstance(event, QKeyEvent)
            and event.type() == QEvent.Type.KeyPress
        ):
            key = event.key()
            if key == Qt.Key.Key_Escape and self.search_field.text():
                self.search_field.clear()
                return True
            if key in (Qt.Key.Key_Down, Qt.Key.Key_Return, Qt.Key.Key_Enter) and self.searching:
                self._search_timer.stop()
                self._emit_search()
                if self.results.rowCount():
                    self.results_view.setFocus()
                    self.results_view.setCurrentIndex(self.results.index(0))
                return True
        return super().eventFilter(watched, event)

    def apply_theme(self) -> None:
        c = theme.current()
        self.logo.setPixmap(icons.pixmap("spark", c.accent_hover if c.is_dark else c.accent, 22))
        self.new_chat_button.setIcon(icons.icon("edit-square", c.text))
        self.search_icon.setIcon(icons.icon("search", c.muted))
        self.settings_button.setIcon(icons.icon("sliders", c.muted))
        self.more_button.setIcon(icons.icon("more", c.muted))

    def retranslate(self) -> None:
        self.new_chat_button.setText(self.tr("New chat"))
        self.new_chat_button.setToolTip(self.tr("Start a new chat (Ctrl+N)"))
        self.new_chat_button.setAccessibleName(self.tr("New chat"))
        self.search_field.setPlaceholderText(self.tr("Search chats"))
        self.search_field.setAccessibleName(self.tr("Search chats"))
        self.search_field.setToolTip(self.tr("Search titles and messages (Ctrl+F)"))
        self.list_view.setAccessibleName(self.tr("Chats"))
        self.results_view.setAccessibleName(self.tr("Search results"))
        self.undo_button.setText(self.tr("Undo"))
        self.settings_button.setText(self.tr("Settings"))
        self.documents_button.setText(self.tr("Documents"))
        self.documents_button.setToolTip(self.tr("Your documents: add files to answer from"))
        self.settings_button.setAccessibleName(self.tr("Settings"))
        self.settings_button.setToolTip(self.tr("Settings (Ctrl+,)"))
        self.more_button.setAccessibleName(self.tr("More"))
        self.more_button.setToolTip(self.tr("Import and export"))
        self.import_action.setText(self.tr("Import conversations…"))
        self.export_md_action.setText(self.tr("Export all as Markdown…"))
        self.export_json_action.setText(self.tr("Export all as JSON…"))
        self._update_empty()

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)
