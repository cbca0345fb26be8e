"""The row under a message: Copy, Edit or Regenerate, the answer's versions (‹ 2/3 ›) and its status badge."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QEvent, Qt, Signal
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QHBoxLayout, QLabel, QToolButton, QWidget

from localmind.ui.chat import icons
from localmind.ui.chat.segments import CopyButton
from localmind.ui.chat.theme import ChatTheme


def action_button(text: str, accessible_name: str, parent: QWidget) -> QToolButton:
    button = QToolButton(parent)
    button.setText(text)
    button.setAccessibleName(accessible_name)
    button.setToolTip(accessible_name)
    button.setAutoRaise(True)
    button.setCursor(Qt.CursorShape.PointingHandCursor)
    button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
    return button


class VersionSwitcher(QWidget):
    """‹ 2/3 ›: which of an answer's versions is shown (Regenerate keeps the earlier ones).

    The arrows are buttons a keyboard reaches with Tab and presses with Space; each has an accessible name, and the
    count is announced as "Answer 2 of 3".

    Signals:
        version_requested(int): show this version (from 0).
    """

    version_requested = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.version, self.versions = 0, 1
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(0)
        self.previous_button = action_button("‹", "", self)
        self.next_button = action_button("›", "", self)
        for button in (self.previous_button, self.next_button):
            button.setFocusPolicy(Qt.FocusPolicy.TabFocus)  # a click leaves the keyboard where it was (the composer)
        self.count = QLabel(self)
        self.count.setTextFormat(Qt.TextFormat.PlainText)
        self.previous_button.clicked.connect(lambda: self._step(-1))
        self.next_button.clicked.connect(lambda: self._step(1))
        row.addWidget(self.previous_button)
        row.addWidget(self.count)
        row.addWidget(self.next_button)
        self.retranslate()
        self.hide()

    def set_versions(self, version: int, versions: int) -> None:
        self.version, self.versions = version, max(1, versions)
        self.count.setText(f"{version + 1}/{self.versions}")
        self.previous_button.setEnabled(version > 0)
        self.next_button.setEnabled(version + 1 < self.versions)
        self.retranslate()

    def _step(self, delta: int) -> None:
        wanted = self.version + delta
        if 0 <= wanted < self.versions:
            self.version_requested.emit(wanted)

    def retranslate(self) -> None:
        for button, name in (
            (self.previous_button, self.tr("Previous answer")),
            (self.next_button, self.tr("Next answer")),
        ):
            button.setAccessibleName(name)
            button.setToolTip(name)
        spoken = self.tr("Answer {number} of {count}").format(number=self.version + 1, count=self.versions)
        self.count.setAccessibleName(spoken)
        self.setAccessibleName(spoken)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)


class MessageActions(QWidget):
    """The action row of one message; ``MessageWidget`` decides what is visible.

    Signals:
        copy_clicked(), edit_clicked(), regenerate_clicked(), version_requested(int)
    """

    def __init__(self, role: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.role = role
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(2)
        self.copy = CopyButton("", "", self)
        self.copy.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.edit_button = action_button("", "", self)
        self.regenerate_button = action_button("", "", self)
        self.versions = VersionSwitcher(self)
        self.badge = QLabel(self)
        self.badge.setTextFormat(Qt.TextFormat.PlainText)
        self.badge.hide()
        if role == "user":
            row.addStretch(1)
            row.addWidget(self.copy)
            row.addWidget(self.edit_button)
        else:
            row.addWidget(self.copy)
            row.addWidget(self.regenerate_button)
            row.addWidget(self.versions)
            row.addSpacing(6)
            row.addWidget(self.badge)
            row.addStretch(1)

    def retranslate(self) -> None:
        # In the context "MessageWidget", where these words were before the row was a class of its own.
        tr = QCoreApplication.translate
        self.copy.set_label(tr("MessageWidget", "Copy"), tr("MessageWidget", "Copy message"))
        for button, text, name in (
            (self.edit_button, tr("MessageWidget", "Edit"), tr("MessageWidget", "Edit message")),
            (self.regenerate_button, tr("MessageWidget", "Regenerate"), tr("MessageWidget", "Regenerate answer")),
        ):
            button.setText(text)
            button.setAccessibleName(name)
            button.setToolTip(name)
        self.badge.setAccessibleName(tr("MessageWidget", "Message status"))
        self.versions.retranslate()

    def show_status(self, status: str, theme: ChatTheme) -> None:
        """The badge for a stopped or failed answer; hidden otherwise."""
        if self.role != "assistant" or status not in ("stopped", "error"):
            self.badge.hide()
            return
        colour = theme.error if status == "error" else theme.muted
        tr = QCoreApplication.translate
        self.badge.setText(tr("MessageWidget", "Error") if status == "error" else tr("MessageWidget", "Stopped"))
        self.badge.setStyleSheet(
            f"QLabel {{ color: {colour.name()}; border: 1px solid {colour.name()}; border-radius: 9px;"
            " padding: 0px 8px; font-size: small; }"
        )
        self.badge.show()

    def apply_theme(self, theme: ChatTheme) -> None:
        muted = self.copy.palette()
        muted.setColor(QPalette.ColorRole.ButtonText, theme.muted)
        muted.setColor(QPalette.ColorRole.WindowText, theme.muted)
        self.copy.setIcon(icons.copy_icon(theme.muted))
        self.edit_button.setIcon(icons.edit_icon(theme.muted))
        self.regenerate_button.setIcon(icons.regenerate_icon(theme.muted))
        for button in (self.copy, self.edit_button, self.regenerate_button, self.versions.count):
            button.setPalette(muted)
        arrows = QPalette(muted)
        faded = QColor(theme.muted)  # a copy: the theme's colours are shared
        faded.setAlphaF(0.35)
        arrows.setColor(QPalette.ColorGroup.Disabled, QPalette.ColorRole.ButtonText, faded)  # no further version
        for arrow in (self.versions.previous_button, self.versions.next_button):
            arrow.setPalette(arrows)
