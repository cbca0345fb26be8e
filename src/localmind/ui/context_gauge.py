"""The status bar's context gauge, with the share document passages take drawn as its own segment.

The bar fills with what the whole chat uses (the style sheet's chunk, as before); when "Use my documents" put
passages into this chat, the first part of the fill is drawn in another colour for the tokens they take, so the user
sees how much of the context the documents use and how much the conversation itself does.
"""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPaintEvent
from PySide6.QtWidgets import QProgressBar, QWidget

from localmind.ui import theme

# A colour apart from the accent (the conversation) and the danger red (a nearly full context), in both themes.
_DOCUMENTS_LIGHT = "#0e9384"
_DOCUMENTS_DARK = "#2ed3b7"


def documents_colour() -> QColor:
    dark = QColor(theme.current().window).lightness() < 128
    return QColor(_DOCUMENTS_DARK if dark else _DOCUMENTS_LIGHT)


class ContextGauge(QProgressBar):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.documents = 0  # tokens of document passages within value()

    def set_documents(self, tokens: int) -> None:
        if tokens != self.documents:
            self.documents = max(0, tokens)
            self.update()

    def documents_width(self) -> float:
        """Pixels of the documents segment (0 when there are none)."""
        span = self.maximum() - self.minimum()
        if span <= 0 or self.documents <= 0:
            return 0.0
        inner = self.contentsRect().adjusted(1, 1, -1, -1)
        return inner.width() * min(self.documents, self.value(), span) / span

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        width = self.documents_width()
        if width <= 0:
            return
        inner = QRectF(self.contentsRect().adjusted(1, 1, -1, -1))
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(documents_colour())
        painter.drawRoundedRect(QRectF(inner.left(), inner.top(), max(width, 2.0), inner.height()), 3, 3)
        painter.end()
