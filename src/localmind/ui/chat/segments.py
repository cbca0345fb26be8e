"""The pieces a message is made of: a Markdown text view and a code block with a copy button."""

from __future__ import annotations

import math

from PySide6.QtCore import QEvent, QPointF, QRectF, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import (
    QColor,
    QFontDatabase,
    QGuiApplication,
    QPainter,
    QPaintEvent,
    QPalette,
    QResizeEvent,
    QTextCursor,
    QTextLayout,
    QWheelEvent,
)
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QSizePolicy,
    QTextBrowser,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from localmind.ui.chat import icons
from localmind.ui.chat.highlighter import CodeHighlighter
from localmind.ui.chat.markdown import SafeDocument, is_safe_link, render_markdown
from localmind.ui.chat.theme import ChatTheme
from localmind.viewmodels.plain_text import tooltip


def _transparent_viewport(widget: QTextBrowser | QPlainTextEdit) -> None:
    palette = widget.viewport().palette()
    palette.setColor(QPalette.ColorRole.Base, QColor(0, 0, 0, 0))
    widget.viewport().setPalette(palette)
    widget.viewport().setAutoFillBackground(False)


class MarkdownView(QTextBrowser):
    """Read-only, selectable rich text exactly as tall as its content (no inner scrolling).

    The height is fixed and recomputed only when the width or the content changes. Height-for-width
    would be the textbook way, but then every relayout of a message calls back into Python for every
    one of its blocks, which made a streaming batch cost grow with the length of the answer.

    Signals:
        link_activated(QUrl): the user clicked a link with a scheme we allow to open.
    """

    link_activated = Signal(QUrl)

    def __init__(self, theme: ChatTheme, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._theme = theme
        self._fitted_width = -1
        self.setDocument(SafeDocument(self))
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        self.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse
            | Qt.TextInteractionFlag.TextSelectableByKeyboard
            | Qt.TextInteractionFlag.LinksAccessibleByMouse
            | Qt.TextInteractionFlag.LinksAccessibleByKeyboard
        )
        self.document().setDocumentMargin(0)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setMinimumWidth(40)
        _transparent_viewport(self)
        self.anchorClicked.connect(self._on_anchor)
        self.highlighted.connect(self._on_hover_link)

    def loadResource(self, type: int, name: QUrl | str) -> object:
        # Images in an answer are replaced by text links before layout; this refuses anything left.
        return None

    def set_markdown(self, text: str) -> None:
        self.document().setDefaultFont(self.font())
        render_markdown(self.document(), text, self._theme)
        self.fit_height()

    def set_plain(self, text: str) -> None:
        self.document().setDefaultFont(self.font())
        self.setPlainText(text)
        self.fit_height()

    def append_plain(self, text: str) -> None:
        """Add text at the end; only the last paragraph is laid out again."""
        cursor = QTextCursor(self.document())
        cursor.movePosition(QTextCursor.MoveOperation.End)
        cursor.insertText(text)
        self.fit_height()

    def fit_height(self) -> None:
        doc = self.document()
        width = self.viewport().width()
        if doc.textWidth() != width:
            doc.setTextWidth(width)
        height = math.ceil(doc.size().height())
        if height != self.height() or self.minimumHeight() != height:
            self.setFixedHeight(height)

    def ideal_width(self) -> int:
        """Width of the longest line unwrapped: lets a short user message make a narrow bubble."""
        doc = self.document()
        doc.setTextWidth(-1)
        width = math.ceil(doc.idealWidth()) + 1
        doc.setTextWidth(self.viewport().width())
        return width

    def _on_anchor(self, url: QUrl) -> None:
        if is_safe_link(url):
            self.link_activated.emit(url)

    def _on_hover_link(self, url: QUrl) -> None:
        # Show where a link really goes: its text may claim otherwise.
        self.setToolTip(tooltip(url.toString()) if not url.isEmpty() else "")

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            self.fit_height()

    def wheelEvent(self, event: QWheelEvent) -> None:
        # Nothing to scroll inside: let the conversation scroll.
        event.ignore()


class _CodeEdit(QPlainTextEdit):
    def wheelEvent(self, event: QWheelEvent) -> None:
        delta = event.angleDelta()
        if abs(delta.x()) > abs(delta.y()) or event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
            super().wheelEvent(event)
        else:
            event.ignore()


class CopyButton(QToolButton):
    """A flat button that puts text on the clipboard and says so for a moment."""

    copied = Signal(str)

    def __init__(self, label: str, accessible_name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._label = label
        self.setText(label)
        self.setAccessibleName(accessible_name)
        self.setToolTip(accessible_name)
        self.setAutoRaise(True)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self._reset = QTimer(self)
        self._reset.setSingleShot(True)
        self._reset.setInterval(1500)
        self._reset.timeout.connect(lambda: self.setText(self._label))

    def set_label(self, label: str, accessible_name: str) -> None:
        """New words for the button (the language changed); a "Copied" shown now stays until its moment ends."""
        self._label = label
        if not self._reset.isActive():
            self.setText(label)
        self.setAccessibleName(accessible_name)
        self.setToolTip(accessible_name)

    def copy_text(self, text: str) -> None:
        clipboard = QGuiApplication.clipboard()
        if clipboard is not None:
            clipboard.setText(text)
        self.setText(self.tr("Copied"))
        self._reset.start()
        self.copied.emit(text)


class CodeBlockWidget(QFrame):
    """A fenced code block: language, copy button, highlighted monospace text without wrapping.

    Streaming appends lines in place; the highlighter only re-colours the lines that changed, and the
    height is computed from the line count, so adding a line never re-lays out the whole block.

    Signals:
        copied(str): the code was put on the clipboard.
    """

    copied = Signal(str)

    def __init__(self, language: str, theme: ChatTheme, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._theme = theme
        self._language = language
        self._has_tail = False
        self._started = False
        self._fitting = False
        self._refit = False
        self._measured_font = ""
        self._measured_height = 0.0
        self.setObjectName("codeBlock")

        header = QWidget(self)
        header.setObjectName("codeHeader")
        self._header = header
        self._language_label = QLabel(header)
        self._language_label.setTextFormat(Qt.TextFormat.PlainText)  # the fence's info string is the model's text
        self._copy = CopyButton("", "", header)
        self._copy.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self._copy.clicked.connect(lambda: self._copy.copy_text(self.code()))
        self._copy.copied.connect(self.copied)
        row = QHBoxLayout(header)
        row.setContentsMargins(12, 2, 4, 2)
        row.addWidget(self._language_label)
        row.addStretch(1)
        row.addWidget(self._copy)

        self.editor = _CodeEdit(self)
        self.editor.setReadOnly(True)
        self.editor.setFrameShape(QFrame.Shape.NoFrame)
        self.editor.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.editor.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.editor.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.editor.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse | Qt.TextInteractionFlag.TextSelectableByKeyboard
        )
        self.editor.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        mono.setPointSizeF(max(8.0, self.font().pointSizeF() * 0.92))
        self.editor.setFont(mono)
        self.editor.document().setDocumentMargin(10)
        _transparent_viewport(self.editor)
        self._highlighter = CodeHighlighter(self.editor.document(), language, theme.syntax)
        self.editor.document().blockCountChanged.connect(self._fit_height)
        self.editor.horizontalScrollBar().rangeChanged.connect(self._fit_height)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        # Room above and below, painted as page background, so prose never touches the block.
        self.setContentsMargins(0, 6, 0, 10)
        layout.addWidget(header)
        layout.addWidget(self.editor)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.retranslate()
        self.apply_theme(theme)
        self._fit_height()

    def retranslate(self) -> None:
        """The block's words in the current language (also when it changes while the block is shown)."""
        self.setAccessibleName(self.tr("Code block {language}").format(language=self._language).strip())
        self._language_label.setText(self._language or self.tr("code"))
        self._copy.set_label(self.tr("Copy"), self.tr("Copy code"))
        self.editor.setAccessibleName(self.tr("Code"))

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def code(self) -> str:
        return self.editor.toPlainText()

    def set_code(self, code: str) -> None:
        self.editor.setPlainText(code)
        self._started = bool(code)
        self._has_tail = False
        self._fit_height()

    def _cursor_for_next_line(self) -> QTextCursor:
        # An empty document already has one empty block, so "no line yet" needs its own flag.
        cursor = QTextCursor(self.editor.document())
        cursor.movePosition(QTextCursor.MoveOperation.End)
        if self._has_tail:
            cursor.movePosition(QTextCursor.MoveOperation.StartOfBlock, QTextCursor.MoveMode.KeepAnchor)
        elif self._started:
            cursor.insertBlock()
        return cursor

    def append_lines(self, lines: list[str]) -> None:
        """Complete the unfinished last line and add ``lines``; costs the new text only."""
        cursor = self._cursor_for_next_line()
        cursor.insertText(lines[0])
        for line in lines[1:]:
            cursor.insertBlock()
            cursor.insertText(line)
        self._has_tail = False
        self._started = True

    def set_tail(self, text: str) -> None:
        """Show the unfinished last line, replacing the previous unfinished one."""
        if not text and not self._has_tail:
            return
        self._cursor_for_next_line().insertText(text)
        self._has_tail = True
        self._started = True

    def apply_theme(self, theme: ChatTheme) -> None:
        self._theme = theme
        self._highlighter.set_colours(theme.syntax)
        palette = self.editor.palette()
        palette.setColor(QPalette.ColorRole.Text, theme.text)
        self.editor.setPalette(palette)
        label_palette = self._language_label.palette()
        label_palette.setColor(QPalette.ColorRole.WindowText, theme.muted)
        label_palette.setColor(QPalette.ColorRole.ButtonText, theme.muted)
        self._language_label.setPalette(label_palette)
        self._copy.setPalette(label_palette)
        self._copy.setIcon(icons.copy_icon(theme.muted))
        self.editor.horizontalScrollBar().setStyleSheet(
            "QScrollBar:horizontal { background: transparent; height: 10px; margin: 2px 8px; }"
            f" QScrollBar::handle:horizontal {{ background: {theme.border.name()}; border-radius: 3px; min-width: 32px; }}"
            f" QScrollBar::handle:horizontal:hover {{ background: {theme.muted.name()}; }}"
            " QScrollBar::add-line, QScrollBar::sub-line { height: 0; width: 0; }"
            " QScrollBar::add-page, QScrollBar::sub-page { background: transparent; }"
        )
        self._fit_height()
        self.update()

    def _line_height(self) -> float:
        # The layout's line height, which is not QFontMetrics.lineSpacing(); measured once per font
        # so a new line never costs a walk over the block (QPlainTextEdit's geometry calls do that).
        font = self.editor.font()
        key = font.key()
        if self._measured_font != key:
            layout = QTextLayout("Xg", font)
            layout.beginLayout()
            line = layout.createLine()
            layout.endLayout()
            self._measured_font, self._measured_height = key, line.height()
        return self._measured_height

    def _wanted_height(self) -> int:
        lines = max(1, self.editor.document().blockCount())
        margin = 2 * self.editor.document().documentMargin()
        scrollbar = self.editor.horizontalScrollBar()
        extra = scrollbar.sizeHint().height() if scrollbar.maximum() > 0 else 0
        # One pixel more than the lines need: QPlainTextEdit counts a block that fits exactly as one it can
        # scroll to, and the keyboard (Ctrl+End in the code) would then hide the first line.
        return math.ceil(lines * self._line_height() + margin) + extra + 1

    def _fit_height(self) -> None:
        # Resizing the editor can show its horizontal scroll bar, whose rangeChanged calls back in here
        # from inside setFixedHeight (between its minimum and maximum halves). Nested, the outer call
        # then left minimum > maximum, and the layout placed the editor partly below the block's frame,
        # so a long line streamed into an open fence drew over the block's bottom edge. So: no nesting;
        # a call that arrives meanwhile asks for one more pass.
        if self._fitting:
            self._refit = True
            return
        self._fitting = True
        try:
            for _ in range(3):  # the scroll bar depends on the width only: a second pass settles it
                self._refit = False
                height = self._wanted_height()
                if self.editor.minimumHeight() != height or self.editor.maximumHeight() != height:
                    self.editor.setFixedHeight(height)
                if not self._refit:
                    break
        finally:
            self._fitting = False

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        rect = QRectF(self.contentsRect()).adjusted(0.5, 0.5, -0.5, -0.5)
        painter.setPen(self._theme.border)
        painter.setBrush(self._theme.code_background)
        painter.drawRoundedRect(rect, 8, 8)
        # Header band: the same rounded top, a square bottom edge.
        bottom = float(self._header.geometry().bottom() + 1)
        header = QRectF(rect.left(), rect.top(), rect.width(), bottom - rect.top())
        painter.save()
        painter.setClipRect(header)
        painter.setBrush(self._theme.code_header)
        painter.drawRoundedRect(rect, 8, 8)
        painter.restore()
        painter.setPen(self._theme.border)
        painter.drawLine(QPointF(rect.left(), bottom), QPointF(rect.right(), bottom))
