"""Text out of the files people keep: PDF, Word (.docx), HTML, Markdown and plain text, with page numbers.

Library choices (measured in ``bench/docs.py`` and the notes): pypdf (BSD) reads PDFs — pymupdf is AGPL and cannot
ship inside an MIT app; python-docx (MIT) reads Word; lxml (BSD, already pulled in by python-docx) turns HTML into
text. Markdown and plain text need no library; their encoding is guessed from a BOM, UTF-8, then GB18030 (common for
Chinese text files) and finally Latin-1, which never fails.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from pathlib import Path

from localmind.errors import UserFacingError

log = logging.getLogger(__name__)

PDF_SUFFIXES = frozenset({".pdf"})
WORD_SUFFIXES = frozenset({".docx"})
HTML_SUFFIXES = frozenset({".html", ".htm", ".xhtml"})
MARKDOWN_SUFFIXES = frozenset({".md", ".markdown"})
TEXT_SUFFIXES = frozenset({".txt", ".text", ".rst", ".csv", ".log"})
SUPPORTED_SUFFIXES = PDF_SUFFIXES | WORD_SUFFIXES | HTML_SUFFIXES | MARKDOWN_SUFFIXES | TEXT_SUFFIXES


class ExtractionError(UserFacingError):
    """A file's text could not be read; the message says why and what to do. ``kind`` lets a UI say it in its language."""

    kind = "unreadable"

    def __init__(self, message: str, *, hint: str | None = None, kind: str | None = None) -> None:
        super().__init__(message, hint=hint)
        if kind is not None:
            self.kind = kind


class NoTextFound(ExtractionError):
    """The file has no text layer (a scanned PDF, an image-only page)."""

    kind = "no_text"


@dataclass(frozen=True)
class Page:
    number: int | None  # 1-based page for PDFs; None where a format has no pages
    text: str


def is_supported(path: Path) -> bool:
    return path.suffix.lower() in SUPPORTED_SUFFIXES


def extract(path: Path) -> list[Page]:
    """The text of ``path``, page by page. Raises ``ExtractionError`` (``NoTextFound`` for a scan)."""
    suffix = path.suffix.lower()
    if suffix not in SUPPORTED_SUFFIXES:
        raise ExtractionError(
            f"{path.name}: this kind of file is not supported.",
            hint="Add PDF, Word (.docx), HTML, Markdown or plain-text files.",
            kind="unsupported",
        )
    try:
        if suffix in PDF_SUFFIXES:
            pages = _pdf(path)
        elif suffix in WORD_SUFFIXES:
            pages = [Page(None, _docx(path))]
        elif suffix in HTML_SUFFIXES:
            pages = [Page(None, html_to_text(path.read_bytes()))]
        elif suffix in MARKDOWN_SUFFIXES:
            pages = [Page(None, markdown_to_text(read_text(path)))]
        else:
            pages = [Page(None, read_text(path))]
    except ExtractionError:
        raise
    except OSError as exc:
        raise ExtractionError(f"{path.name}: could not read the file ({exc.strerror or exc}).") from exc
    except Exception as exc:  # a damaged file makes any parser raise anything; say so instead of crashing the indexer
        log.info("extraction of %s failed", path, exc_info=True)
        raise ExtractionError(
            f"{path.name}: the file looks damaged and its text could not be read ({type(exc).__name__}: {exc}).",
            hint="Open it in its own program, save a fresh copy and add that.",
            kind="damaged",
        ) from exc
    pages = [Page(p.number, _tidy(p.text)) for p in pages]
    pages = [p for p in pages if p.text]
    if not pages:
        if suffix in PDF_SUFFIXES:
            raise NoTextFound(
                f"{path.name}: no text found — it looks like a scan or a picture of text.",
                hint="Run it through text recognition (OCR) first, then add the recognised PDF.",
            )
        raise NoTextFound(f"{path.name}: no text found — the file is empty.", kind="empty")
    return pages


def _pdf(path: Path) -> list[Page]:
    from pypdf import PdfReader

    # pypdf logs what it repairs or cannot read ("EOF marker not found") on stderr; a damaged file is said once,
    # in words, by this module's ExtractionError.
    logging.getLogger("pypdf").setLevel(logging.ERROR)

    reader = PdfReader(path)
    if reader.is_encrypted:
        try:
            reader.decrypt("")  # many "protected" PDFs only restrict printing and open with an empty password
        except Exception as exc:
            raise ExtractionError(
                f"{path.name}: the PDF is password-protected.",
                hint="Save a copy without the password and add that.",
                kind="password",
            ) from exc
    return [Page(i + 1, page.extract_text() or "") for i, page in enumerate(reader.pages)]


def _docx(path: Path) -> str:
    import docx

    document = docx.Document(str(path))
    parts = [p.text for p in document.paragraphs]
    for table in document.tables:
        for row in table.rows:
            parts.append(" | ".join(cell.text for cell in row.cells))
    return "\n\n".join(parts)


_BLOCK_TAGS = frozenset(
    [
        "p",
        "div",
        "br",
        "li",
        "ul",
        "ol",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "tr",
        "table",
        "section",
        "article",
        "header",
        "footer",
        "blockquote",
        "pre",
        "dt",
        "dd",
    ]
)


def html_to_text(data: bytes) -> str:
    """Visible text with block elements on their own lines; scripts, styles and comments dropped."""
    import lxml.html
    from lxml import etree

    if not data.strip():
        return ""
    root = lxml.html.document_fromstring(data)
    etree.strip_elements(root, "script", "style", "noscript", "template", etree.Comment, with_tail=False)
    for element in root.iter():
        if isinstance(element.tag, str) and element.tag in _BLOCK_TAGS:
            element.tail = "\n\n" + (element.tail or "")
    return str(root.text_content())


_MD_RULES = [
    (re.compile(r"^```.*$|^~~~.*$", re.M), ""),  # fences (the code inside stays: it is searchable text)
    (re.compile(r"!\[([^\]]*)\]\([^)]*\)"), r"\1"),  # images → alt text
    (re.compile(r"\[([^\]]+)\]\([^)]*\)"), r"\1"),  # links → their text
    (re.compile(r"^\s{0,3}#{1,6}\s*", re.M), ""),  # heading marks
    (re.compile(r"^\s{0,3}>\s?", re.M), ""),  # quotes
    (re.compile(r"(\*\*|__)(.+?)\1"), r"\2"),  # bold
    (re.compile(r"<[^>\n]+>"), ""),  # inline HTML tags
]


def markdown_to_text(text: str) -> str:
    for pattern, replacement in _MD_RULES:
        text = pattern.sub(replacement, text)
    return text


def read_text(path: Path) -> str:
    data = path.read_bytes()
    if data.startswith(b"\xef\xbb\xbf"):
        return data[3:].decode("utf-8", errors="replace")
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16", errors="replace")
    for encoding in ("utf-8", "gb18030"):
        try:
            return data.decode(encoding)
        except UnicodeDecodeError:
            continue
    return data.decode("latin-1")


_SPACES = re.compile(r"[ \t\r\f\v\u00a0]+")
_BLANK_LINES = re.compile(r"\n\s*\n\s*(\n\s*)*")


def _tidy(text: str) -> str:
    text = text.replace("\x00", "")
    text = _SPACES.sub(" ", text)
    text = _BLANK_LINES.sub("\n\n", text)
    return "\n".join(line.strip() for line in text.split("\n")).strip()
