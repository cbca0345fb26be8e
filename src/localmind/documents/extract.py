"""Text out of the files people keep: PDF, Word (.docx), HTML, Markdown and plain text, with page numbers.

Library choices (measured in ``bench/docs.py`` and the notes): pypdf (BSD) reads PDFs — pymupdf is AGPL and cannot
ship inside an MIT app; python-docx (MIT) reads Word; lxml (BSD, already pulled in by python-docx) turns HTML into
text. Markdown and plain text need no library; their encoding is guessed from a BOM, UTF-8, then GB18030 (common for
Chinese text files) and finally Latin-1, which never fails.
"""

from __future__ import annotations

import logging
import re
import unicodedata
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO

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


class Cancelled(Exception):
    """The ``cancelled()`` callable given to an extractor or the chunker said stop."""


Check = Callable[[], bool]

# Limits on what one file may make LocalMind read into memory (hostile or broken files: a zip bomb, a 2 GB part,
# a 200 MB log). Peak memory stays a small multiple of these (bench/docs.py --hostile measures it).
MAX_TEXT_BYTES = 32 << 20  # a text, Markdown or HTML file, and the text part of a Word file once unpacked
MAX_PDF_BYTES = 256 << 20
MAX_PDF_TEXT_CHARS = 32 << 20  # all pages' text together
JUNK_SHARE = 0.02  # text with more than this share of control or unassigned characters is binary, not text


class NoTextFound(ExtractionError):
    """The file has no text layer (a scanned PDF, an image-only page)."""

    kind = "no_text"


@dataclass(frozen=True)
class Page:
    number: int | None  # 1-based page for PDFs; None where a format has no pages
    text: str


def is_supported(path: Path) -> bool:
    return path.suffix.lower() in SUPPORTED_SUFFIXES


def extract(path: Path, cancelled: Check | None = None) -> list[Page]:
    """The text of ``path``, page by page. Raises ``ExtractionError`` (``NoTextFound`` for a scan).

    ``cancelled()`` is asked between pages and parts; when it says so, ``Cancelled`` is raised.
    """
    suffix = path.suffix.lower()
    if suffix not in SUPPORTED_SUFFIXES:
        raise ExtractionError(
            f"{path.name}: this kind of file is not supported.",
            hint="Add PDF, Word (.docx), HTML, Markdown or plain-text files.",
            kind="unsupported",
        )
    try:
        pages = _read(path, suffix, cancelled or _never)
    except (ExtractionError, Cancelled):
        raise
    except OSError as exc:
        raise ExtractionError(f"{path.name}: could not read the file ({exc.strerror or exc}).") from exc
    except MemoryError as exc:
        raise _too_large(path, "its text does not fit in memory") from exc
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
    if is_junk("".join(p.text[:20000] for p in pages[:50])):
        raise _junk(path, suffix)
    return pages


def _never() -> bool:
    return False


def _read(path: Path, suffix: str, cancelled: Check) -> list[Page]:
    if suffix in PDF_SUFFIXES:
        return _pdf(path, cancelled)
    if suffix in WORD_SUFFIXES:
        return [Page(None, _docx(path))]
    data = _read_capped_file(path)
    if suffix in HTML_SUFFIXES:
        return [Page(None, html_to_text(data))]
    if _looks_binary(data):
        raise _junk(path, suffix)
    text = decode_text(data)
    del data
    return [Page(None, markdown_to_text(text) if suffix in MARKDOWN_SUFFIXES else text)]


def _too_large(path: Path, what: str) -> ExtractionError:
    return ExtractionError(
        f"{path.name}: too large to index ({what}).",
        hint="Split it into smaller files and add those.",
        kind="too_large",
    )


def _junk(path: Path, suffix: str) -> ExtractionError:
    if suffix in PDF_SUFFIXES:
        return ExtractionError(
            f"{path.name}: the PDF's text cannot be read — its fonts do not say which letters they draw, so it comes"
            " out as gibberish.",
            hint="Print it to a new PDF or run it through text recognition (OCR), then add that copy.",
            kind="garbled",
        )
    return ExtractionError(
        f"{path.name}: this is not text — the file holds binary data (a program, a picture or an archive) under a"
        " text file's name.",
        hint="Add documents saved as text, PDF, Word, Markdown or HTML.",
        kind="binary",
    )


def _read_capped_file(path: Path) -> bytes:
    size = path.stat().st_size
    if size > MAX_TEXT_BYTES:
        raise _too_large(path, f"{size / 2**20:.0f} MB; the limit is {MAX_TEXT_BYTES >> 20} MB")
    with path.open("rb") as f:
        data = f.read(MAX_TEXT_BYTES + 1)
    if len(data) > MAX_TEXT_BYTES:  # it grew while being read
        raise _too_large(path, f"over {MAX_TEXT_BYTES >> 20} MB")
    return data


def _looks_binary(data: bytes) -> bool:
    """NUL bytes (outside UTF-16 text) or many control bytes in the first 64 KB: a program, an image, an archive."""
    sample = data[:65536]
    if sample.startswith((b"\xff\xfe", b"\xfe\xff")):
        return False
    if b"\x00" in sample:
        return True
    controls = sum(sample.count(bytes([b])) for b in range(32) if b not in (9, 10, 12, 13, 27))
    return bool(sample) and controls / len(sample) > JUNK_SHARE


def is_junk(text: str) -> bool:
    """Text a person could not read: many control, private-use, unassigned or replacement characters."""
    if not text:
        return False
    bad = sum(
        1
        for ch in text
        if ch == "\ufffd" or (unicodedata.category(ch) in ("Cc", "Co", "Cn", "Cs") and ch not in "\t\n\r\f")
    )
    return bad / len(text) > JUNK_SHARE


def _pdf(path: Path, cancelled: Check) -> list[Page]:
    from pypdf import PasswordType, PdfReader

    # pypdf logs what it repairs or cannot read ("EOF marker not found") on stderr; a damaged file is said once,
    # in words, by this module's ExtractionError.
    logging.getLogger("pypdf").setLevel(logging.ERROR)

    size = path.stat().st_size
    if size > MAX_PDF_BYTES:
        raise _too_large(path, f"{size / 2**20:.0f} MB; the limit is {MAX_PDF_BYTES >> 20} MB")
    reader = PdfReader(path)
    if reader.is_encrypted:
        try:
            # Many "protected" PDFs only restrict printing and open with an empty password.
            opened = reader.decrypt("") != PasswordType.NOT_DECRYPTED
        except Exception:  # an encryption pypdf cannot undo (or a missing cryptography package)
            opened = False
        if not opened:
            raise ExtractionError(
                f"{path.name}: the PDF is password-protected.",
                hint="Save a copy without the password and add that.",
                kind="password",
            )
    pages: list[Page] = []
    chars = 0
    for i, page in enumerate(reader.pages):
        if cancelled():
            raise Cancelled
        text = page.extract_text() or ""
        chars += len(text)
        if chars > MAX_PDF_TEXT_CHARS:
            raise _too_large(path, f"over {MAX_PDF_TEXT_CHARS >> 20} million characters of text")
        pages.append(Page(i + 1, text))
    return pages


_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_DOCUMENT_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument"


def _docx(path: Path) -> str:
    """Paragraphs and table rows of a Word file, read from its main part only (pictures and other parts are never
    unpacked), with that part's unpacked size capped: a zip bomb or a 2 GB part is refused, not read."""
    with zipfile.ZipFile(path) as archive:
        name = _docx_main_part(archive)
        try:
            info = archive.getinfo(name)
        except KeyError:
            raise ExtractionError(
                f"{path.name}: this is not a Word document (it has no text part).",
                hint="Open it in its own program, save it as .docx and add that.",
                kind="damaged",
            ) from None
        if info.file_size > MAX_TEXT_BYTES:
            raise _too_large(path, f"its text part unpacks to {info.file_size / 2**20:.0f} MB")
        with archive.open(info) as part:
            data = _read_part(part, MAX_TEXT_BYTES)
        if data is None:  # the archive's sizes lied
            raise _too_large(path, f"its text part unpacks to over {MAX_TEXT_BYTES >> 20} MB")
    return _wordprocessing_text(data)


def _docx_main_part(archive: zipfile.ZipFile) -> str:
    from lxml import etree

    try:
        with archive.open("_rels/.rels") as f:
            rels = _read_part(f, 1 << 20)
    except KeyError:
        return "word/document.xml"
    if rels:
        root = etree.fromstring(rels, _xml_parser())
        for rel in root:
            if rel.get("Type") == _DOCUMENT_REL and rel.get("Target"):
                return str(rel.get("Target")).lstrip("/")
    return "word/document.xml"


def _read_part(part: IO[bytes], limit: int) -> bytes | None:
    """At most ``limit`` bytes of a zip member, read in blocks; None when it holds more."""
    blocks: list[bytes] = []
    total = 0
    while block := part.read(1 << 20):
        total += len(block)
        if total > limit:
            return None
        blocks.append(block)
    return b"".join(blocks)


def _xml_parser() -> object:
    from lxml import etree

    # No entities expanded ("billion laughs"), nothing fetched, libxml2's depth and size limits kept.
    return etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False, remove_comments=True)


def _wordprocessing_text(data: bytes) -> str:
    from lxml import etree

    root = etree.fromstring(data, _xml_parser())
    body = root.find(f"{_W}body")
    parts: list[str] = []
    for block in body if body is not None else []:
        if block.tag == f"{_W}p":
            parts.append(_paragraph_text(block))
        elif block.tag == f"{_W}tbl":
            for row in block.iter(f"{_W}tr"):
                cells = ["\n".join(_paragraph_text(p) for p in cell.iter(f"{_W}p")) for cell in row.iter(f"{_W}tc")]
                parts.append(" | ".join(cells))
    return "\n\n".join(parts)


def _paragraph_text(paragraph: object) -> str:
    pieces = []
    for node in paragraph.iter(f"{_W}t", f"{_W}tab", f"{_W}br", f"{_W}cr"):  # type: ignore[attr-defined]
        if node.tag == f"{_W}t":
            pieces.append(node.text or "")
        else:
            pieces.append("\t" if node.tag == f"{_W}tab" else "\n")
    return "".join(pieces)


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


_HIDDEN_TAGS = frozenset({"script", "style", "noscript", "template"})


class _VisibleText:
    """lxml parser target collecting visible text as the parser goes: no tree is built, so no nesting depth limit
    applies (libxml2 stops building a tree at 256 levels and the text below was lost) and memory stays linear."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.hidden = 0

    def start(self, tag: str, attrib: object) -> None:
        if tag in _HIDDEN_TAGS:
            self.hidden += 1
        elif tag in _BLOCK_TAGS:
            self.parts.append("\n\n")

    def end(self, tag: str) -> None:
        if tag in _HIDDEN_TAGS:
            self.hidden = max(0, self.hidden - 1)
        elif tag in _BLOCK_TAGS:
            self.parts.append("\n\n")

    def data(self, text: str) -> None:
        if not self.hidden:
            self.parts.append(text)

    def close(self) -> str:
        return "".join(self.parts)


def html_to_text(data: bytes) -> str:
    """Visible text with block elements on their own lines; scripts, styles and comments dropped."""
    from lxml import etree

    if not data.strip():
        return ""
    parser = etree.HTMLParser(target=_VisibleText(), no_network=True, remove_comments=True)
    for start in range(0, len(data), 1 << 20):
        parser.feed(data[start : start + (1 << 20)])
    return str(parser.close())


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
    return decode_text(path.read_bytes())


def decode_text(data: bytes) -> str:
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
