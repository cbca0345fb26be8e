"""Every dialog fits the screen it opens on: at most the screen's available size, its body scrolling, its buttons
always in view.

A laptop at 1024×600, or 1366×768 at 150 % (911×512 logical pixels), is smaller than some dialogs want (Settings
asks for about 560×640). Qt would open them taller than the screen, with OK and Cancel below its edge. Two parts:

- :func:`scroll_body` moves everything of a dialog's layout except its trailing button row into a scroll area, so
  the body can be shorter than it wants and the buttons stay below it. A dialog whose body varies (Settings' tabs)
  calls it itself; :class:`ScreenFit` calls it for any other dialog whose body does not fit.
- :class:`ScreenFit` watches the application for dialogs being shown (every ``QDialog``: ours, message boxes, the
  file dialog) and sizes each within the available geometry of its screen, moving it inside that screen.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QRect, QSize, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QApplication,
    QBoxLayout,
    QDialog,
    QDialogButtonBox,
    QFrame,
    QLayoutItem,
    QMessageBox,
    QScrollArea,
    QStyle,
    QVBoxLayout,
    QWidget,
)

# Room for the window manager's title bar and borders before the window has a frame to measure (logical pixels).
FRAME_ALLOWANCE = 36
_SCROLLED = "fitScrolled"  # dynamic property: the body already sits in a scroll area


class FitScrollArea(QScrollArea):
    """A scroll area that asks for its whole content (a plain one asks for at most ~24 lines) but can shrink to a
    few lines: the dialog opens at its natural size where that fits, and scrolls where it does not."""

    def _bar(self) -> int:
        return self.style().pixelMetric(QStyle.PixelMetric.PM_ScrollBarExtent) + 4

    def sizeHint(self) -> QSize:
        body = self.widget()
        if body is None:
            return super().sizeHint()
        hint = body.sizeHint().expandedTo(body.minimumSizeHint())
        return QSize(hint.width() + self._bar(), hint.height() + 2 * self.frameWidth())

    def minimumSizeHint(self) -> QSize:
        body = self.widget()
        width = body.minimumSizeHint().width() + self._bar() if body is not None else 0
        return QSize(width, 4 * self.fontMetrics().height())


def scroll_body(dialog: QDialog) -> QScrollArea | None:
    """Put everything in ``dialog``'s layout but its trailing button boxes into a :class:`FitScrollArea`.

    Widgets and sub-layouts move as they are (references to them stay valid), with their stretch factors. Returns
    the scroll area, or None where the dialog has no box layout or was done already."""
    layout = dialog.layout()
    if not isinstance(layout, QBoxLayout) or dialog.property(_SCROLLED):
        return None
    items: list[tuple[QLayoutItem, int]] = []
    for i in range(layout.count()):
        item = layout.itemAt(i)
        if item is not None:
            items.append((item, layout.stretch(i)))
    buttons_from = len(items)
    while buttons_from > 0 and isinstance(items[buttons_from - 1][0].widget(), QDialogButtonBox):
        buttons_from -= 1
    for _ in items:
        layout.takeAt(0)
    body = QWidget()
    body.setObjectName("DialogBody")
    body_layout = QVBoxLayout(body)
    body_layout.setContentsMargins(0, 0, 0, 0)
    body_layout.setSpacing(layout.spacing())
    for item, stretch in items[:buttons_from]:
        if (widget := item.widget()) is not None:
            body_layout.addWidget(widget, stretch, item.alignment())
        elif (inner := item.layout()) is not None:
            body_layout.addLayout(inner, stretch)
        else:
            body_layout.addItem(item)
    area = FitScrollArea()
    area.setObjectName("DialogScroll")
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setWidgetResizable(True)
    # Tab goes through the body's controls (the area scrolls to each); the area itself is no stop of its own.
    area.setFocusPolicy(Qt.FocusPolicy.NoFocus)
    area.setWidget(body)
    layout.addWidget(area, 1)
    for item, _stretch in items[buttons_from:]:
        layout.addItem(item)
    dialog.setProperty(_SCROLLED, True)
    return area


def available(widget: QWidget) -> QRect:
    """The available geometry (without panels and docks) of the screen ``widget`` opens on: its parent's."""
    parent = widget.parentWidget()
    screen = (parent.window().screen() if parent is not None else None) or widget.screen()
    screen = screen or QGuiApplication.primaryScreen()
    return screen.availableGeometry()


def fit_to_screen(dialog: QDialog) -> None:
    """Cap ``dialog`` to its screen's available geometry and move it inside; scroll its body where it must."""
    area = available(dialog)
    frame_w = max(dialog.frameGeometry().width() - dialog.width(), 0)
    frame_h = max(dialog.frameGeometry().height() - dialog.height(), FRAME_ALLOWANCE)
    cap = QSize(max(area.width() - frame_w, 200), max(area.height() - frame_h, 200))
    if not isinstance(dialog, QMessageBox) and not dialog.property(_SCROLLED):
        wanted = dialog.minimumSizeHint()
        if wanted.height() > cap.height() or wanted.width() > cap.width():
            scroll_body(dialog)
    if dialog.minimumSize().boundedTo(cap) != dialog.minimumSize():
        dialog.setMinimumSize(dialog.minimumSize().boundedTo(cap))
    size = dialog.size()
    if not dialog.property("fitSized"):
        # The first show: the natural size (what the layout asks for), within the screen.
        size = dialog.sizeHint().expandedTo(dialog.minimumSize()).expandedTo(size)
        dialog.setProperty("fitSized", True)
    dialog.resize(size.boundedTo(cap))
    _move_inside(dialog, area, frame_w, frame_h)


def _move_inside(dialog: QDialog, area: QRect, frame_w: int, frame_h: int) -> None:
    outer_w, outer_h = dialog.width() + frame_w, dialog.height() + frame_h
    pos = dialog.pos()
    parent = dialog.parentWidget()
    if not dialog.testAttribute(Qt.WidgetAttribute.WA_Moved):
        # Centred over the window it belongs to (or the screen), as Qt would have placed it at its new size.
        centre = parent.window().frameGeometry().center() if parent is not None else area.center()
        pos.setX(centre.x() - outer_w // 2)
        pos.setY(centre.y() - outer_h // 2)
    x = min(max(pos.x(), area.left()), area.right() + 1 - outer_w)
    y = min(max(pos.y(), area.top()), area.bottom() + 1 - outer_h)
    dialog.move(max(x, area.left()), max(y, area.top()))


class ScreenFit(QObject):
    """Installed on the application: fits every dialog to its screen as it is shown."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Show and isinstance(watched, QDialog) and watched.isWindow():
            fit_to_screen(watched)
        return False


_installed: dict[int, ScreenFit] = {}


def install(app: QApplication) -> None:
    """Fit every dialog of ``app`` to its screen from now on (once per application)."""
    if id(app) in _installed:
        return
    fitter = ScreenFit(app)
    app.installEventFilter(fitter)
    _installed[id(app)] = fitter
