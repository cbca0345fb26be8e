"""The page shown instead of an empty chat.

With no model it says how to get one (the model manager, or a folder already on
disk); while one loads it says so; once a model is ready it offers a few
things to try.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QSize, Qt, Signal
from PySide6.QtGui import QPainter, QPaintEvent
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from localmind.ui import icons, theme

COLUMN_WIDTH = 700


class _Card(QFrame):
    """A clickable card: icon, title, one line of explanation and a button."""

    def __init__(self, icon_name: str, primary: bool) -> None:
        super().__init__()
        self.setObjectName("WelcomeCard")
        self.icon_name = icon_name
        self.icon = QLabel()
        self.icon.setFixedSize(28, 28)
        self.title = QLabel()
        self.title.setObjectName("CardTitle")
        self.text = QLabel()
        self.text.setObjectName("CardText")
        self.text.setWordWrap(True)
        self.text.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)  # a taller neighbour card
        self.button = QPushButton()
        self.button.setObjectName("PrimaryButton" if primary else "SecondaryButton")
        self.button.setCursor(Qt.CursorShape.PointingHandCursor)
        # The technical words (file names, formats) one click away, for whoever needs them.
        self.details_button = QToolButton()
        self.details_button.setObjectName("GhostButton")
        self.details_button.setCheckable(True)
        self.details_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.details_button.toggled.connect(self._show_details)
        self.details_button.hide()
        self.details = QLabel()
        self.details.setObjectName("CardText")
        self.details.setWordWrap(True)
        self.details.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.details.hide()
        self._details_label = ""
        layout = QVBoxLayout(self)
        layout.setContentsMargins(20, 18, 20, 18)
        layout.setSpacing(8)
        layout.addWidget(self.icon)
        layout.addWidget(self.title)
        layout.addWidget(self.text, 1)
        layout.addWidget(self.details_button, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(self.details)
        layout.addWidget(self.button, 0, Qt.AlignmentFlag.AlignLeft)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self.setMinimumWidth(180)
        self.setMaximumWidth(340)

    def set_details(self, label: str, text: str) -> None:
        self._details_label = label
        self.details.setText(text)
        self.details_button.setVisible(bool(text))
        self._show_details(self.details_button.isChecked())

    def _show_details(self, shown: bool) -> None:
        self.details.setVisible(shown and bool(self.details.text()))
        self.details_button.setText(("▾ " if shown else "▸ ") + self._details_label)
        self.details_button.setAccessibleName(self._details_label)

    def apply_theme(self) -> None:
        c = theme.current()
        self.icon.setPixmap(icons.pixmap(self.icon_name, c.accent_hover if c.is_dark else c.accent, 28))


class _ElidedLabel(QLabel):
    """One line of text, cut with an ellipsis to whatever width it gets (never widening its parent)."""

    def minimumSizeHint(self) -> QSize:
        return QSize(20, super().minimumSizeHint().height())

    def sizeHint(self) -> QSize:
        return QSize(20, super().sizeHint().height())

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setPen(self.palette().color(self.foregroundRole()))
        rect = self.contentsRect()
        text = self.fontMetrics().elidedText(self.text(), Qt.TextElideMode.ElideRight, rect.width())
        painter.drawText(rect, int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), text)


class _Suggestion(QPushButton):
    """A prompt to try: a short heading over the prompt's first line."""

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("SuggestionButton")
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setMinimumWidth(160)
        self.prompt = ""
        self.head = QLabel()
        self.head.setObjectName("CardTitle")
        self.body = _ElidedLabel()
        self.body.setObjectName("CardText")
        for label in (self.head, self.body):
            label.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(14, 10, 14, 10)
        self._layout.setSpacing(2)
        self._layout.addWidget(self.head)
        self._layout.addWidget(self.body)

    def set_prompt(self, head: str, prompt: str) -> None:
        self.prompt = prompt
        self.head.setText(head)
        first = prompt.splitlines()[0]
        self.body.setText(first)
        self.body.setToolTip(prompt.strip())
        self.setAccessibleName(f"{head}: {first}")
        self.setMinimumHeight(self._layout.sizeHint().height())


class WelcomePage(QWidget):
    """Signals: get_model_requested(), open_folder_requested(), suggestion_chosen(str)."""

    get_model_requested = Signal()
    open_folder_requested = Signal()
    suggestion_chosen = Signal(str)

    NO_MODEL, LOADING, READY = "no-model", "loading", "ready"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("WelcomePage")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self._state = self.NO_MODEL
        self._loading_name = ""
        self._model_manager_available = True

        self.logo = QLabel()
        self.logo.setFixedSize(56, 56)
        self.logo.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.title = QLabel()
        self.title.setObjectName("WelcomeTitle")
        self.title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.subtitle = QLabel()
        self.subtitle.setObjectName("WelcomeSubtitle")
        self.subtitle.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.subtitle.setWordWrap(True)

        self.get_card = _Card("download", primary=True)
        self.get_card.button.clicked.connect(self.get_model_requested)
        self.folder_card = _Card("folder", primary=False)
        self.folder_card.button.clicked.connect(self.open_folder_requested)
        self.cards = QWidget()
        cards = QHBoxLayout(self.cards)
        cards.setContentsMargins(0, 0, 0, 0)
        cards.setSpacing(16)
        cards.addStretch(1)
        cards.addWidget(self.get_card)
        cards.addWidget(self.folder_card)
        cards.addStretch(1)

        self.suggestions = QWidget()
        grid = QGridLayout(self.suggestions)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setSpacing(10)
        self.suggestion_buttons: list[_Suggestion] = []
        for i in range(4):
            button = _Suggestion()
            button.clicked.connect(lambda _=False, b=button: self.suggestion_chosen.emit(b.prompt))
            grid.addWidget(button, i // 2, i % 2)
            self.suggestion_buttons.append(button)

        self.privacy = QLabel()
        self.privacy.setObjectName("PrivacyNote")
        self.privacy.setAlignment(Qt.AlignmentFlag.AlignCenter)

        # One centred column: word-wrapped labels need a definite width, which a centred alignment would not give.
        column = QWidget()
        column.setMaximumWidth(COLUMN_WIDTH)
        inner = QVBoxLayout(column)
        inner.setContentsMargins(0, 0, 0, 0)
        inner.setSpacing(10)
        inner.addWidget(self.logo, 0, Qt.AlignmentFlag.AlignHCenter)
        inner.addSpacing(6)
        inner.addWidget(self.title)
        inner.addWidget(self.subtitle)
        inner.addSpacing(18)
        inner.addWidget(self.cards)
        inner.addWidget(self.suggestions)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(column, 100)
        row.addStretch(1)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(32, 24, 32, 24)
        layout.setSpacing(10)
        layout.addStretch(3)
        layout.addLayout(row)
        layout.addStretch(4)
        layout.addWidget(self.privacy)
        self.apply_theme()
        self.retranslate()

    @property
    def state(self) -> str:
        return self._state

    def set_state(self, state: str, model_name: str = "") -> None:
        self._state = state
        self._loading_name = model_name
        self.retranslate()

    def set_model_manager_available(self, available: bool) -> None:
        self._model_manager_available = available
        self.get_card.setVisible(available)

    def retranslate(self) -> None:
        state = self._state
        if state == self.READY:
            self.title.setText(self.tr("How can I help you today?"))
            self.subtitle.setText(
                self.tr("Ask anything. {model} answers right here on your computer.").format(model=self._loading_name)
            )
        elif state == self.LOADING:
            self.title.setText(self.tr("Getting {model} ready…").format(model=self._loading_name))
            self.subtitle.setText(self.tr("Loading the model into memory. You can read your earlier chats meanwhile."))
        else:
            self.title.setText(self.tr("Welcome to LocalMind"))
            self.subtitle.setText(
                self.tr(
                    "Chat with an AI model that runs entirely on your computer. To begin, add a model — it takes a few minutes, once."
                )
            )
        self.cards.setVisible(state == self.NO_MODEL)
        self.get_card.setVisible(self._model_manager_available)
        self.suggestions.setVisible(state == self.READY)

        self.get_card.title.setText(self.tr("Get a model"))
        self.get_card.text.setText(
            self.tr("Pick a small, capable model from the catalog and download it. Recommended.")
        )
        self.get_card.button.setText(self.tr("Browse models"))
        self.get_card.button.setAccessibleName(self.tr("Get a model"))
        self.folder_card.title.setText(self.tr("Use a model you have"))
        self.folder_card.text.setText(self.tr("Already downloaded a model? Open its folder."))
        self.folder_card.set_details(
            self.tr("Details"),
            self.tr(
                "LocalMind opens ONNX models: an ONNX Runtime GenAI package (with genai_config.json) or an "
                "Optimum / onnx-community export (config.json and onnx/model*.onnx)."
            ),
        )
        self.folder_card.button.setText(self.tr("Open a model folder…"))
        self.folder_card.button.setAccessibleName(self.tr("Open a model folder"))

        prompts = [
            (self.tr("Explain a concept"), self.tr("Explain how a rainbow forms, simply.")),
            (self.tr("Write something"), self.tr("Write a short, friendly note inviting my team to lunch on Friday.")),
            (self.tr("Summarize"), self.tr("Summarize the following text in three bullet points:\n\n")),
            (self.tr("Code"), self.tr("Write a Python function that checks whether a word is a palindrome.")),
        ]
        for button, (head, prompt) in zip(self.suggestion_buttons, prompts, strict=True):
            button.set_prompt(head, prompt)
        self.privacy.setText(self.tr("🔒 Private by design: nothing you type leaves this computer."))

    def apply_theme(self) -> None:
        c = theme.current()
        self.logo.setPixmap(icons.pixmap("spark", c.accent_hover if c.is_dark else c.accent, 48))
        self.logo.setMinimumSize(QSize(56, 56))
        for card in (self.get_card, self.folder_card):
            card.apply_theme()

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)
