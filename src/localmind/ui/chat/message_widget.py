"""One message of a conversation: a user bubble, an assistant answer, or a system note."""

from __future__ import annotations

import time
from typing import Any

from PySide6.QtCore import QEvent, QRectF, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import QColor, QPainter, QPaintEvent, QPalette, QResizeEvent
from PySide6.QtWidgets import QHBoxLayout, QSizePolicy, QToolButton, QVBoxLayout, QWidget

from localmind.core.conversations import answer_sources
from localmind.ui.chat.actions import MessageActions
from localmind.ui.chat.blocks import (
    CodeBlock,
    CodeClosed,
    CodeLines,
    CodeOpened,
    CodeTail,
    ProseSettled,
    ProseTail,
    StreamEvent,
    StreamSplitter,
    split_blocks,
)
from localmind.ui.chat.decor import Bubble, Flash, TypingDots
from localmind.ui.chat.segments import CodeBlockWidget, MarkdownView
from localmind.ui.chat.sources import show_sources
from localmind.ui.chat.theme import ChatTheme
from localmind.ui.chat.thinking import ThinkingRouter, ThinkingSection, split_thinking, strip_thinking

# Above this the still-growing prose block is appended as plain text instead of re-rendered per
# batch, so a batch never costs more than rendering this much; it gets its Markdown when it settles.
TAIL_RENDER_LIMIT = 1500
# A user message longer than this shows its beginning and a "Show more" button (a 1 MB paste must not
# make the conversation sluggish); copy and edit always use the whole text.
USER_PREVIEW_CHARS = 3000
USER_PREVIEW_LINES = 40
# An answer longer than this shows its beginning and "Show more": opening a chat never lays out more than this
# (an imported 2,000-level list held the window for seconds; issue 10.8). A normal long answer is ~300 lines.
ANSWER_PREVIEW_LINES = 600
_BUBBLE_WIDTH_RATIO = 0.8
# After a tail render that took t seconds, the next one waits at least this many times t (the latest
# text is rendered by a timer): a big growing table then costs at most about 1/7 of the main thread.
_TAIL_THROTTLE = 6
_TAIL_CHEAP_S = 0.002
# How long the highlight on a message reached from search takes to fade.
HIGHLIGHT_MS = 1800
# Left and right of the content, so the highlight has a little room around the text.
_SIDE_MARGIN = 10


class MessageRecord:
    """The view's own copy of a message: streamed text is kept as parts and joined only when read.

    ``sources``: an answer's sources (``[]``: none matched) or None; ``version`` of ``versions``: which of a
    regenerated answer's versions this is.
    """

    __slots__ = ("_parts", "id", "role", "sources", "status", "version", "versions")

    def __init__(self, message_id: int, role: str, content: str, status: str) -> None:
        self.id = message_id
        self.role = role
        self.status = status
        self._parts = [content]
        self.sources: list[dict[str, Any]] | None = None
        self.version, self.versions = 0, 1

    @classmethod
    def of(cls, message: Any) -> MessageRecord:
        """A record of a ``core.conversations.Message`` (or anything with its id, role, content and status)."""
        record = cls(message.id, message.role, message.content, message.status)
        record.set_details(message)
        return record

    def set_details(self, message: Any) -> None:
        """Take the message's sources and versions (what is not its text or status)."""
        stats = getattr(message, "stats", None)
        self.sources = answer_sources(stats) if self.role == "assistant" else None
        self.version, self.versions = int(getattr(message, "version", 0)), int(getattr(message, "versions", 1))

    @property
    def content(self) -> str:
        if len(self._parts) > 1:
            self._parts = ["".join(self._parts)]
        return self._parts[0]

    @content.setter
    def content(self, text: str) -> None:
        self._parts = [text]

    def append(self, text: str) -> None:
        self._parts.append(text)


class MessageWidget(QWidget):
    """Shows one message and its actions.

    Signals:
        copy_requested(str): the message (or one of its code blocks) was put on the clipboard.
        edit_requested(int): the user wants to edit this (user) message.
        regenerate_requested(): the user wants this (last assistant) answer again.
        version_requested(int message id, int version): show another version of this answer.
        link_activated(QUrl): a safe link was clicked.
    """

    copy_requested = Signal(str)
    edit_requested = Signal(int)
    regenerate_requested = Signal()
    version_requested = Signal(int, int)
    link_activated = Signal(QUrl)

    def __init__(self, record: MessageRecord, theme: ChatTheme, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.record = record
        self._theme = theme
        self._splitter: StreamSplitter | None = None
        self._segments: list[QWidget] = []
        self._live_prose: MarkdownView | None = None
        self._live_plain_chars = -1  # >= 0 while the live prose block is shown as appended plain text
        self._live_code: CodeBlockWidget | None = None
        self._expanded = False
        self._user_ideal_width = 0
        self._can_edit = True
        self._can_regenerate = False
        self._tail_ready_at = 0.0
        self._pending_tail: str | None = None
        self._tail_timer = QTimer(self)
        self._tail_timer.setSingleShot(True)
        self._tail_timer.timeout.connect(self._flush_tail)
        self._flash = Flash(self, HIGHLIGHT_MS)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)

        outer = QVBoxLayout(self)
        outer.setContentsMargins(_SIDE_MARGIN, 10, _SIDE_MARGIN, 6)
        outer.setSpacing(2)
        self._body = QVBoxLayout()
        self._body.setContentsMargins(0, 0, 0, 0)
        self._body.setSpacing(0)
        self._bubble: Bubble | None = None
        self._more: QToolButton | None = None
        # A reasoning model's <think> part, shown collapsed above the answer (assistant messages only).
        self._thinking: ThinkingSection | None = None
        self._router: ThinkingRouter | None = None
        self._sources_view: MarkdownView | None = None

        if record.role == "user":
            row = QHBoxLayout()
            row.setContentsMargins(0, 0, 0, 0)
            row.addStretch(1)
            self._bubble = Bubble(theme, self)
            self._bubble.setLayout(self._body)
            self._body.setContentsMargins(16, 10, 16, 10)
            row.addWidget(self._bubble)
            outer.addLayout(row)
        else:
            if record.role == "assistant":
                self._thinking = ThinkingSection(theme, self)
                outer.addWidget(self._thinking)
            outer.addLayout(self._body)
        self._typing = TypingDots(theme, self)
        self._typing.hide()
        outer.addWidget(self._typing)

        self._actions = MessageActions(record.role, self)
        self._copy, self.edit_button, self.regenerate_button = (
            self._actions.copy,
            self._actions.edit_button,
            self._actions.regenerate_button,
        )
        self._badge, self.version_switcher = self._actions.badge, self._actions.versions
        self._copy.clicked.connect(lambda: self._copy.copy_text(strip_thinking(self.record.content)))
        self._copy.copied.connect(self.copy_requested)
        self.edit_button.clicked.connect(lambda: self.edit_requested.emit(self.record.id))
        self.regenerate_button.clicked.connect(self.regenerate_requested)
        self.version_switcher.version_requested.connect(lambda v: self.version_requested.emit(self.record.id, v))
        outer.addWidget(self._actions)

        self.retranslate()
        self.apply_theme(theme, rerender=False)
        if record.status == "streaming" and record.role == "assistant":
            self.begin_stream()
        else:
            self.render_content()

    def retranslate(self) -> None:
        """The message's buttons and names in the current language (issue 9.7: they kept the old one)."""
        role = self.record.role
        names = {"user": self.tr("Your message"), "system": self.tr("System prompt")}
        self.setAccessibleName(names.get(role, self.tr("Assistant's answer")))
        self._actions.retranslate()
        if self._sources_view is not None and self.record.sources is not None:  # its words in the new language
            show_sources(self._sources_view, self.record.sources, self._theme)
        if self._more is not None:
            self._more.setText(self.tr("Show less") if self._expanded else self.tr("Show more"))
            self._more.setAccessibleName(self._more.text())
        if self._badge.isVisibleTo(self):
            self._update_chrome()  # the badge's word

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    # --- content -------------------------------------------------------------------------------
    def render_content(self) -> None:
        """Build the message from its whole text (opening a conversation, or once a stream ends)."""
        self._clear_segments()
        self._splitter = None
        content = self.record.content
        if self.record.role == "user":
            self._render_user(content)
        elif self.record.role == "system":
            view = self._add_prose_view()
            view.set_plain(content)
        else:
            if self._thinking is not None:
                split = split_thinking(content)
                if split.has_thinking:
                    self._thinking.set_thinking(split.thinking, done=True)
                    content = split.answer
                else:
                    self._thinking.clear()
            long_answer = content.count("\n") >= ANSWER_PREVIEW_LINES
            if long_answer and not self._expanded:
                content = "\n".join(content.split("\n", ANSWER_PREVIEW_LINES)[:ANSWER_PREVIEW_LINES]) + "\n\n…"
            for block in split_blocks(content):
                if isinstance(block, CodeBlock):
                    self._add_code_block(block.language).set_code(block.code)
                else:
                    self._add_prose_view().set_markdown(block.text)
            if long_answer:
                self._add_more_button()
            self._add_sources()
        self._update_chrome()

    def _add_sources(self) -> None:
        """The answer's sources under it (its metadata, in the UI language), when it was answered from documents."""
        self._sources_view = None
        if self.record.sources is not None:
            self._sources_view = show_sources(self._add_prose_view(), self.record.sources, self._theme)

    def details_changed(self) -> None:
        """The record's sources or versions changed (a finished answer, another version chosen)."""
        if self._splitter is None:
            self.render_content()
        self._update_chrome()

    def begin_stream(self) -> None:
        self._clear_segments()
        self._splitter = StreamSplitter()
        self._router = ThinkingRouter() if self._thinking is not None else None
        content = self.record.content
        if content:
            self._feed(content)
        self._update_chrome()

    def append_text(self, text: str) -> None:
        """Streaming: add a batch of text. Only the newest block is touched."""
        if not text:
            return
        self.record.append(text)
        if self.record.role != "assistant":
            self.render_content()
            return
        if self._splitter is None:
            # Text after the turn ended (or on a stored message): carry on streaming from what is shown.
            self.record.status = "streaming"
            self._splitter = StreamSplitter()
            self._router = ThinkingRouter() if self._thinking is not None else None
            self._clear_segments()
            self._feed(self.record.content)
        else:
            self._feed(text)
        if self._segments and not self._typing.isHidden():
            self._typing.hide()

    def set_content(self, content: str) -> None:
        self.record.content = content
        if self._splitter is not None:
            self.begin_stream()
        else:
            self.render_content()

    def set_status(self, status: str) -> None:
        was_streaming = self._splitter is not None
        self.record.status = status
        if status == "streaming":
            if not was_streaming:
                self.begin_stream()
        elif was_streaming:
            self.render_content()
        self._update_chrome()

    @property
    def streaming(self) -> bool:
        return self._splitter is not None

    def _feed(self, text: str) -> None:
        """Streamed text: thinking goes to the thinking section, the rest to the answer's blocks."""
        assert self._splitter is not None
        if self._router is None or self._thinking is None:
            self._apply(self._splitter.feed(text))
            return
        answer = self._router.feed(text)
        if self._router.has_thinking:
            self._thinking.set_thinking(self._router.thinking, done=self._router.closed)
        if answer is None:  # the thinking just closed: the answer starts afresh after it
            self._clear_segments()
            self._splitter = StreamSplitter()
            self._apply(self._splitter.feed(self._router.answer))
        elif answer:
            self._apply(self._splitter.feed(answer))

    def _apply(self, events: list[StreamEvent]) -> None:
        for event in events:
            if isinstance(event, ProseTail):
                self._show_prose_tail(event.text)
            elif isinstance(event, ProseSettled):
                view = self._live_prose or self._add_prose_view()
                view.set_markdown(event.text)
                self._live_prose, self._live_plain_chars = None, -1
                self._pending_tail, self._tail_ready_at = None, 0.0
            elif isinstance(event, CodeOpened):
                self._drop_empty_live_prose()
                self._live_code = self._add_code_block(event.language)
            elif isinstance(event, CodeLines) and self._live_code is not None:
                self._live_code.append_lines(event.lines)
            elif isinstance(event, CodeTail) and self._live_code is not None:
                self._live_code.set_tail(event.text)
            elif isinstance(event, CodeClosed):
                self._live_code = None

    def _show_prose_tail(self, text: str) -> None:
        if self._live_prose is None:
            if not text.strip():
                return  # blank lines between blocks: nothing to show yet
            self._live_prose = self._add_prose_view()
        view = self._live_prose
        if self._live_plain_chars < 0 and len(text) <= TAIL_RENDER_LIMIT:
            now = time.perf_counter()
            if now < self._tail_ready_at:
                self._pending_tail = text
                if not self._tail_timer.isActive():
                    self._tail_timer.start(int((self._tail_ready_at - now) * 1000) + 1)
                return
            self._render_tail(text)
        elif self._live_plain_chars < 0:
            self._pending_tail = None
            view.set_plain(text)
            self._live_plain_chars = len(text)
        else:
            # The tail only grows until it settles, so the new text is what lies past the shown length.
            view.append_plain(text[self._live_plain_chars :])
            self._live_plain_chars = len(text)

    def _render_tail(self, text: str) -> None:
        if self._live_prose is None:
            return
        self._pending_tail = None
        start = time.perf_counter()
        self._live_prose.set_markdown(text)
        cost = time.perf_counter() - start
        self._tail_ready_at = start + cost * (1 + _TAIL_THROTTLE) if cost > _TAIL_CHEAP_S else 0.0

    def _flush_tail(self) -> None:
        if self._pending_tail is not None and self._live_plain_chars < 0:
            self._render_tail(self._pending_tail)

    def _drop_empty_live_prose(self) -> None:
        if self._live_prose is not None and not self._live_prose.document().toPlainText().strip():
            self._segments.remove(self._live_prose)
            self._live_prose.deleteLater()
        self._live_prose, self._live_plain_chars = None, -1

    def _render_user(self, content: str) -> None:
        view = self._add_prose_view()
        preview = content
        long_text = len(content) > USER_PREVIEW_CHARS or content.count("\n") >= USER_PREVIEW_LINES
        if long_text and not self._expanded:
            preview = "\n".join(content[:USER_PREVIEW_CHARS].split("\n")[:USER_PREVIEW_LINES]).rstrip() + " …"
        view.set_plain(preview)
        self._user_ideal_width = view.ideal_width()
        if long_text:
            self._add_more_button()
        self._fit_bubble()

    def _add_more_button(self) -> None:
        more = QToolButton(self)
        more.setAutoRaise(True)
        more.setText(self.tr("Show less") if self._expanded else self.tr("Show more"))
        more.setAccessibleName(more.text())
        more.setCursor(Qt.CursorShape.PointingHandCursor)
        more.clicked.connect(self._toggle_expanded)
        self._body.addWidget(more, 0, Qt.AlignmentFlag.AlignLeft)
        self._segments.append(more)
        self._more = more

    def _toggle_expanded(self) -> None:
        self._expanded = not self._expanded
        self.render_content()

    def _add_prose_view(self) -> MarkdownView:
        view = MarkdownView(self._theme, self)
        if self.record.role == "system":
            palette = view.palette()
            palette.setColor(QPalette.ColorRole.Text, self._theme.muted)
            view.setPalette(palette)
        view.link_activated.connect(self.link_activated)
        self._body.addWidget(view)
        self._segments.append(view)
        return view

    def _add_code_block(self, language: str) -> CodeBlockWidget:
        block = CodeBlockWidget(language, self._theme, self)
        block.copied.connect(self.copy_requested)
        self._body.addWidget(block)
        self._segments.append(block)
        return block

    def _clear_segments(self) -> None:
        for widget in self._segments:
            self._body.removeWidget(widget)
            widget.hide()
            widget.deleteLater()
        self._segments = []
        self._live_prose, self._live_plain_chars, self._live_code, self._more = None, -1, None, None
        self._sources_view = None
        self._pending_tail, self._tail_ready_at = None, 0.0
        self._tail_timer.stop()

    # --- actions and looks ---------------------------------------------------------------------
    def set_actions(self, can_edit: bool, can_regenerate: bool) -> None:
        if (can_edit, can_regenerate) == (self._can_edit, self._can_regenerate):
            return  # the chrome shows them already: every other change of state updates it itself
        self._can_edit, self._can_regenerate = can_edit, can_regenerate
        self._update_chrome()

    def _update_chrome(self) -> None:
        """Actions, typing dots and status badge for the current state (not called per batch)."""
        streaming = self._splitter is not None
        self._typing.setVisible(streaming and not self._segments)
        self._copy.setVisible(not streaming and self.record.role != "system")
        self.edit_button.setVisible(self._can_edit and self.record.role == "user")
        self.regenerate_button.setVisible(self._can_regenerate and not streaming and self.record.role == "assistant")
        self.version_switcher.set_versions(self.record.version, self.record.versions)
        self.version_switcher.setVisible(self.record.role == "assistant" and self.record.versions > 1 and not streaming)
        # Another version cannot be chosen while any answer is being written (Edit is hidden then too).
        self.version_switcher.setEnabled(self._can_edit)
        self._actions.show_status(self.record.status, self._theme)

    def apply_theme(self, theme: ChatTheme, rerender: bool = True) -> None:
        self._theme = theme
        if self._bubble is not None:
            self._bubble.theme = theme
            self._bubble.update()
        if self._thinking is not None:
            self._thinking.apply_theme(theme)
        self._actions.apply_theme(theme)
        if rerender:
            if self._splitter is not None:
                self.begin_stream()
            else:
                self.render_content()

    def _fit_bubble(self) -> None:
        if self._bubble is None:
            return
        available = max(120, int(self.width() * _BUBBLE_WIDTH_RATIO))
        margins = self._body.contentsMargins()
        wanted = self._user_ideal_width + margins.left() + margins.right()
        if self._more is not None:
            wanted = max(wanted, self._more.sizeHint().width() + margins.left() + margins.right())
        self._bubble.setFixedWidth(min(wanted, available))

    def flash(self) -> None:
        """Tint the message for a moment (the message a search hit led to)."""
        self._flash.start()

    @property
    def highlight(self) -> float:
        return self._flash.level

    def paintEvent(self, event: QPaintEvent) -> None:
        if self._flash.level > 0.0:
            colour = QColor(self._theme.accent)  # a copy: the theme's colours are shared
            colour.setAlphaF(0.3 if self._theme.dark else 0.18)
            self._flash.paint(QPainter(self), QRectF(self.rect()).adjusted(0, 2, 0, 0), colour)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit_bubble()
