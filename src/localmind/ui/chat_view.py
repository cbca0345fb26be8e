"""The messages of one conversation: Markdown answers, user bubbles, streaming, copy/edit/regenerate.

Opening a long conversation builds widgets for the newest messages only; older ones are built a page
at a time when the user scrolls up to them, keeping what was on screen in place. Streaming touches
only the last message, and inside it only the block still being written (see
:class:`localmind.ui.chat.markdown.StreamSplitter`), so a batch costs the same at token 100 and 4,000.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from PySide6.QtCore import QEvent, QPoint, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import QPalette, QResizeEvent, QShowEvent
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLayout, QScrollArea, QToolButton, QVBoxLayout, QWidget

from localmind.engine.formats.thinking import strip_thinking
from localmind.ui.chat import icons
from localmind.ui.chat.message_widget import MessageRecord, MessageWidget
from localmind.ui.chat.theme import ChatTheme

# Messages built when a conversation opens, and per step when scrolling up: enough to fill a tall
# window several times over while staying far inside the 300 ms budget for opening.
PAGE_SIZE = 16
# Within this many pixels of the end counts as "at the bottom" (new text keeps the view pinned there).
_STICK_MARGIN = 48
_COLUMN_MAX_WIDTH = 860
# A message scrolled to from search sits this far below the top edge, so its start is not cut by it.
_TARGET_MARGIN = 16


class MessageLike(Protocol):
    """What the view reads from a message (``localmind.core.conversations.Message`` fits)."""

    @property
    def id(self) -> int: ...
    @property
    def role(self) -> str: ...
    @property
    def content(self) -> str: ...
    @property
    def status(self) -> str: ...


class ChatView(QWidget):
    """Shows one conversation.

    Signals:
        copy_requested(str): a message or code block was copied; the text is already on the clipboard.
        edit_requested(int): the user clicked Edit on the user message with this id.
        regenerate_requested(): the user clicked Regenerate on the last answer.
        link_clicked(QUrl): the user clicked an http(s) or mailto link in an answer; nothing was opened.
    """

    copy_requested = Signal(str)
    edit_requested = Signal(int)
    regenerate_requested = Signal()
    version_requested = Signal(int, int)  # message id, version: show another version of that answer
    link_clicked = Signal(QUrl)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAccessibleName(self.tr("Conversation"))
        self._theme = ChatTheme.from_palette(self.palette())
        self._records: list[MessageRecord] = []
        self._by_id: dict[int, MessageRecord] = {}
        self._widgets: dict[int, MessageWidget] = {}
        self._first_built = 0  # index in _records of the oldest message that has a widget
        self._generating = False
        self._stick = True
        self._adjusting = False
        self._anchor: tuple[QWidget, int] | None = None
        self._load_pending = False

        self._scroll = QScrollArea(self)
        self._scroll.setWidgetResizable(True)
        self._scroll.setFrameShape(QFrame.Shape.NoFrame)
        self._scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self._scroll.setAccessibleName(self.tr("Messages"))
        self._scroll.viewport().setBackgroundRole(QPalette.ColorRole.Window)
        canvas = QWidget()
        canvas.setBackgroundRole(QPalette.ColorRole.Window)
        canvas.setAutoFillBackground(True)
        self._column = QWidget(canvas)
        self._column.setMaximumWidth(_COLUMN_MAX_WIDTH)
        self._list = QVBoxLayout(self._column)
        # 24 px from the edges to the text: 14 here and 10 inside each message (room for its highlight).
        self._list.setContentsMargins(14, 12, 14, 24)
        self._list.setSpacing(6)
        self._list.addStretch(1)
        row = QHBoxLayout(canvas)
        row.setContentsMargins(0, 0, 0, 0)
        row.addStretch(0)
        row.addWidget(self._column, 1)
        row.addStretch(0)
        self._canvas = canvas
        self._scroll.setWidget(canvas)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        # The view never imposes a minimum size on a window it is the top level of (tests, demos):
        # every change would be pushed to the platform window, which offscreen Qt warns about.
        layout.setSizeConstraint(QLayout.SizeConstraint.SetNoConstraint)
        layout.addWidget(self._scroll)

        bar = self._scroll.verticalScrollBar()
        bar.valueChanged.connect(self._on_scrolled)
        bar.rangeChanged.connect(self._on_range_changed)

        self._jump = QToolButton(self)
        self._jump.setAccessibleName(self.tr("Scroll to the latest message"))
        self._jump.setToolTip(self._jump.accessibleName())
        self._jump.setCursor(Qt.CursorShape.PointingHandCursor)
        self._jump.setFixedSize(34, 34)
        self._jump.clicked.connect(self.scroll_to_bottom)
        self._jump.hide()
        self._style_jump_button()

        self._theme_timer = QTimer(self)
        self._theme_timer.setSingleShot(True)
        self._theme_timer.setInterval(0)
        self._theme_timer.timeout.connect(self._refresh_theme)

    # --- the API the main window uses ----------------------------------------------------------
    def set_messages(self, messages: Sequence[MessageLike]) -> None:
        """Show ``messages`` (oldest first) instead of what is shown now, scrolled to the end."""
        self.setUpdatesEnabled(False)
        try:
            self._remove_all()
            self._records = [MessageRecord.of(m) for m in messages]
            self._by_id = {r.id: r for r in self._records}
            self._first_built = max(0, len(self._records) - PAGE_SIZE)
            for record in self._records[self._first_built :]:
                self._insert_widget(self._list.count() - 1, record)
            self._refresh_actions()
            self._stick = True
            self._anchor = None
        finally:
            self.setUpdatesEnabled(True)
        self._scroll_to_end_later()

    def append_message(self, message: MessageLike) -> None:
        """Add a message at the end. The view follows it if it was at the bottom, or if the user wrote it."""
        record = MessageRecord.of(message)
        self._records.append(record)
        self._by_id[record.id] = record
        self._insert_widget(self._list.count() - 1, record)
        self._refresh_actions()
        if record.role == "user":
            self._stick = True
            self._anchor = None
        if self._stick:
            self._scroll_to_end_later()

    def append_to_last(self, text: str) -> None:
        """Streaming: add a batch of text to the last message (the answer being written)."""
        if not self._records or not text:
            return
        widget = self._widgets.get(self._records[-1].id)
        if widget is None:
            self._records[-1].append(text)
            return
        widget.append_text(text)

    def update_message(
        self, message_id: int, content: str | None = None, status: str | None = None, details: object = None
    ) -> None:
        """Replace a message's text and/or status ("complete", "stopped", "error", "streaming"); ``details``: the
        message whose sources and versions to show (a ``core.conversations.Message``)."""
        record = self._by_id.get(message_id)
        if record is None:
            return
        if details is not None:
            record.set_details(details)
        widget = self._widgets.get(message_id)
        if widget is None:
            if content is not None:
                record.content = content
            if status is not None:
                record.status = status
            return
        if content is not None:
            widget.set_content(content)
        if status is not None:
            widget.set_status(status)
        if details is not None and content is None and status is None:
            widget.details_changed()  # (a new text or status re-renders with the details already)

    def clear(self) -> None:
        self._remove_all()
        self._records, self._by_id = [], {}
        self._first_built = 0
        self._stick = True
        self._jump.hide()

    def set_generating(self, generating: bool) -> None:
        """While an answer is being generated, Edit and Regenerate are hidden."""
        self._generating = generating
        self._refresh_actions()

    def last_assistant_text(self) -> str:
        for record in reversed(self._records):
            if record.role == "assistant":
                return strip_thinking(record.content)  # the answer, without a reasoning model's thinking
        return ""

    # --- additions -----------------------------------------------------------------------------
    def scroll_to_bottom(self) -> None:
        self._stick = True
        self._anchor = None
        self._set_scroll(self._scroll.verticalScrollBar().maximum())
        self._jump.hide()

    def is_at_bottom(self) -> bool:
        bar = self._scroll.verticalScrollBar()
        return bar.value() >= bar.maximum() - _STICK_MARGIN

    def message_count(self) -> int:
        return len(self._records)

    def built_message_count(self) -> int:
        """How many messages have widgets (the rest are built when scrolled to)."""
        return len(self._widgets)

    def message_widget(self, message_id: int) -> MessageWidget | None:
        return self._widgets.get(message_id)

    def scroll_to_message(self, message_id: int) -> bool:
        """Bring a message into view near the top and highlight it for a moment (a search hit).

        Older pages are built down to it if it has no widget yet. The view stays there while the layout
        settles, and until the user scrolls. False if the conversation has no such message.
        """
        record = self._by_id.get(message_id)
        if record is None:
            return False
        index = self._records.index(record)
        if index < self._first_built:
            pages = -(-(self._first_built - index) // PAGE_SIZE)
            self._build_older(max(0, self._first_built - pages * PAGE_SIZE))
        widget = self._widgets[message_id]
        self._stick = False
        self._anchor = (widget, _TARGET_MARGIN)
        self._apply_anchor()
        # Widgets built just now have their height only once the layout has run.
        QTimer.singleShot(0, self, self._apply_anchor)
        widget.flash()
        return True

    # --- building ------------------------------------------------------------------------------
    def _insert_widget(self, index: int, record: MessageRecord) -> MessageWidget:
        widget = MessageWidget(record, self._theme, self._column)
        widget.copy_requested.connect(self.copy_requested)
        widget.edit_requested.connect(self.edit_requested)
        widget.regenerate_requested.connect(self.regenerate_requested)
        widget.version_requested.connect(self.version_requested)
        widget.link_activated.connect(self.link_clicked)
        self._list.insertWidget(index, widget)
        self._widgets[record.id] = widget
        return widget

    def _remove_all(self) -> None:
        self._anchor = None
        for widget in self._widgets.values():
            self._list.removeWidget(widget)
            widget.hide()
            widget.deleteLater()
        self._widgets = {}

    def _refresh_actions(self) -> None:
        last = self._records[-1] if self._records else None
        for record_id, widget in self._widgets.items():
            is_last_answer = last is not None and record_id == last.id and last.role == "assistant"
            widget.set_actions(can_edit=not self._generating, can_regenerate=is_last_answer and not self._generating)

    def _load_older(self) -> None:
        self._load_pending = False
        if self._first_built == 0:
            return
        first_widget = self._widgets.get(self._records[self._first_built].id)
        if first_widget is not None and not self._stick:
            # Keep what the user is looking at in place while content appears above it.
            bar = self._scroll.verticalScrollBar()
            self._anchor = (first_widget, self._widget_top(first_widget) - bar.value())
        self._build_older(max(0, self._first_built - PAGE_SIZE))

    def _build_older(self, start: int) -> None:
        """Build the widgets of the messages from index ``start`` up to the oldest one built."""
        for offset, record in enumerate(self._records[start : self._first_built]):
            self._insert_widget(offset, record)
        self._first_built = start
        self._refresh_actions()

    def _widget_top(self, widget: QWidget) -> int:
        return widget.mapTo(self._canvas, QPoint(0, 0)).y()

    # --- scrolling -----------------------------------------------------------------------------
    def _set_scroll(self, value: int) -> None:
        self._adjusting = True
        try:
            self._scroll.verticalScrollBar().setValue(value)
        finally:
            self._adjusting = False

    def _scroll_to_end_later(self) -> None:
        # The new content's height is known only after the layout runs in the event loop.
        QTimer.singleShot(0, self, self._follow_end)

    def _follow_end(self) -> None:
        if self._stick:
            self._set_scroll(self._scroll.verticalScrollBar().maximum())

    def _on_scrolled(self, value: int) -> None:
        if self._adjusting:
            return
        bar = self._scroll.verticalScrollBar()
        self._stick = value >= bar.maximum() - _STICK_MARGIN
        self._anchor = None
        self._jump.setVisible(not self._stick)
        self._maybe_load_older()

    def _apply_anchor(self) -> None:
        if self._anchor is not None:
            widget, offset = self._anchor
            self._set_scroll(self._widget_top(widget) - offset)
            self._jump.setVisible(not self.is_at_bottom())

    def _on_range_changed(self, _minimum: int, maximum: int) -> None:
        if self._anchor is not None:
            self._apply_anchor()
        elif self._stick:
            self._set_scroll(maximum)
        self._maybe_load_older()

    def _maybe_load_older(self) -> None:
        bar = self._scroll.verticalScrollBar()
        near_top = bar.value() < max(200, bar.pageStep())
        if near_top and self._first_built > 0 and not self._load_pending and self.isVisible():
            self._load_pending = True
            QTimer.singleShot(0, self, self._load_older)

    # --- looks ---------------------------------------------------------------------------------
    def _style_jump_button(self) -> None:
        theme = self._theme
        self._jump.setIcon(icons.down_icon(theme.text))
        self._jump.setStyleSheet(
            f"QToolButton {{ background: {theme.background.name()}; border: 1px solid {theme.border.name()};"
            f" border-radius: 17px; }} QToolButton:hover {{ background: {theme.code_header.name()}; }}"
        )
        # A slim scroll bar that stays out of the way of the text, in the theme's colours.
        self._scroll.verticalScrollBar().setStyleSheet(
            "QScrollBar:vertical { background: transparent; width: 10px; margin: 2px; }"
            f" QScrollBar::handle:vertical {{ background: {theme.border.name()}; border-radius: 3px; min-height: 32px; }}"
            f" QScrollBar::handle:vertical:hover {{ background: {theme.muted.name()}; }}"
            " QScrollBar::add-line, QScrollBar::sub-line { height: 0; width: 0; }"
            " QScrollBar::add-page, QScrollBar::sub-page { background: transparent; }"
        )

    def _refresh_theme(self) -> None:
        theme = ChatTheme.from_palette(self.palette())
        if theme == self._theme:
            return
        self._theme = theme
        self._style_jump_button()
        for widget in self._widgets.values():
            widget.apply_theme(theme)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self._theme_timer.start()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        bar_width = self._scroll.verticalScrollBar().width() if self._scroll.verticalScrollBar().isVisible() else 0
        self._jump.move(
            (self.width() - bar_width - self._jump.width()) // 2,
            self.height() - self._jump.height() - 16,
        )
        self._jump.raise_()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._maybe_load_older()
