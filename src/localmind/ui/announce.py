"""Tell screen readers what happened without moving the keyboard focus: an answer that finished streaming.

A streamed answer grows a few words at a time; announcing each piece would drown the user. When the turn ends, the
conversation view gets one announcement (``QAccessibleAnnouncementEvent``, Qt's live region: AT-SPI's
Announcement, UIA's notification, VoiceOver's announcement) with the answer's beginning, and the same words as its
accessible description, where a screen reader that predates announcements finds them.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject
from PySide6.QtGui import QAccessible, QAccessibleAnnouncementEvent
from PySide6.QtWidgets import QWidget

ANNOUNCED_CHARS = 200  # the beginning of the answer; the rest is read in the conversation itself


def announce(widget: QWidget, text: str) -> None:
    """Say ``text`` politely (after what the screen reader is saying now), from ``widget``."""
    widget.setAccessibleDescription(text)
    if QAccessible.isActive():
        event = QAccessibleAnnouncementEvent(widget, text)
        QAccessible.updateAccessibility(event)


class AnswerAnnouncer(QObject):
    """Announces each answer once it has finished streaming (``session.turn_finished``)."""

    def __init__(self, session: Any, view: QWidget, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._view = view
        self._answer: list[str] = []
        session.generating_changed.connect(self._on_generating)
        session.reply_delta.connect(self._on_delta)
        session.turn_finished.connect(self._on_finished)

    def _on_generating(self, generating: bool) -> None:
        if generating:
            self._answer.clear()

    def _on_delta(self, text: str) -> None:
        self._answer.append(text)

    def _on_finished(self, _stats: object) -> None:
        text = " ".join("".join(self._answer).split())
        if len(text) > ANNOUNCED_CHARS:
            text = text[: ANNOUNCED_CHARS - 1].rstrip() + "…"
        message = self.tr("Answer finished: {text}").format(text=text) if text else self.tr("Answer finished.")
        announce(self._view, message)
        self._answer.clear()
