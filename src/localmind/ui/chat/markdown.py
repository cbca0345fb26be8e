"""Safe Markdown rendering of prose for the chat view (fenced code is cut out before, see blocks.py).

Prose is rendered by Qt's own Markdown reader (CommonMark + GitHub tables) with raw HTML switched
off: Qt 6 otherwise interprets ``<b>``, drops ``<script>`` together with the rest of the document, and
so on. Images are never loaded: every image in the rendered document is replaced by a text link, and
:class:`SafeDocument` refuses every resource in case one slips through.
"""

from __future__ import annotations

import re

from PySide6.QtCore import QCoreApplication, QObject, QUrl
from PySide6.QtGui import (
    QFont,
    QTextBlock,
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
from localmind.viewmodels.plain_text import tooltip

MARKDOWN_FEATURES = QTextDocument.MarkdownFeature.MarkdownDialectGitHub | QTextDocument.MarkdownFeature.MarkdownNoHTML

# Schemes a link in a model's answer may open. Anything else (file:, javascript:, custom app
# schemes that launch local programs) is ignored when clicked.
# localmind-source: a cited passage of the user's own documents; the window shows it (it opens nothing else).
SAFE_LINK_SCHEMES = frozenset({"http", "https", "mailto", "localmind-source"})

_HEADING_SCALE = {1: 1.5, 2: 1.3, 3: 1.15, 4: 1.05, 5: 1.0, 6: 1.0}

# Bounds on the work one message may cause (issue 10.8): Qt's Markdown reader and layout cost grows with nesting,
# and 2,000 nested lists froze the window for 9.5 s. Deeper nesting than this is flattened to this depth; the text
# itself is all kept. Indentation is what nests lists, so leading spaces are capped as well.
MAX_NESTING = 8
MAX_INDENT = 4 * MAX_NESTING
MAX_QUOTE_MARGIN_PX = 96  # a deep quote keeps the column readable (it rendered one letter wide)
MAX_LIST_INDENT = 6
# Qt's reader costs grow faster than linearly with list items (measured: 250 items 14 ms, 1,000 112 ms, 2,000
# 716 ms): past these, a block is shown as plain text, which costs a few ms per thousand lines.
MAX_LIST_ITEMS = 300
MAX_MARKDOWN_LINES = 2000
_LIST_ITEM = re.compile(r"^[ \t>]*(?:[-*+]|\d{1,9}[.)])[ \t]", re.MULTILINE)
_CONTAINER = re.compile(r"[ \t]{0,3}(?:>|(?:[-*+]|\d{1,9}[.)])(?=[ \t]|$))[ \t]?")


def bound_markdown(text: str) -> str:
    """``text`` with block nesting (quotes, lists, indentation) flattened to :data:`MAX_NESTING` levels."""
    lines = text.split("\n")
    for n, line in enumerate(lines):
        if not line or line[0] not in " \t>*-+0123456789":
            continue
        stripped = line.lstrip(" \t")
        indent = line[: len(line) - len(stripped)].replace("\t", "    ")
        if len(indent) > MAX_INDENT:
            indent = indent[:MAX_INDENT]
        position, depth, markers = 0, 0, []
        while depth <= MAX_NESTING and (match := _CONTAINER.match(stripped, position)) and match.end() > position:
            markers.append(match.group(0))
            position = match.end()
            depth += 1
        if depth > MAX_NESTING:
            # Skip every further marker without keeping it: only the first levels nest.
            while (match := _CONTAINER.match(stripped, position)) and match.end() > position:
                position = match.end()
            stripped = "".join(markers[:MAX_NESTING]) + stripped[position:]
        lines[n] = indent + stripped
    return "\n".join(lines)


def is_safe_link(url: QUrl) -> bool:
    return url.isValid() and url.scheme().lower() in SAFE_LINK_SCHEMES


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


def too_costly_for_markdown(text: str) -> bool:
    """Whether rendering ``text`` as Markdown could hold the window too long (see :data:`MAX_LIST_ITEMS`)."""
    if text.count("\n") > MAX_MARKDOWN_LINES:
        return True
    return any(n >= MAX_LIST_ITEMS for n, _ in enumerate(_LIST_ITEM.finditer(text)))


def render_markdown(doc: QTextDocument, text: str, theme: ChatTheme) -> None:
    """Replace ``doc``'s content by ``text`` rendered as safe, theme-coloured Markdown.

    Nesting is flattened to :data:`MAX_NESTING` levels; a block too big for the reader is shown as plain text.
    """
    if too_costly_for_markdown(text):
        doc.setPlainText(bound_markdown(text))  # indentation capped here too: 2,000 levels were 4 MB of spaces
        return
    doc.setMarkdown(bound_markdown(text), MARKDOWN_FEATURES)
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
    sizes = (base_size, base_size * 0.92)  # body text, monospace
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
        in_table = any(start <= block.position() <= end for start, end in table_spans)
        new_fmt = _block_format(block, fmt, base_size, theme, in_table)
        if new_fmt != fmt:
            cursor.setPosition(block.position())
            cursor.setBlockFormat(new_fmt)
        it = block.begin()
        while not it.atEnd():
            frag = it.fragment()
            cf = frag.charFormat()
            if cf.isImageFormat():
                alt = str(cf.property(QTextFormat.Property.ImageAltText) or "")
                images.append((frag.position(), frag.length(), alt, cf.toImageFormat().name()))
            change = _fragment_change(cf, fmt, sizes, theme)
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


def _block_format(
    block: QTextBlock, fmt: QTextBlockFormat, base_size: float, theme: ChatTheme, in_table: bool
) -> QTextBlockFormat:
    """A block's spacing, margins and markers as the chat shows them (nesting capped)."""
    new_fmt = QTextBlockFormat(fmt)
    level = fmt.headingLevel()
    text_list = block.textList()
    in_list = text_list is not None
    if fmt.hasProperty(QTextFormat.Property.BlockQuoteLevel) and fmt.leftMargin() > MAX_QUOTE_MARGIN_PX:
        new_fmt.setLeftMargin(MAX_QUOTE_MARGIN_PX)
    if text_list is not None and text_list.format().indent() > MAX_LIST_INDENT:
        list_format = text_list.format()
        list_format.setIndent(MAX_LIST_INDENT)
        text_list.setFormat(list_format)
    if not in_list and fmt.marker() != QTextBlockFormat.MarkerType.NoMarker:
        # Qt carries a task-list marker over to the next paragraph; it must not show there.
        new_fmt.setMarker(QTextBlockFormat.MarkerType.NoMarker)
    code = fmt.hasProperty(QTextFormat.Property.BlockCodeLanguage)
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
    return new_fmt


def _fragment_change(
    cf: QTextCharFormat, fmt: QTextBlockFormat, sizes: tuple[float, float], theme: ChatTheme
) -> QTextCharFormat | None:
    """What a run of text in a block of format ``fmt`` gets: safe links, muted quotes, code and heading sizes."""
    base_size, mono_size = sizes
    level = fmt.headingLevel()
    change: QTextCharFormat | None = None
    if cf.isImageFormat():
        pass  # replaced by its alt text afterwards
    elif cf.isAnchor():
        change = _link_format(cf.anchorHref(), theme)
    elif fmt.hasProperty(QTextFormat.Property.BlockQuoteLevel):
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
    return change


def _link_format(href: str, theme: ChatTheme) -> QTextCharFormat:
    change = QTextCharFormat()
    change.setFontUnderline(False)
    if is_safe_link(QUrl(href)):
        change.setForeground(theme.link)
        change.setToolTip(tooltip(href))
    else:
        # Shown for what it is and not clickable: file:, javascript:, app schemes.
        change.setAnchor(False)
        change.setForeground(theme.muted)
        change.setFontUnderline(True)
        change.setUnderlineStyle(QTextCharFormat.UnderlineStyle.DotLine)
        change.setToolTip(tooltip(QCoreApplication.translate("ChatView", "Link not opened: {url}").format(url=href)))
    return change


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
    if alt:
        label = QCoreApplication.translate("ChatView", "Image: {name}").format(name=alt)
    else:
        label = QCoreApplication.translate("ChatView", "Image")
    fmt = QTextCharFormat()
    fmt.setForeground(theme.link if is_safe_link(QUrl(url)) else theme.muted)
    fmt.setFontItalic(True)
    fmt.setToolTip(tooltip(QCoreApplication.translate("ChatView", "Not loaded: {url}").format(url=url)))
    if is_safe_link(QUrl(url)):
        fmt.setAnchor(True)
        fmt.setAnchorHref(url)
    cursor.insertText(f"[{label}]", fmt)
