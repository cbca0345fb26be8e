"""The sidebar's list of conversations, newest activity first."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from PySide6.QtCore import QAbstractListModel, QModelIndex, QPersistentModelIndex, Qt, Signal

from localmind.core.conversations import Conversation
from localmind.viewmodels.plain_text import display_title, tooltip

_Index = QModelIndex | QPersistentModelIndex


class ConversationListModel(QAbstractListModel):
    """Conversations as rows; editing a title asks for a rename rather than changing anything itself.

    Signals:
        rename_requested(str id, str title): the user typed a new title in the list.
    """

    IdRole = Qt.ItemDataRole.UserRole + 1
    UpdatedRole = Qt.ItemDataRole.UserRole + 2

    rename_requested = Signal(str, str)

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._items: list[Conversation] = []

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008 - Qt's signature
        return 0 if parent.isValid() else len(self._items)

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._items):
            return None
        item = self._items[index.row()]
        if role == Qt.ItemDataRole.EditRole:
            return item.title
        if role == Qt.ItemDataRole.DisplayRole:
            return display_title(item.title)
        if role == Qt.ItemDataRole.ToolTipRole:
            when = datetime.fromtimestamp(item.updated_at).strftime("%Y-%m-%d %H:%M")
            return tooltip(f"{display_title(item.title, 500)}\n{when}")
        if role == Qt.ItemDataRole.AccessibleTextRole:
            return display_title(item.title)
        if role == self.IdRole:
            return item.id
        if role == self.UpdatedRole:
            return item.updated_at
        return None

    def flags(self, index: _Index) -> Qt.ItemFlag:
        base = super().flags(index)
        return base | Qt.ItemFlag.ItemIsEditable if index.isValid() else base

    def setData(self, index: _Index, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        if role != Qt.ItemDataRole.EditRole or not index.isValid():
            return False
        title = str(value).strip()
        item = self._items[index.row()]
        if not title or title == item.title:
            return False
        self.rename_requested.emit(item.id, title)
        return True

    # -- updates from the app ---------------------------------------------------------------------------------------
    def set_conversations(self, conversations: Sequence[Conversation]) -> None:
        self.beginResetModel()
        self._items = list(conversations)
        self.endResetModel()

    def conversation(self, row: int) -> Conversation | None:
        return self._items[row] if 0 <= row < len(self._items) else None

    def row_of(self, conversation_id: str | None) -> int:
        for row, item in enumerate(self._items):
            if item.id == conversation_id:
                return row
        return -1

    def ids(self) -> list[str]:
        return [item.id for item in self._items]
