"""The sources line under an answer from the user's documents, built from the answer's metadata in the UI language.

It is not part of the answer's text: Copy leaves it out, search does not find it, the model never reads it.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QCoreApplication

from localmind.core.conversations import source_label
from localmind.documents.chat import SOURCE_SCHEME

_MARKDOWN_SPECIAL = "[]()*_`\\<>#"


def _escape(text: str) -> str:
    return "".join("\\" + ch if ch in _MARKDOWN_SPECIAL else ch for ch in text)


def sources_markdown(sources: list[dict[str, Any]]) -> str:
    """ "**Sources:** [1] notes.pdf p. 3 · [2] plan.md" with links that open each passage; a note when none matched."""
    tr = QCoreApplication.translate
    if not sources:
        return "*" + _escape(tr("MessageWidget", "No matching passages in your documents")) + "*"
    links = " · ".join(
        f"[\\[{int(s['number'])}\\] {_escape(source_label(s))}]({SOURCE_SCHEME}:{_chunk_id(s)})" for s in sources
    )
    return f"**{_escape(tr('MessageWidget', 'Sources'))}:** {links}"


def _chunk_id(source: dict[str, Any]) -> int:
    value = source.get("chunk_id")
    return value if isinstance(value, int) and not isinstance(value, bool) else 0
