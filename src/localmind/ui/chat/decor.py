"""Small painted pieces of a message: the user's bubble, the typing dots and a fading highlight."""

from __future__ import annotations

from PySide6.QtCore import QEasingCurve, QObject, QRectF, Qt, QTimer, QVariantAnimation
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


class Flash(QObject):
    """A tint that fades out over a moment, painted behind a widget's content by that widget."""

    def __init__(self, target: QWidget, duration_ms: int) -> None:
        super().__init__(target)
        self._target = target
        self._animation = QVariantAnimation(self)
        self._animation.setStartValue(1.0)
        self._animation.setEndValue(0.0)
        self._animation.setDuration(duration_ms)
        # Holds nearly full strength at first, so the eye finds it after the view jumped, then fades.
        self._animation.setEasingCurve(QEasingCurve.Type.InCubic)
        self._animation.valueChanged.connect(lambda _value: target.update())
        self._animation.finished.connect(target.update)

    def start(self) -> None:
        self._animation.stop()
        self._animation.start()

    @property
    def level(self) -> float:
        """1.0 when it starts, 0.0 once it has faded."""
        if self._animation.state() != QVariantAnimation.State.Running:
            return 0.0
        return float(self._animation.currentValue())

    def paint(self, painter: QPainter, rect: QRectF, colour: QColor) -> None:
        level = self.level
        if level <= 0.0:
            return
        tint = QColor(colour)
        tint.setAlphaF(colour.alphaF() * level)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(tint)
        painter.drawRoundedRect(rect, 10, 10)
