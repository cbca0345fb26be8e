"""A notice above the chat: what happened, what to do, and buttons that do it."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QToolButton, QVBoxLayout, QWidget

from localmind.ui import icons, theme


class Banner(QFrame):
    """A notice above the chat: what happened, what to do, and buttons that do it."""

    closed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("Banner")
        self.icon = QLabel()
        self.icon.setFixedSize(20, 20)
        self.title = QLabel()
        self.title.setObjectName("BannerTitle")
        self.title.setWordWrap(True)
        self.detail = QLabel()
        self.detail.setObjectName("BannerDetail")
        self.detail.setWordWrap(True)
        self.detail.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        # The buttons live in a widget hidden while there are none: an empty layout in the column has a maximum width
        # of zero, which capped the whole text column to its minimum (70-90 px) and clipped the message (issue 9.2).
        self.actions_box = QWidget()
        self.actions_row = QHBoxLayout(self.actions_box)
        self.actions_row.setContentsMargins(0, 0, 0, 0)
        self.actions_row.setSpacing(8)
        self.actions_box.hide()
        self.close_button = QToolButton()
        self.close_button.setObjectName("HeaderButton")
        self.close_button.clicked.connect(self.dismiss)
        text = QVBoxLayout()
        text.setSpacing(4)
        text.addWidget(self.title)
        text.addWidget(self.detail)
        text.addSpacing(2)
        text.addWidget(self.actions_box)
        row = QHBoxLayout(self)
        row.setContentsMargins(12, 10, 8, 10)
        row.setSpacing(10)
        row.addWidget(self.icon, 0, Qt.AlignmentFlag.AlignTop)
        row.addLayout(text, 1)
        row.addWidget(self.close_button, 0, Qt.AlignmentFlag.AlignTop)
        self._buttons: list[QPushButton] = []
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self.dismiss)
        self.hide()

    def show_message(
        self,
        kind: str,
        title: str,
        detail: str = "",
        actions: Sequence[tuple[str, Callable[[], None]]] = (),
        timeout_ms: int = 0,
    ) -> None:
        self.setProperty("kind", kind)
        self.style().unpolish(self)
        self.style().polish(self)
        c = theme.current()
        color = {"error": c.danger, "warning": c.warning_text}.get(kind, c.muted)
        self.icon.setPixmap(icons.pixmap("alert", color, 20))
        self.title.setText(title)
        self.detail.setText(detail)
        self.detail.setVisible(bool(detail))
        self._clear_actions()
        for i, (text, callback) in enumerate(actions):
            button = QPushButton(text)
            button.setObjectName("PrimaryButton" if i == 0 else "SecondaryButton")
            button.setCursor(Qt.CursorShape.PointingHandCursor)
            button.clicked.connect(callback)
            self.actions_row.addWidget(button)
            self._buttons.append(button)
        if actions:
            self.actions_row.addStretch(1)
        self.actions_box.setVisible(bool(actions))
        self.close_button.setIcon(icons.icon("close", c.muted))
        self.close_button.setToolTip(self.tr("Dismiss"))
        self.close_button.setAccessibleName(self.tr("Dismiss"))
        self.setAccessibleName(title)
        self.show()
        if timeout_ms:
            self._timer.start(timeout_ms)
        else:
            self._timer.stop()

    @property
    def kind(self) -> str:
        return str(self.property("kind") or "")

    def dismiss(self) -> None:
        self._timer.stop()
        self.hide()
        self._clear_actions()
        self.closed.emit()

    def _clear_actions(self) -> None:
        # Stretches left from earlier actions would pile up.
        while self.actions_row.count():
            item = self.actions_row.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.deleteLater()
        self._buttons = []
        self.actions_box.hide()
