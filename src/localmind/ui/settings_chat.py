"""Settings → This chat: the system prompt, a style in plain words, and the sampling numbers behind "Advanced".

A chat stores only what differs from the app's defaults (or from its style preset), so changing a default later
still reaches chats that never overrode it.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import (
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from localmind.settings import GENERATION_KEYS, PRESETS, Settings, preset_values

PRESET_ORDER = ("precise", "balanced", "creative")
ADVANCED_KEYS = ("temperature", "top_p", "top_k", "repetition_penalty")  # the technical ones, one click away


def number_field(box: QSpinBox | QDoubleSpinBox) -> None:
    # Left to Fusion and the palette: a stylesheet on a spin box squeezes its text field (Qt 6.11).
    box.setFixedWidth(130)
    box.setMinimumHeight(28)
    box.setAlignment(Qt.AlignmentFlag.AlignRight)


def double_box(low: float, high: float, step: float, decimals: int = 2) -> QDoubleSpinBox:
    box = QDoubleSpinBox()
    box.setRange(low, high)
    box.setSingleStep(step)
    box.setDecimals(decimals)
    number_field(box)
    return box


def int_box(low: int, high: int, step: int = 1) -> QSpinBox:
    box = QSpinBox()
    box.setRange(low, high)
    box.setSingleStep(step)
    number_field(box)
    return box


def help_label() -> QLabel:
    label = QLabel()
    label.setObjectName("HelpText")
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.PlainText)
    return label


class ChatSettingsTab(QWidget):
    """Edits a copy: ``app`` is the dialog's copy of the settings (Use for new chats writes its defaults)."""

    def __init__(self, app: Settings, *, has_conversation: bool, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._app = app
        self._has_conversation = has_conversation
        self._filling = False
        self.chat_scope = help_label()
        self.system_prompt = QPlainTextEdit()
        self.system_prompt.setObjectName("SystemPrompt")
        self.system_prompt.setFixedHeight(96)
        self.system_prompt.setTabChangesFocus(True)
        self.system_prompt_label = QLabel()
        self.system_prompt_label.setBuddy(self.system_prompt)
        self.preset_label = QLabel()
        self.style_help = help_label()
        presets = self._build_presets()
        self.max_new_tokens = int_box(1, 131072, 64)
        self.length_label = QLabel()
        self.length_label.setBuddy(self.max_new_tokens)
        length = QHBoxLayout()
        length.addWidget(self.length_label)
        length.addWidget(self.max_new_tokens)
        length.addStretch(1)
        self.advanced_button = QToolButton()
        self.advanced_button.setObjectName("DisclosureButton")
        self.advanced_button.setCheckable(True)
        self.advanced_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.advanced_button.toggled.connect(self._show_advanced)
        self.advanced = self._build_advanced()
        self.advanced.setVisible(False)
        self.fields["max_new_tokens"] = self.max_new_tokens
        for box in self.fields.values():
            box.valueChanged.connect(self._on_value_edited)
        self.reset_button = QPushButton()
        self.reset_button.setObjectName("SecondaryButton")
        self.reset_button.clicked.connect(self.reset_to_defaults)
        self.make_default_button = QPushButton()
        self.make_default_button.setObjectName("SecondaryButton")
        self.make_default_button.clicked.connect(self.make_default)
        self.defaults_note = help_label()
        actions = QHBoxLayout()
        actions.addWidget(self.reset_button)
        actions.addWidget(self.make_default_button)
        actions.addStretch(1)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(18, 16, 18, 16)
        layout.setSpacing(8)
        for item in (self.chat_scope, self.system_prompt_label, self.system_prompt, self.preset_label):
            layout.addWidget(item)
        layout.addLayout(presets)
        layout.addWidget(self.style_help)
        layout.addLayout(length)
        layout.addWidget(self.advanced_button, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(self.advanced)
        layout.addStretch(1)
        layout.addLayout(actions)
        layout.addWidget(self.defaults_note)

    def _build_presets(self) -> QHBoxLayout:
        # Separate buttons, not a QButtonGroup: Tab stops at each (a group let Tab reach only the first of them).
        self.preset_buttons: dict[str, QPushButton] = {}
        presets = QHBoxLayout()
        presets.setSpacing(8)
        for name in PRESET_ORDER:
            button = QPushButton()
            button.setObjectName("PresetButton")
            button.setCheckable(True)
            button.setMinimumWidth(104)
            button.setCursor(Qt.CursorShape.PointingHandCursor)
            button.clicked.connect(lambda _=False, n=name: self.choose_preset(n))
            self.preset_buttons[name] = button
            presets.addWidget(button)
        presets.addStretch(1)
        return presets

    def _build_advanced(self) -> QWidget:
        box = QWidget()
        box.setObjectName("AdvancedSettings")
        self.advanced_help = help_label()
        self.temperature = double_box(0.0, 5.0, 0.05)
        self.top_p = double_box(0.01, 1.0, 0.05)
        self.top_k = int_box(0, 1000)
        self.repetition_penalty = double_box(0.5, 2.0, 0.05)
        self.fields: dict[str, QSpinBox | QDoubleSpinBox] = {
            "temperature": self.temperature,
            "top_p": self.top_p,
            "top_k": self.top_k,
            "repetition_penalty": self.repetition_penalty,
        }
        self.sampling_form = QFormLayout()
        self.sampling_form.setLabelAlignment(Qt.AlignmentFlag.AlignRight)
        self.sampling_form.setHorizontalSpacing(14)
        self.field_labels = {name: QLabel() for name in ADVANCED_KEYS}
        self.field_help = {name: help_label() for name in ADVANCED_KEYS}
        for name in ADVANCED_KEYS:
            self.field_labels[name].setBuddy(self.fields[name])
            self.sampling_form.addRow(self.field_labels[name], self.fields[name])
            self.sampling_form.addRow("", self.field_help[name])
        layout = QVBoxLayout(box)
        layout.setContentsMargins(12, 0, 0, 0)
        layout.addWidget(self.advanced_help)
        layout.addLayout(self.sampling_form)
        return box

    def _show_advanced(self, shown: bool) -> None:
        self.advanced.setVisible(shown)
        self.advanced_button.setArrowType(Qt.ArrowType.DownArrow if shown else Qt.ArrowType.RightArrow)

    # -- values ----------------------------------------------------------------------------------------------------
    def fill(self, system_prompt: str, chat: dict[str, Any]) -> None:
        self.system_prompt.setPlainText(system_prompt)
        preset = chat.get("preset")
        values = (
            preset_values(preset, self._app.generation)
            if preset in PRESETS
            else {n: getattr(self._app.generation, n) for n in GENERATION_KEYS}
        )
        values.update({k: v for k, v in chat.items() if k in GENERATION_KEYS})
        self._set_values(values)
        self._mark_preset(preset if preset in PRESETS else self._matching_preset())

    def _set_values(self, values: dict[str, Any]) -> None:
        self._filling = True
        try:
            for name, box in self.fields.items():
                box.setValue(values[name])
        finally:
            self._filling = False

    def values(self) -> dict[str, Any]:
        return {name: box.value() for name, box in self.fields.items()}

    def _matching_preset(self) -> str | None:
        current = self.values()
        for name in PRESET_ORDER:
            wanted = preset_values(name, self._app.generation)
            if all(abs(float(current[k]) - float(wanted[k])) < 1e-6 for k in PRESETS[name]):
                return name
        return None

    def _mark_preset(self, name: str | None) -> None:
        for key, button in self.preset_buttons.items():
            button.setChecked(key == name)

    @property
    def preset(self) -> str | None:
        return next((name for name, b in self.preset_buttons.items() if b.isChecked()), None)

    def choose_preset(self, name: str) -> None:
        values = self.values()
        values.update(PRESETS[name])
        self._set_values(values)
        self._mark_preset(name)

    def _on_value_edited(self) -> None:
        if not self._filling:
            self._mark_preset(self._matching_preset())

    def _defaults_dict(self) -> dict[str, Any]:
        return {n: getattr(self._app.generation, n) for n in GENERATION_KEYS}

    def chat_settings(self) -> dict[str, Any]:
        """Only what differs from the app defaults, or from the chosen preset."""
        preset = self.preset
        base = preset_values(preset, self._app.generation) if preset else self._defaults_dict()
        result: dict[str, Any] = {"preset": preset} if preset else {}
        for name, value in self.values().items():
            if abs(float(value) - float(base[name])) > 1e-9:
                result[name] = value
        return result

    def make_default(self) -> None:
        values = self.values()
        self._app.generation = dataclasses.replace(
            self._app.generation,
            temperature=float(values["temperature"]),
            top_p=float(values["top_p"]),
            top_k=int(values["top_k"]),
            max_new_tokens=int(values["max_new_tokens"]),
            repetition_penalty=float(values["repetition_penalty"]),
            system_prompt=self.system_prompt.toPlainText(),
        )
        self._mark_preset(self._matching_preset())
        self.defaults_note.setText(self.tr("Saved as the defaults for new chats when you press OK."))

    def reset_to_defaults(self) -> None:
        self._set_values(self._defaults_dict())
        self.system_prompt.setPlainText(self._app.generation.system_prompt)
        self._mark_preset(self._matching_preset())

    # -- text ------------------------------------------------------------------------------------------------------
    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def retranslate(self) -> None:
        self.chat_scope.setText(
            self.tr("These settings apply to this chat only.")
            if self._has_conversation
            else self.tr("These settings apply to the new chat you are about to start.")
        )
        self.system_prompt_label.setText(self.tr("Instructions for the assistant"))
        self.system_prompt.setPlaceholderText(
            self.tr("For example: You are a concise assistant. Answer in plain English.")
        )
        self.system_prompt.setAccessibleName(self.tr("Instructions for the assistant"))
        self.system_prompt.setAccessibleDescription(self.tr("The system prompt: read before every message."))
        self.preset_label.setText(self.tr("Style"))
        self.style_help.setText(self.tr("How the assistant words its answers. Balanced suits most chats."))
        self._retranslate_presets()
        self.length_label.setText(self.tr("Longest answer (tokens)"))
        self.max_new_tokens.setToolTip(
            self.tr("A token is a word or a part of a word. The longest answer the model may write.")
        )
        self.max_new_tokens.setAccessibleName(self.tr("Longest answer"))
        self.advanced_button.setText(self.tr("Advanced"))
        self.advanced_button.setAccessibleName(self.tr("Advanced"))
        self.advanced_button.setArrowType(
            Qt.ArrowType.DownArrow if self.advanced_button.isChecked() else Qt.ArrowType.RightArrow
        )
        self.advanced_help.setText(
            self.tr("The numbers behind the styles, for those who know them. The styles above set them for you.")
        )
        self._retranslate_fields()
        self.reset_button.setText(self.tr("Reset to defaults"))
        self.make_default_button.setText(self.tr("Use for new chats"))
        self.make_default_button.setToolTip(
            self.tr("Make these values and the system prompt the defaults for new chats")
        )

    def _retranslate_presets(self) -> None:
        names = {"precise": self.tr("Precise"), "balanced": self.tr("Balanced"), "creative": self.tr("Creative")}
        tips = {
            "precise": self.tr("Focused, repeatable answers"),
            "balanced": self.tr("A good default for most chats"),
            "creative": self.tr("More varied and surprising answers"),
        }
        for name, button in self.preset_buttons.items():
            button.setText(names[name])
            button.setToolTip(tips[name])
            button.setAccessibleName(names[name])
            button.setAccessibleDescription(tips[name])

    def _retranslate_fields(self) -> None:
        labels = {
            "temperature": self.tr("Temperature"),
            "top_p": self.tr("Top-p"),
            "top_k": self.tr("Top-k"),
            "repetition_penalty": self.tr("Repetition penalty"),
        }
        tips = {
            "temperature": self.tr("Higher is more random; 0 always picks the likeliest word."),
            "top_p": self.tr("Only consider the likeliest words that together make up this share."),
            "top_k": self.tr("Only consider this many likeliest words (0: no limit)."),
            "repetition_penalty": self.tr("Above 1 discourages repeating the same words."),
        }
        for name in ADVANCED_KEYS:
            self.field_labels[name].setText(labels[name])
            self.field_help[name].setText(tips[name])
            self.fields[name].setToolTip(tips[name])
            self.fields[name].setAccessibleName(labels[name])
            self.fields[name].setAccessibleDescription(tips[name])
