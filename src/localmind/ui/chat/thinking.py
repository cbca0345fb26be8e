"""A reasoning model's thinking, shown collapsed above its answer: "Thinking…", then "Thought for 3 s".

The text is the model's own: shown as plain text, never as rich text. While collapsed nothing but the header
is updated, so a long stream of thinking costs nothing to show.
"""

from __future__ import annotations

import time
from typing import Any

from PySide6.QtCore import QEvent, Qt, QTimer
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QCheckBox, QLabel, QSizePolicy, QToolButton, QVBoxLayout, QWidget

from localmind.engine.formats.thinking import ThinkingRouter, split_thinking, strip_thinking
from localmind.ui.chat.theme import ChatTheme


class ThinkingSection(QWidget):
    def __init__(self, theme: ChatTheme, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._text = ""
        self._done = False
        self._seconds: float | None = None
        self._started: float | None = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 4)
        layout.setSpacing(2)
        self.toggle = QToolButton(self)
        self.toggle.setAutoRaise(True)
        self.toggle.setCheckable(True)
        self.toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.toggle.setArrowType(Qt.ArrowType.RightArrow)
        self.toggle.setCursor(Qt.CursorShape.PointingHandCursor)
        self.toggle.toggled.connect(self._set_expanded)
        # A disclosure, not a button: no pressed-in look while expanded.
        self.toggle.setStyleSheet(
            "QToolButton { border: none; padding: 2px 2px; } QToolButton:checked { background: none; }"
        )
        self.body = QLabel(self)
        self.body.setTextFormat(Qt.TextFormat.PlainText)
        self.body.setWordWrap(True)
        self.body.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.body.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self.body.setAccessibleName(self.tr("The model's thinking"))
        self.body.hide()
        layout.addWidget(self.toggle, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(self.body)
        self.apply_theme(theme)
        self._update_header()  # a name for screen readers even while hidden
        self.hide()

    def apply_theme(self, theme: ChatTheme) -> None:
        for widget in (self.toggle, self.body):
            palette = widget.palette()
            palette.setColor(QPalette.ColorRole.ButtonText, theme.muted)
            palette.setColor(QPalette.ColorRole.WindowText, theme.muted)
            widget.setPalette(palette)
        self.body.setStyleSheet(f"QLabel {{ border-left: 2px solid {theme.muted.name()}; padding-left: 10px; }}")

    # -- state ---------------------------------------------------------------------------------------------------
    @property
    def text(self) -> str:
        return self._text

    @property
    def done(self) -> bool:
        return self._done

    def set_thinking(self, text: str, done: bool, seconds: float | None = None) -> None:
        """Show ``text`` as the thinking; ``done`` once the answer started (or the reply ended)."""
        if not self._done and self._started is None and not done:
            self._started = time.monotonic()
        if done and not self._done and seconds is None and self._started is not None:
            seconds = time.monotonic() - self._started
        self._text, self._done = text, done
        if seconds is not None:
            self._seconds = seconds
        self._update_header()
        if self.toggle.isChecked():
            self.body.setText(self._text)
        self.show()

    def clear(self) -> None:
        self._text, self._done, self._seconds, self._started = "", False, None, None
        self.toggle.setChecked(False)
        self.hide()

    def _update_header(self) -> None:
        if not self._done:
            label = self.tr("Thinking…")
        elif self._seconds is not None:
            label = self.tr("Thought for {seconds} s").format(seconds=max(1, round(self._seconds)))
        else:
            label = self.tr("Thoughts")
        self.toggle.setText(label)
        verb = self.tr("Hide the thinking") if self.toggle.isChecked() else self.tr("Show the thinking")
        self.toggle.setAccessibleName(f"{label} — {verb}")
        self.toggle.setToolTip(verb)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.body.setAccessibleName(self.tr("The model's thinking"))
            self._update_header()
        super().changeEvent(event)

    def _set_expanded(self, expanded: bool) -> None:
        self.toggle.setArrowType(Qt.ArrowType.DownArrow if expanded else Qt.ArrowType.RightArrow)
        if expanded:
            self.body.setText(self._text)
        self.body.setVisible(expanded)
        self._update_header()


class ThinkingSwitch(QCheckBox):
    """ "Think before answering", per chat, for models whose template can switch thinking (Qwen3).

    Stored in the conversation's settings as ``thinking`` (absent: the model's default, which is on).
    Hidden while the loaded model has no such switch.
    """

    def __init__(self, session: Any, service: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._session = session
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.clicked.connect(self._store)
        session.conversation_opened.connect(lambda *_: self.refresh())
        # After the app's own handlers of the same signals have set the session's model (a failed load may keep
        # the model that worked): read it from the session, not from the signal.
        service.loaded.connect(lambda *_: QTimer.singleShot(0, self.refresh))
        service.load_failed.connect(lambda *_: QTimer.singleShot(0, self.refresh))
        self.retranslate()
        self.hide()

    def refresh(self) -> None:
        model = self._session.model
        _, settings = self._session.chat_settings()
        self.setChecked(settings.get("thinking", True) is not False)
        self.setVisible(bool(model is not None and getattr(model, "thinking_switch", False)))

    def _store(self, checked: bool) -> None:
        system_prompt, settings = self._session.chat_settings()
        settings["thinking"] = bool(checked)
        self._session.set_chat_settings(system_prompt, settings)

    def retranslate(self) -> None:
        self.setText(self.tr("Think before answering"))
        self.setToolTip(
            self.tr("The model reasons step by step before it answers: slower, often better on hard questions.")
        )

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)


__all__ = ["ThinkingRouter", "ThinkingSection", "ThinkingSwitch", "split_thinking", "strip_thinking"]
