"""Hostile and broken documents, written by the tests and the bench: huge logs, zip bombs, binary data named .txt."""

from __future__ import annotations

import random
import zipfile
from pathlib import Path

_WORDS = ["GET", "POST", "/api/items", "status=200", "user=42", "latency_ms=17", "cache=miss", "retry=0"]


def log_text(size: int, seed: int = 0) -> str:
    """Log lines without blank lines or sentence ends: one paragraph, one run-on "sentence" for the splitter."""
    rng = random.Random(seed)
    lines: list[str] = []
    total = 0
    n = 0
    while total < size:
        line = f"2026-12-03T12:{n % 60:02d}:{n % 59:02d}Z worker-{n % 7} " + " ".join(rng.choices(_WORDS, k=8))
        lines.append(line)
        total += len(line) + 1
        n += 1
    return "\n".join(lines)[:size]


def write_log(path: Path, size: int) -> Path:
    path.write_text(log_text(size), encoding="utf-8")
    return path


def _document_xml(body: str) -> str:
    return (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
        '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">'
        f"<w:body>{body}</w:body></w:document>"
    )


def _paragraph(text: str) -> str:
    return f"<w:p><w:r><w:t>{text}</w:t></w:r></w:p>"


_CONTENT_TYPES = (
    '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
    '<Default Extension="xml" ContentType="application/xml"/>'
    '<Override PartName="/word/document.xml" '
    'ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>'
)
_RELS = (
    '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" '
    'Target="word/document.xml"/></Relationships>'
)


def write_docx_bomb(path: Path, unpacked_mb: int) -> Path:
    """A small .docx whose text part unpacks to ``unpacked_mb`` MB of paragraphs (compresses ~1000:1)."""
    paragraph = _paragraph("All work and no play makes a dull document. " * 20)
    repeat = (unpacked_mb << 20) // len(paragraph) + 1
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        z.writestr("[Content_Types].xml", _CONTENT_TYPES)
        z.writestr("_rels/.rels", _RELS)
        with z.open("word/document.xml", "w", force_zip64=True) as f:
            f.write(_document_xml("")[: -len("</w:body></w:document>")].encode())
            block = (paragraph * 1000).encode()
            for _ in range(repeat // 1000 + 1):
                f.write(block)
            f.write(b"</w:body></w:document>")
    return path


def write_docx_with_big_part(path: Path, text: str, part_mb: int) -> Path:
    """A .docx with a short text and a ``part_mb`` MB picture part (zeros: it packs to a few hundred KB)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z:
        z.writestr("[Content_Types].xml", _CONTENT_TYPES)
        z.writestr("_rels/.rels", _RELS)
        z.writestr("word/document.xml", _document_xml(_paragraph(text)))
        with z.open("word/media/image1.png", "w", force_zip64=True) as f:
            zeros = bytes(1 << 20)
            for _ in range(part_mb):
                f.write(zeros)
    return path


def write_binary_txt(path: Path, size: int = 200_000, seed: int = 0) -> Path:
    """Random bytes without a NUL (so not caught by the NUL test alone), named like text."""
    rng = random.Random(seed)
    path.write_bytes(bytes(rng.randrange(1, 256) for _ in range(size)))
    return path


def deep_html(depth: int, text: str) -> bytes:
    return ("<html><body>" + "<div>" * depth + f"<p>{text}</p>" + "</div>" * depth + "</body></html>").encode()
