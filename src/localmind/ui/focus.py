"""Where typing goes in the main window: to the message box, unless the user chose a place that takes text.

One rule for every action instead of a ``setFocus`` after each: whenever the keyboard focus lands on something in the
chat that does not itself take typing (a button, a list, an answer's text with nothing selected, nothing at all after
a dialog or a deleted widget), it goes back to the message box once the click or dialog is over. Tab and Shift+Tab
move the focus as always (keyboard users reach every control), and a printable key typed into a list goes where
typing belongs (the message box, or the search box for the search results) instead of jumping to a row.

Only ``QApplication.focusChanged`` and the lists' own key events are watched: no application-wide event filter
runs for every event of a streaming answer.
"""

from __future__ import annotations

import weakref

from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QGuiApplication, QKeyEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QTextEdit,
    QWidget,
)
from shiboken6 import isValid

PRESSED_RETRY_MS = 50  # while a mouse button is held (a click, a drag selecting text), look again this often
TYPING_MODIFIERS = Qt.KeyboardModifier.ShiftModifier | Qt.KeyboardModifier.KeypadModifier


def takes_typing(widget: QWidget) -> bool:
    """Whether ``widget`` is a place the user chose to type or copy from (then the focus stays there)."""
    if isinstance(widget, (QLineEdit, QAbstractSpinBox)):
        return True
    if isinstance(widget, QComboBox):
        return widget.isEditable()
    if isinstance(widget, (QTextEdit, QPlainTextEdit)):
        # An answer's text keeps the focus only while something is selected in it (Ctrl+C copies that).
        return not widget.isReadOnly() or widget.textCursor().hasSelection()
    if isinstance(widget, QLabel):
        return widget.hasSelectedText()
    if isinstance(widget, QAbstractItemView):
        return widget.state() == QAbstractItemView.State.EditingState  # renaming a chat
    return False


def is_typing(event: QKeyEvent) -> bool:
    """A key that writes a character (not a shortcut, not a navigation key)."""
    text = event.text()
    if not text or not text.isprintable():
        return False
    return not (event.modifiers() & ~TYPING_MODIFIERS)


class FocusKeeper(QObject):
    """Gives the keyboard back to ``home`` (the message box) after actions in ``window`` that do not need it.

    Args:
        window: the main window; only focus inside it is looked after.
        home: where typing goes by default.
        own_pages: a widget (a stack of pages) where this rule does not hold unless ``chat_page`` is shown there
            (the model manager and the Documents page have their own fields and lists).
    """

    def __init__(self, window: QWidget, home: QWidget, own_pages: QWidget | None, chat_page: QWidget | None) -> None:
        super().__init__(window)
        self.window = window
        self.home = home
        self._own_pages = own_pages
        self._chat_page = chat_page
        self._navigating = 0
        self._typing_targets: dict[QObject, QWidget] = {}
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self.settle)
        app = QApplication.instance()
        if isinstance(app, QApplication):
            # Through a weak reference, not the bound method: when the window is freed by the garbage collector, its
            # widgets' destruction moves the focus after this object's attributes are gone ("Slot not found").
            keeper = weakref.ref(self)

            def focus_changed(old: QWidget | None, new: QWidget | None) -> None:
                alive = keeper()
                if alive is not None and isValid(alive) and hasattr(alive, "_navigating"):
                    alive._on_focus_changed(old, new)

            app.focusChanged.connect(focus_changed)

    # -- set up by the window ------------------------------------------------------------------------------------
    def send_typing(self, view: QAbstractItemView, to: QWidget | None = None) -> None:
        """Printable keys typed into ``view`` go to ``to`` (the message box by default)."""
        self._typing_targets[view] = to if to is not None else self.home
        view.installEventFilter(self)

    def navigating(self, focus_widget_still_there: bool) -> _Navigation:
        """Around Tab / Shift+Tab (``QWidget.focusNextPrevChild``): the focus moved there on purpose.

        Qt calls the same function when the focused widget is hidden or disabled (an "Answer again" button that
        goes away once clicked); that is no choice of the user's, so the rule applies then.
        """
        return _Navigation(self, focus_widget_still_there)

    # -- the rule ------------------------------------------------------------------------------------------------
    def _on_focus_changed(self, old: QWidget | None, new: QWidget | None) -> None:
        if self._navigating:
            return
        if new is not None and new.window() is not self.window:
            return  # a dialog, a menu or another window: looked at again when the focus comes back
        clicked = QGuiApplication.mouseButtons() != Qt.MouseButton.NoButton
        back = old is None or old.window() is not self.window  # a dialog or menu closed, the window re-activated
        # Otherwise the window moved the focus itself for a key the user pressed (Enter in the search box goes to
        # its results): that is kept.
        if new is None or clicked or back:
            self._timer.start(0)  # once the click, the dialog's closing or the widget's deletion is over

    def settle(self) -> None:
        """Put the focus in the message box unless it is where the user can type or it is not ours to move."""
        if QApplication.activePopupWidget() is not None or QApplication.activeModalWidget() is not None:
            return  # a menu or dialog is open; its closing moves the focus back into the window and brings us here
        if QApplication.activeWindow() is not self.window:
            return
        if QGuiApplication.mouseButtons() != Qt.MouseButton.NoButton:
            self._timer.start(PRESSED_RETRY_MS)  # a click not released yet, or text being selected by dragging
            return
        focused = QApplication.focusWidget()
        if focused is self.home or not self.home.isVisible() or not self.home.isEnabled():
            return
        if focused is not None and self._leave_alone(focused):
            return
        self.home.setFocus(Qt.FocusReason.OtherFocusReason)

    def _leave_alone(self, focused: QWidget) -> bool:
        return focused.window() is not self.window or takes_typing(focused) or self._on_own_page(focused)

    def _on_own_page(self, widget: QWidget) -> bool:
        pages, chat = self._own_pages, self._chat_page
        if pages is None or chat is None or not pages.isAncestorOf(widget):
            return False
        current = getattr(pages, "currentWidget", lambda: chat)()
        return current is not chat

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        target = getattr(self, "_typing_targets", {}).get(watched)  # {} while torn down by the garbage collector
        if target is not None and event.type() == QEvent.Type.KeyPress and isinstance(event, QKeyEvent):
            view = watched
            editing = isinstance(view, QAbstractItemView) and view.state() == QAbstractItemView.State.EditingState
            if not editing and is_typing(event) and target.isVisible() and target.isEnabled():
                target.setFocus(Qt.FocusReason.OtherFocusReason)
                copy = QKeyEvent(
                    event.type(), event.key(), event.modifiers(), event.text(), event.isAutoRepeat(), event.count()
                )
                QCoreApplication.sendEvent(target, copy)
                return True
        return super().eventFilter(watched, event)


class _Navigation:
    def __init__(self, keeper: FocusKeeper, on_purpose: bool) -> None:
        self.keeper = keeper
        self.on_purpose = on_purpose

    def __enter__(self) -> None:
        if self.on_purpose:
            self.keeper._navigating += 1

    def __exit__(self, *_: object) -> None:
        if self.on_purpose:
            self.keeper._navigating -= 1
        else:
            self.keeper._timer.start(0)


__all__ = ["FocusKeeper", "is_typing", "takes_typing"]
