"""Small line icons for the message actions, painted in the theme's colour (no image files to ship)."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QIcon, QPainter, QPainterPath, QPen, QPixmap

_SIZE = 16


def _canvas(colour: QColor, scale: float) -> tuple[QPixmap, QPainter]:
    pixmap = QPixmap(int(_SIZE * scale), int(_SIZE * scale))
    pixmap.setDevicePixelRatio(scale)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    pen = QPen(colour, 1.4)
    pen.setCapStyle(Qt.PenCapStyle.RoundCap)
    pen.setJoinStyle(Qt.PenJoinStyle.RoundJoin)
    painter.setPen(pen)
    return pixmap, painter


_PAINTED: dict[tuple[str, int], QIcon] = {}  # (kind, colour): every message shows the same few icons


def _icon(draw: str, colour: QColor) -> QIcon:
    """The icon, painted once per kind and colour (painting took ~0.8 ms an icon: a quarter of building a message)."""
    key = (draw, colour.rgba())
    if key not in _PAINTED:
        _PAINTED[key] = _painted(draw, colour)
    return _PAINTED[key]


def _painted(draw: str, colour: QColor) -> QIcon:
    icon = QIcon()
    for scale in (1.0, 2.0):
        pixmap, p = _canvas(colour, scale)
        if draw == "copy":
            p.drawRoundedRect(QRectF(5.5, 5.5, 8, 8.5), 1.8, 1.8)
            p.drawPolyline(
                [QPointF(10.5, 3.5), QPointF(10.5, 2.8), QPointF(3.2, 2.8), QPointF(3.2, 11), QPointF(4, 11)]
            )
        elif draw == "edit":
            path = QPainterPath(QPointF(3, 13))
            path.lineTo(3.6, 10.2)
            path.lineTo(10.8, 3)
            path.lineTo(13, 5.2)
            path.lineTo(5.8, 12.4)
            path.closeSubpath()
            p.drawPath(path)
            p.drawLine(QPointF(9.4, 4.4), QPointF(11.6, 6.6))
        elif draw == "regenerate":
            p.drawArc(QRectF(3, 3, 10, 10), 60 * 16, 270 * 16)
            p.drawPolyline([QPointF(13.2, 2.6), QPointF(11.8, 5.4), QPointF(9, 4.2)])
        elif draw == "down":
            p.drawLine(QPointF(8, 3), QPointF(8, 13))
            p.drawPolyline([QPointF(4, 9), QPointF(8, 13), QPointF(12, 9)])
        p.end()
        icon.addPixmap(pixmap)
    return icon


def copy_icon(colour: QColor) -> QIcon:
    return _icon("copy", colour)


def edit_icon(colour: QColor) -> QIcon:
    return _icon("edit", colour)


def regenerate_icon(colour: QColor) -> QIcon:
    return _icon("regenerate", colour)


def down_icon(colour: QColor) -> QIcon:
    return _icon("down", colour)
