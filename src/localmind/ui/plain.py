"""Labels show their text as plain text unless we chose otherwise (see localmind.models.plain_text)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QWidget

from localmind.models.plain_text import display_title, tooltip

RICH = "localmind_rich_text"  # a label that must render our own markup sets this property to True


def plain_labels(root: QWidget) -> QWidget:
    """Set every label in ``root`` (``root`` included) to ``Qt.PlainText``, except those marked :data:`RICH`."""
    labels = root.findChildren(QLabel)
    if isinstance(root, QLabel):
        labels.append(root)
    for label in labels:
        if not label.property(RICH):
            label.setTextFormat(Qt.TextFormat.PlainText)
    return root


__all__ = ["RICH", "display_title", "plain_labels", "tooltip"]
