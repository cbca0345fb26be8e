"""Markdown for the chat view: split into prose and fenced code, stream incrementally, render safely.

Prose is rendered by Qt's own Markdown reader (CommonMark + GitHub tables) with raw HTML switched
off: Qt 6 otherwise interprets ``<b>``, drops ``<script>`` together with the rest of the document, and
so on. Images are never loaded: every image in the rendered document is replaced by a text link, and
:class:`SafeDocument` refuses every resource in case one slips through. Fenced code blocks are cut out
before Qt sees the text, so they can be shown by their own widget with highlighting and a copy button.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from PySide6.QtCore import QCoreApplication, QObject, QUrl
from PySide6.QtGui import (
    QFont,
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextFormat,
    QTextFrameFormat,
    QTextLength,
    QTextTable,
)

from localmind.ui.chat.theme import ChatTheme

MARKDOWN_FEATURES = QTextDocument.MarkdownFeature.MarkdownDialectGitHub | QTextDocument.MarkdownFeature.MarkdownNoHTML

# Schemes a link in a model's answer may open. Anything else (file:, javascript:, custom app
# schemes that launch local programs) is ignored when clicked.
SAFE_LINK_SCHEMES = frozenset({"http", "https", "mailto"})

_FENCE_OPEN = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>[^\n]*)$")
# An unfinished line longer than this (a model writing one endless paragraph, or looping) is cut at a
# sentence end and settled, so the still-growing tail, which is re-rendered per batch, stays short.
LONG_LINE_CUT = 1000
_SENTENCE_END = re.compile(r"[.!?;:。！？；…](?=\s)|[。！？；]")
_HEADING_SCALE = {1: 1.5, 2: 1.3, 3: 1.15, 4: 1.05, 5: 1.0, 6: 1.0}


def is_safe_link(url: QUrl) -> bool:
    return url.isValid() and url.scheme().lower() in SAFE_LINK_SCHEMES


@dataclass
class ProseBlock:
    text: str


@dataclass
class CodeBlock:
    code: str
    language: str
    closed: bool = True


Block = ProseBlock | CodeBlock


def _fence_open(line: str) -> tuple[str, int, str] | None:
    """(fence characters, indent, language) when ``line`` opens a fenced code block."""
    m = _FENCE_OPEN.match(line)
    if m is None:
        return None
    fence, info = m.group("fence"), m.group("info").strip()
    if fence[0] == "`" and "`" in info:
        return None  # CommonMark: a backtick fence's info string may not hold backticks (that is inline code)
    language = info.split()[0].lower() if info else ""
    return fence, len(m.group("indent").expandtabs(4)), language


def _fence_closes(line: str, fence: str) -> bool:
    stripped = line.strip()
    return len(stripped) >= len(fence) and stripped == stripped[0] * len(stripped) and stripped[0] == fence[0]


def _dedent(line: str, indent: int) -> str:
    """Remove up to ``indent`` columns of leading spaces, as CommonMark does inside an indented fence."""
    i = 0
    while i < len(line) and i < indent and line[i] == " ":
        i += 1
    return line[i:]


def split_blocks(text: str) -> list[Block]:
    """Cut a whole message into prose runs and fenced code blocks, in order."""
    blocks: list[Block] = []
    prose: list[str] = []
    code: list[str] = []
    opened: tuple[str, int, str] | None = None
    for line in text.split("\n"):
        if opened is None:
            opened = _fence_open(line)
            if opened is None:
                prose.append(line)
            elif any(p.strip() for p in prose):
                blocks.append(ProseBlock("\n".join(prose)))
                prose = []
            else:
                prose = []
        elif _fence_closes(line, opened[0]):
            blocks.append(CodeBlock("\n".join(code), opened[2]))
            code, opened = [], None
        else:
            code.append(_dedent(line, opened[1]))
    if opened is not None:
        blocks.append(CodeBlock("\n".join(code), opened[2], closed=False))
    elif any(p.strip() for p in prose):
        blocks.append(ProseBlock("\n".join(prose)))
    return blocks


# Events produced by StreamSplitter.feed, applied in order by the message widget.
@dataclass
class ProseSettled:
    """A prose run that no later text can change: render it once and keep it."""

    text: str


@dataclass
class ProseTail:
    """The prose still growing at the end of the answer (everything after the last settled run)."""

    text: str


@dataclass
class CodeOpened:
    language: str


@dataclass
class CodeLines:
    """Complete lines to add to the open code block."""

    lines: list[str]


@dataclass
class CodeTail:
    """The incomplete last line of the open code block (replaces the previous one)."""

    text: str


@dataclass
class CodeClosed:
    pass


StreamEvent = ProseSettled | ProseTail | CodeOpened | CodeLines | CodeTail | CodeClosed


def _could_become_fence(partial: str) -> bool:
    """Whether an unfinished line might still turn out to open or close a fence."""
    s = partial.lstrip(" ")
    if len(partial) - len(s) > 3 and not s.startswith(("`", "~")):
        return False
    if not s:
        return False
    if s[0] not in "`~":
        return False
    run = len(s) - len(s.lstrip(s[0]))
    return run >= 3 or run == len(s)


class StreamSplitter:
    """Turns streamed text batches into block events, looking only at the new text.

    The work per batch is proportional to the batch plus the unsettled prose tail, never to the whole
    answer: complete lines are classified once, prose settles at a blank line followed by an
    unindented line (so indented continuations of list items stay with their item), and code lines
    are handed over as they complete.
    """

    def __init__(self) -> None:
        self._partial = ""
        self._fence: tuple[str, int, str] | None = None
        self._prose: list[str] = []

    @property
    def in_code(self) -> bool:
        return self._fence is not None

    def feed(self, delta: str) -> list[StreamEvent]:
        events: list[StreamEvent] = []
        data = self._partial + delta
        if "\n" in delta:
            *complete, self._partial = data.split("\n")
        else:
            complete, self._partial = [], data
        code_lines: list[str] = []
        for line in complete:
            if self._fence is not None:
                if _fence_closes(line, self._fence[0]):
                    if code_lines:
                        events.append(CodeLines(code_lines))
                        code_lines = []
                    events.append(CodeClosed())
                    self._fence = None
                else:
                    code_lines.append(_dedent(line, self._fence[1]))
                continue
            opened = _fence_open(line)
            if opened is not None:
                self._settle(events)
                events.append(CodeOpened(opened[2]))
                self._fence = opened
            elif line.strip() and not line[0].isspace() and self._prose and not self._prose[-1].strip():
                self._settle(events)
                self._add_prose(line)
            else:
                self._add_prose(line)
        if (
            self._fence is None
            and self._partial
            and self._prose
            and not self._prose[-1].strip()
            and not self._partial[0].isspace()
            and not _could_become_fence(self._partial)
        ):
            # The next block has begun: its first character rules out a continuation.
            self._settle(events)
        if self._fence is None and len(self._partial) > LONG_LINE_CUT:
            self._cut_long_line(events)
        if self._fence is not None:
            if code_lines:
                events.append(CodeLines(code_lines))
            events.append(CodeTail("" if _could_become_fence(self._partial) else self._partial))
        else:
            tail = self._partial if not _could_become_fence(self._partial) else ""
            if self._prose or tail:
                events.append(ProseTail("\n".join([*self._prose, tail]) if self._prose else tail))
        return events

    def _add_prose(self, line: str) -> None:
        self._prose.append(line)

    def _cut_long_line(self, events: list[StreamEvent]) -> None:
        """Settle the first part of an over-long line. It shows as two paragraphs until the answer
        completes and is rendered whole."""
        line = self._partial
        search_from = LONG_LINE_CUT // 4
        cut = -1
        for m in _SENTENCE_END.finditer(line, search_from):
            cut = m.end()
        if cut < 0:
            cut = line.rfind(" ", search_from) + 1 or len(line)
        self._add_prose(line[:cut])
        self._settle(events)
        self._partial = line[cut:].lstrip(" ")

    def _settle(self, events: list[StreamEvent]) -> None:
        text = "\n".join(self._prose).lstrip("\n").rstrip()
        if text.strip():
            events.append(ProseSettled(text))
        self._prose = []


def _tr(text: str) -> str:
    return QCoreApplication.translate("ChatView", text)


class SafeDocument(QTextDocument):
    """A text document that never loads a resource: no network, no local files, no /dev/zero.

    Qt's own QTextDocument.loadResource reads local files itself when the view returns nothing,
    so overriding the view's loadResource alone would still read ``![](file:///dev/zero)`` forever.
    """

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.setUndoRedoEnabled(False)  # read-only text: an undo stack only costs memory

    def loadResource(self, type: int, name: QUrl | str) -> object:
        return None


def render_markdown(doc: QTextDocument, text: str, theme: ChatTheme) -> None:
    """Replace ``doc``'s content by ``text`` rendered as safe, theme-coloured Markdown."""
    doc.setMarkdown(text, MARKDOWN_FEATURES)
    cursor = QTextCursor(doc)
    # One edit block: the layout runs once at the end instead of after every format change
    # (per change it re-laid out whole tables, quadratic in their size).
    cursor.beginEditBlock()
    try:
        _style_document(doc, cursor, theme)
    finally:
        cursor.endEditBlock()


def _style_document(doc: QTextDocument, cursor: QTextCursor, theme: ChatTheme) -> None:
    base_font = doc.defaultFont()
    base_size = base_font.pointSizeF() if base_font.pointSizeF() > 0 else 10.0
    mono_size = base_size * 0.92
    images: list[tuple[int, int, str, str]] = []
    # Asking a cursor for its table walks the frame tree per call; the spans are known up front.
    table_spans = [
        (frame.firstPosition(), frame.lastPosition())
        for frame in doc.rootFrame().childFrames()
        if isinstance(frame, QTextTable)
    ]
    block = doc.begin()
    while block.isValid():
        fmt = block.blockFormat()
        new_fmt = QTextBlockFormat(fmt)
        level = fmt.headingLevel()
        in_list = block.textList() is not None
        quote = fmt.hasProperty(QTextFormat.Property.BlockQuoteLevel)
        if not in_list and fmt.marker() != QTextBlockFormat.MarkerType.NoMarker:
            # Qt carries a task-list marker over to the next paragraph; it must not show there.
            new_fmt.setMarker(QTextBlockFormat.MarkerType.NoMarker)
        code = fmt.hasProperty(QTextFormat.Property.BlockCodeLanguage)
        position = block.position()
        in_table = any(start <= position <= end for start, end in table_spans)
        if not code and not in_table:
            # Airier lines than the widget default: long answers read more easily (table rows stay compact).
            new_fmt.setLineHeight(128, QTextBlockFormat.LineHeightTypes.ProportionalHeight.value)
        if level:
            new_fmt.setTopMargin(base_size * (1.1 if level <= 2 else 0.8))
            new_fmt.setBottomMargin(base_size * 0.3)
        elif code:
            # An indented code block (fenced ones never reach Qt): tint it like inline code.
            new_fmt.setBackground(theme.code_background)
            new_fmt.setLeftMargin(4)
        elif in_list:
            new_fmt.setTopMargin(2)
            new_fmt.setBottomMargin(2)
        else:
            new_fmt.setTopMargin(4)
            new_fmt.setBottomMargin(6)
        if new_fmt != fmt:
            cursor.setPosition(block.position())
            cursor.setBlockFormat(new_fmt)
        it = block.begin()
        while not it.atEnd():
            frag = it.fragment()
            cf = frag.charFormat()
            change: QTextCharFormat | None = None
            if cf.isImageFormat():
                image = cf.toImageFormat()
                alt = str(cf.property(QTextFormat.Property.ImageAltText) or "")
                images.append((frag.position(), frag.length(), alt, image.name()))
            elif cf.isAnchor():
                change = QTextCharFormat()
                change.setFontUnderline(False)
                if is_safe_link(QUrl(cf.anchorHref())):
                    change.setForeground(theme.link)
                    change.setToolTip(cf.anchorHref())
                else:
                    # Shown for what it is and not clickable: file:, javascript:, app schemes.
                    change.setAnchor(False)
                    change.setForeground(theme.muted)
                    change.setFontUnderline(True)
                    change.setUnderlineStyle(QTextCharFormat.UnderlineStyle.DotLine)
                    change.setToolTip(_tr("Link not opened: {url}").format(url=cf.anchorHref()))
            elif quote:
                change = QTextCharFormat()
                change.setForeground(theme.muted)
            elif cf.fontFixedPitch() or "monospace" in (cf.fontFamilies() or []):
                change = QTextCharFormat()
                change.setFontPointSize(mono_size)
                if not fmt.hasProperty(QTextFormat.Property.BlockCodeLanguage):
                    change.setBackground(theme.inline_code_background)
            if level and not cf.isImageFormat():
                change = change or QTextCharFormat()
                change.setProperty(QTextFormat.Property.FontSizeAdjustment, 0)
                scale = _HEADING_SCALE.get(level, 1.0)
                change.setFontPointSize((mono_size if cf.fontFixedPitch() else base_size) * scale)
                change.setFontWeight(QFont.Weight.Bold if level <= 3 else QFont.Weight.DemiBold)
            if change is not None:
                cursor.setPosition(frag.position())
                cursor.setPosition(frag.position() + frag.length(), QTextCursor.MoveMode.KeepAnchor)
                cursor.mergeCharFormat(change)
            it += 1
        block = block.next()
    _style_tables(doc, theme)
    # Replace from the end so earlier positions stay valid.
    for position, length, alt, url in reversed(images):
        _replace_image(cursor, position, length, alt, url, theme)


def _style_tables(doc: QTextDocument, theme: ChatTheme) -> None:
    for frame in doc.rootFrame().childFrames():
        if not isinstance(frame, QTextTable):
            continue
        fmt = frame.format().toTableFormat()
        fmt.setBorder(1)
        fmt.setBorderBrush(theme.border)
        fmt.setBorderStyle(QTextFrameFormat.BorderStyle.BorderStyle_Solid)
        fmt.setBorderCollapse(True)
        fmt.setCellPadding(6)
        fmt.setCellSpacing(0)
        fmt.setTopMargin(6)
        fmt.setBottomMargin(6)
        fmt.setWidth(QTextLength(QTextLength.Type.VariableLength, 0))
        frame.setFormat(fmt)
        for column in range(frame.columns()):
            cell = frame.cellAt(0, column)
            cell_fmt = cell.format()
            cell_fmt.setBackground(theme.code_header)
            cell.setFormat(cell_fmt)


def _replace_image(cursor: QTextCursor, position: int, length: int, alt: str, url: str, theme: ChatTheme) -> None:
    """Show an image as a text link the user may choose to open in the browser; never load it."""
    cursor.setPosition(position)
    cursor.setPosition(position + length, QTextCursor.MoveMode.KeepAnchor)
    label = _tr("Image: {name}").format(name=alt) if alt else _tr("Image")
    fmt = QTextCharFormat()
    fmt.setForeground(theme.link if is_safe_link(QUrl(url)) else theme.muted)
    fmt.setFontItalic(True)
    fmt.setToolTip(_tr("Not loaded: {url}").format(url=url))
    if is_safe_link(QUrl(url)):
        fmt.setAnchor(True)
        fmt.setAnchorHref(url)
    cursor.insertText(f"[{label}]", fmt)
