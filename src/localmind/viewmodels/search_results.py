"""Search hits for the sidebar: a conversation title and a snippet of the matching text."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QAbstractListModel, QModelIndex, QPersistentModelIndex, Qt

from localmind.core.conversations import SearchHit
from localmind.viewmodels.plain_text import display_title, markdown_snippet, tooltip

_Index = QModelIndex | QPersistentModelIndex


class SearchResultsModel(QAbstractListModel):
    HitRole = Qt.ItemDataRole.UserRole + 1
    ConversationIdRole = Qt.ItemDataRole.UserRole + 2
    MessageIdRole = Qt.ItemDataRole.UserRole + 3

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._hits: list[SearchHit] = []
        self.query = ""

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008 - Qt's signature
        return 0 if parent.isValid() else len(self._hits)

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._hits):
            return None
        hit = self._hits[index.row()]
        title = display_title(hit.conversation_title)
        snippet = markdown_snippet(hit.snippet)[0]
        if role == Qt.ItemDataRole.DisplayRole:
            return f"{title}\n{snippet}" if hit.message_id is not None else title
        if role == Qt.ItemDataRole.ToolTipRole:
            return tooltip(f"{title}: {snippet}" if hit.message_id is not None else title)
        if role == Qt.ItemDataRole.AccessibleTextRole:
            return f"{title}: {snippet}"
        if role == self.HitRole:
            return hit
        if role == self.ConversationIdRole:
            return hit.conversation_id
        if role == self.MessageIdRole:
            return hit.message_id
        return None

    def set_hits(self, query: str, hits: Sequence[SearchHit]) -> None:
        self.beginResetModel()
        self.query = query
        self._hits = list(hits)
        self.endResetModel()

    def hit(self, row: int) -> SearchHit | None:
        return self._hits[row] if 0 <= row < len(self._hits) else None
