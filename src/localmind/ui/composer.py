"""Where the user writes: Enter sends, Shift+Enter adds a line, Stop while a reply streams.

Editing an earlier message reuses the same box: ``begin_edit`` fills it and
the next send becomes ``edit_submitted`` instead of ``send_requested``.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QEvent, QObject, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QKeyEvent, QTextCursor, QTextOption
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from localmind.ui import icons, theme

MAX_VISIBLE_LINES = 10


class ComposerInput(QPlainTextEdit):
    """A plain-text box that grows with its text (up to a limit) and sends on Enter."""

    submitted = Signal()
    escape_pressed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("ComposerInput")
        self.setWordWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        self.setTabChangesFocus(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.document().setDocumentMargin(2)
        self.document().documentLayout().documentSizeChanged.connect(self._fit_height)
        self._fit_height()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            modifiers = event.modifiers()
            shift = bool(modifiers & Qt.KeyboardModifier.ShiftModifier)
            if modifiers in (Qt.KeyboardModifier.NoModifier, Qt.KeyboardModifier.KeypadModifier):
                self.submitted.emit()
                return
            if shift:
                self.insertPlainText("\n")
                return
        if event.key() == Qt.Key.Key_Escape:
            self.escape_pressed.emit()
            event.ignore()
            return
        super().keyPressEvent(event)

    def _fit_height(self) -> None:
        line = self.fontMetrics().lineSpacing()
        cap = MAX_VISIBLE_LINES * line
        # Real pixel heights, not line counts: a fallback font (Chinese, emoji) makes a line taller than the widget
        # font's. Stop at the cap, so a 1 MB paste costs no more than ten lines.
        height = 0.0
        block = self.document().firstBlock()
        while block.isValid() and height <= cap:
            height += self.blockBoundingRect(block).height()
            block = block.next()
        full = height > cap
        # While everything fits there is nothing to scroll to; a bar there would only flicker in and out.
        self.setVerticalScrollBarPolicy(
            Qt.ScrollBarPolicy.ScrollBarAsNeeded if full else Qt.ScrollBarPolicy.ScrollBarAlwaysOff
        )
        content = math.ceil(min(max(height, line), cap))
        margins = self.contentsMargins()
        self.setFixedHeight(content + 2 * int(self.document().documentMargin()) + margins.top() + margins.bottom() + 4)


class Composer(QWidget):
    """The message box with its Send/Stop button, a Regenerate button and an edit banner.

    Signals:
        send_requested(str), edit_submitted(int message_id, str text), stop_requested(),
        regenerate_requested(), edit_cancelled()
    """

    send_requested = Signal(str)
    send_blocked = Signal(str)  # Enter could not send: why, in words for the user
    send_queued = Signal(bool)  # Enter while the model loads: True, kept to send when it is ready; False, no longer
    edit_submitted = Signal(int, str)
    stop_requested = Signal()
    regenerate_requested = Signal()
    edit_cancelled = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("Composer")
        self._generating = False
        self._can_send = True
        self._blocked_reason = ""
        self._can_queue = False  # sending is held back only for a while (the model loads): Enter queues the message
        self._queued = False
        self._editing: int | None = None

        self.edit_banner = QWidget()
        banner = QHBoxLayout(self.edit_banner)
        banner.setContentsMargins(6, 0, 6, 2)
        self.edit_label = QLabel()
        self.edit_label.setObjectName("EditBanner")
        self.cancel_edit_button = QPushButton()
        self.cancel_edit_button.setObjectName("GhostButton")
        self.cancel_edit_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.cancel_edit_button.clicked.connect(self.cancel_edit)
        banner.addWidget(self.edit_label, 1)
        banner.addWidget(self.cancel_edit_button)
        self.edit_banner.hide()

        self.frame = QFrame()
        self.frame.setObjectName("ComposerFrame")
        self.input = ComposerInput()
        self.input.submitted.connect(self.submit)
        self.input.escape_pressed.connect(self._on_escape)
        self.input.textChanged.connect(self._on_text_changed)
        self.input.installEventFilter(self)
        self.send_button = QToolButton()
        self.send_button.setObjectName("SendButton")
        self.send_button.setFixedSize(32, 32)
        self.send_button.setIconSize(QSize(18, 18))
        self.send_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.send_button.clicked.connect(self._on_button)
        # A click on the frame's padding puts the cursor in the box, as it looks like part of it (issue 10.12).
        self.frame.setFocusProxy(self.input)
        self.frame.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        row = QHBoxLayout(self.frame)
        row.setContentsMargins(14, 8, 8, 8)
        row.setSpacing(8)
        row.addWidget(self.input, 1, Qt.AlignmentFlag.AlignVCenter)
        row.addWidget(self.send_button, 0, Qt.AlignmentFlag.AlignBottom)

        self.regenerate_button = QPushButton()
        self.regenerate_button.setObjectName("GhostButton")
        self.regenerate_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.regenerate_button.clicked.connect(self.regenerate_requested)
        self.regenerate_button.setEnabled(False)
        self.regenerate_button.hide()
        self.hint = QLabel()
        self.hint.setObjectName("ComposerHint")
        self.footer = footer = QHBoxLayout()  # app.py adds per-model switches here (e.g. "Think before answering")
        footer.setContentsMargins(6, 0, 6, 0)
        footer.addWidget(self.regenerate_button)
        footer.addStretch(1)
        footer.addWidget(self.hint)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        layout.addWidget(self.edit_banner)
        layout.addWidget(self.frame)
        layout.addLayout(footer)
        self.retranslate()
        self.apply_theme()
        self._update_button()

    # -- public --------------------------------------------------------------------------------------------------
    @property
    def text(self) -> str:
        return self.input.toPlainText()

    def set_text(self, text: str) -> None:
        self.input.setPlainText(text)
        cursor = self.input.textCursor()
        cursor.movePosition(cursor.MoveOperation.End)
        self.input.setTextCursor(cursor)

    @property
    def editing(self) -> int | None:
        return self._editing

    def begin_edit(self, message_id: int, text: str) -> None:
        self._editing = message_id
        self.set_text(text)
        self.edit_banner.show()
        self.input.setFocus()
        self._update_button()

    def cancel_edit(self) -> None:
        if self._editing is None:
            return
        self._editing = None
        self.edit_banner.hide()
        self.input.clear()
        self._update_button()
        self.edit_cancelled.emit()

    def set_generating(self, generating: bool) -> None:
        self._generating = generating
        self._update_button()

    def set_can_send(self, can_send: bool, reason: str = "", *, queue: bool = False) -> None:
        """Whether a model is ready; ``reason`` tells the user why not (shown on the button). ``queue``: it will
        be soon (the model loads), so Enter meanwhile keeps the message and sends it then."""
        self._can_send = can_send
        self._blocked_reason = reason
        self._can_queue = queue and not can_send
        if can_send and self._queued:
            # After whoever made sending possible has finished setting up (the session has its model by now).
            QTimer.singleShot(0, self._send_queued)
        elif not can_send and not queue:
            self._unqueue()  # the load failed or the model went: the message stays in the box, unsent
        self._update_button()

    @property
    def queued(self) -> bool:
        """Enter was pressed while the model loaded: the message goes once it is ready (unless edited first)."""
        return self._queued

    def set_can_regenerate(self, enabled: bool) -> None:
        self.regenerate_button.setEnabled(enabled)
        self.regenerate_button.setVisible(enabled)

    def submit(self) -> None:
        text = self.text.rstrip("\r\n")  # line breaks after the last word say nothing; the model should not see them
        if not text.strip():
            return
        if not self._generating and not self._can_send and self._can_queue:
            # The model is loading: what the user sees is sent as soon as it is ready, nothing is added to it.
            if not self._queued:
                self._queued = True
                self._update_button()
                self.send_queued.emit(True)
            return
        if self._generating or not self._can_send:
            # Say why nothing was sent. While an answer streams, what follows goes on its own line: a second message
            # typed meanwhile is never glued onto the first (issues 9.10, 10.12). Without a model there is no second
            # message to keep apart, and a line break would only be sent with this one later (issue 21).
            if self._generating and not self.text.endswith("\n"):
                self.input.moveCursor(QTextCursor.MoveOperation.End)
                self.input.insertPlainText("\n")
            self.send_blocked.emit(
                self.tr("An answer is being written. Wait for it, or stop it with Esc, then press Enter again.")
                if self._generating
                else self._blocked_reason or self.tr("Open a model first")
            )
            return
        if self._editing is not None:
            message_id = self._editing
            self._editing = None
            self.edit_banner.hide()
            self.input.clear()
            self.edit_submitted.emit(message_id, text)
        else:
            self.input.clear()
            self.send_requested.emit(text)
        self._update_button()

    # -- internals -----------------------------------------------------------------------------------------------
    def _on_button(self) -> None:
        if self._generating:
            self.stop_requested.emit()
        else:
            self.submit()

    def _on_escape(self) -> None:
        if self._generating:
            self.stop_requested.emit()
        elif self._queued:
            self._unqueue()
        elif self._editing is not None:
            self.cancel_edit()

    def _on_text_changed(self) -> None:
        # An edit after Enter means the message is not final: it waits for the next Enter.
        self._unqueue()

    def _unqueue(self) -> None:
        if self._queued:
            self._queued = False
            self._update_button()
            self.send_queued.emit(False)

    def _send_queued(self) -> None:
        if self._queued and self._can_send and not self._generating:
            self._queued = False
            self.send_queued.emit(False)
            self.submit()

    def _update_button(self) -> None:
        c = theme.current()
        if self._generating:
            self.send_button.setObjectName("StopButton")
            self.send_button.setIcon(icons.icon("stop", c.window))
            self.send_button.setEnabled(True)
            self.send_button.setToolTip(self.tr("Stop (Esc)"))
            self.send_button.setAccessibleName(self.tr("Stop generating"))
        else:
            self.send_button.setObjectName("SendButton")
            self.send_button.setIcon(icons.icon("send", c.on_accent, c.muted))
            self.send_button.setEnabled(self._can_send)
            if self._queued:
                tip = self.tr("Will be sent when the model is ready (Esc: keep it unsent)")
            else:
                tip = self.tr("Send (Enter)") if self._can_send else self._blocked_reason
            self.send_button.setToolTip(tip)
            self.send_button.setAccessibleName(self.tr("Send message"))
        # The object name picks the style rule; re-polish so the change shows.
        self.send_button.style().unpolish(self.send_button)
        self.send_button.style().polish(self.send_button)

    def apply_theme(self) -> None:
        c = theme.current()
        self.regenerate_button.setIcon(icons.icon("refresh", c.muted, c.border))
        self.cancel_edit_button.setIcon(icons.icon("close", c.muted))
        self._update_button()

    def retranslate(self) -> None:
        self.input.setPlaceholderText(self.tr("Message LocalMind…"))
        self.input.setAccessibleName(self.tr("Message"))
        self.frame.setAccessibleName(self.tr("Message"))
        self.regenerate_button.setText(self.tr("Answer again"))
        self.regenerate_button.setToolTip(self.tr("Ask the model to answer your last message"))
        self.regenerate_button.setAccessibleName(self.tr("Regenerate the last answer"))
        self.hint.setText(self.tr("Enter to send · Shift+Enter for a new line"))
        self.edit_label.setText(self.tr("Editing an earlier message — sending it continues the chat from there."))
        self.cancel_edit_button.setText(self.tr("Cancel"))
        self._update_button()

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is getattr(self, "input", None) and event.type() in (QEvent.Type.FocusIn, QEvent.Type.FocusOut):
            self.frame.setProperty("focused", event.type() == QEvent.Type.FocusIn)
            self.frame.style().unpolish(self.frame)
            self.frame.style().polish(self.frame)
        return super().eventFilter(watched, event)
