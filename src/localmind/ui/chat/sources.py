"""The sources line under an answer from the user's documents, built from the answer's metadata in the UI language.

It is not part of the answer's text: Copy leaves it out, search does not find it, the model never reads it.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QPalette

from localmind.core.conversations import source_label
from localmind.documents.chat import SOURCE_SCHEME
from localmind.ui.chat.segments import MarkdownView
from localmind.ui.chat.theme import ChatTheme

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


def show_sources(view: MarkdownView, sources: list[dict[str, Any]], theme: ChatTheme) -> MarkdownView:
    """Fill ``view`` (a prose view under the answer) with the sources line, muted, named for screen readers."""
    palette = view.palette()
    palette.setColor(QPalette.ColorRole.Text, theme.muted)
    view.setPalette(palette)
    view.setAccessibleName(QCoreApplication.translate("MessageWidget", "Sources"))
    view.set_markdown(sources_markdown(sources))
    return view
