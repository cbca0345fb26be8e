"""Safe Markdown rendering of prose for the chat view (fenced code is cut out before, see blocks.py).

Prose is rendered by Qt's own Markdown reader (CommonMark + GitHub tables) with raw HTML switched
off: Qt 6 otherwise interprets ``<b>``, drops ``<script>`` together with the rest of the document, and
so on. Images are never loaded: every image in the rendered document is replaced by a text link, and
:class:`SafeDocument` refuses every resource in case one slips through.
"""

from __future__ import annotations

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

from localmind.models.plain_text import tooltip
from localmind.ui.chat.theme import ChatTheme

MARKDOWN_FEATURES = QTextDocument.MarkdownFeature.MarkdownDialectGitHub | QTextDocument.MarkdownFeature.MarkdownNoHTML

# Schemes a link in a model's answer may open. Anything else (file:, javascript:, custom app
# schemes that launch local programs) is ignored when clicked.
# localmind-source: a cited passage of the user's own documents; the window shows it (it opens nothing else).
SAFE_LINK_SCHEMES = frozenset({"http", "https", "mailto", "localmind-source"})

_HEADING_SCALE = {1: 1.5, 2: 1.3, 3: 1.15, 4: 1.05, 5: 1.0, 6: 1.0}


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
                    change.setToolTip(tooltip(cf.anchorHref()))
                else:
                    # Shown for what it is and not clickable: file:, javascript:, app schemes.
                    change.setAnchor(False)
                    change.setForeground(theme.muted)
                    change.setFontUnderline(True)
                    change.setUnderlineStyle(QTextCharFormat.UnderlineStyle.DotLine)
                    change.setToolTip(
                        tooltip(
                            QCoreApplication.translate("ChatView", "Link not opened: {url}").format(url=cf.anchorHref())
                        )
                    )
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
