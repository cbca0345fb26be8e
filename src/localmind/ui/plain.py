"""Labels show their text as plain text unless we chose otherwise (see localmind.viewmodels.plain_text)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QWidget

from localmind.viewmodels.plain_text import display_title, tooltip


def plain_labels(root: QWidget) -> QWidget:
    """Set every label in ``root`` (``root`` included) that would guess its format (``Qt.AutoText``, Qt's default)
    to ``Qt.PlainText``. A label set to ``Qt.RichText`` on purpose (our own markup, such as a link we wrote) keeps it.
    """
    labels = root.findChildren(QLabel)
    if isinstance(root, QLabel):
        labels.append(root)
    for label in labels:
        if label.textFormat() == Qt.TextFormat.AutoText:
            label.setTextFormat(Qt.TextFormat.PlainText)
    return root


__all__ = ["display_title", "plain_labels", "tooltip"]
