"""Small painted pieces of a message: the user's bubble and the typing dots."""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt, QTimer
from PySide6.QtGui import QColor, QHideEvent, QPainter, QPaintEvent, QShowEvent
from PySide6.QtWidgets import QWidget

from localmind.ui.chat.theme import ChatTheme


class Bubble(QWidget):
    def __init__(self, theme: ChatTheme, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.theme = theme

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(self.theme.user_bubble)
        painter.drawRoundedRect(QRectF(self.rect()), 16, 16)


class TypingDots(QWidget):
    """Three pulsing dots shown while an answer has no text yet."""

    def __init__(self, theme: ChatTheme, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.theme = theme
        self._phase = 0
        self._timer = QTimer(self)
        self._timer.setInterval(180)
        self._timer.timeout.connect(self._tick)
        self.setFixedSize(44, 22)
        self.setAccessibleName(self.tr("Writing an answer"))

    def _tick(self) -> None:
        self._phase = (self._phase + 1) % 3
        self.update()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._timer.start()

    def hideEvent(self, event: QHideEvent) -> None:
        super().hideEvent(event)
        self._timer.stop()

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(Qt.PenStyle.NoPen)
        for i in range(3):
            colour = QColor(self.theme.muted)
            colour.setAlphaF(1.0 if i == self._phase else 0.35)
            painter.setBrush(colour)
            painter.drawEllipse(QRectF(4 + i * 13, 7, 8, 8))
