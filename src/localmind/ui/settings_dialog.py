"""Settings: this chat's system prompt and sampling (with presets), and the app's look, language and engine.

The dialog edits copies; the window applies them when the user presses OK.
A chat stores only what differs from the app's defaults (or from its preset), so
changing a default later still reaches chats that never overrode it.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from PySide6.QtCore import QCoreApplication, QEvent, Qt, Signal
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from localmind.engine.types import LoadInfo
from localmind.settings import (
    CONTEXT_BUDGET_RANGE,
    GENERATION_KEYS,
    PRESETS,
    GenerationDefaults,
    Settings,
    preset_values,
)
from localmind.ui import theme
from localmind.ui.plain import plain_labels
from localmind.ui.server_settings import ServerSettingsTab
from localmind.workers.tasks import TaskRunner

PRESET_ORDER = ("precise", "balanced", "creative")


@dataclasses.dataclass
class SettingsResult:
    app: Settings
    system_prompt: str
    chat_settings: dict[str, Any]
    keys: dict[str, str | None] = dataclasses.field(default_factory=dict)  # Server tab: keys to store (None: remove)


def _number_field(box: QSpinBox | QDoubleSpinBox) -> None:
    # Left to Fusion and the palette: a stylesheet on a spin box squeezes its text field (Qt 6.11).
    box.setFixedWidth(130)
    box.setMinimumHeight(28)
    box.setAlignment(Qt.AlignmentFlag.AlignRight)


def _double(low: float, high: float, step: float, decimals: int = 2) -> QDoubleSpinBox:
    box = QDoubleSpinBox()
    box.setRange(low, high)
    box.setSingleStep(step)
    box.setDecimals(decimals)
    _number_field(box)
    return box


def _int(low: int, high: int, step: int = 1) -> QSpinBox:
    box = QSpinBox()
    box.setRange(low, high)
    box.setSingleStep(step)
    _number_field(box)
    return box


class SettingsDialog(QDialog):
    """Signals: applied(SettingsResult) when the user presses OK."""

    applied = Signal(object)

    CHAT_TAB, APP_TAB = 0, 1

    def __init__(
        self,
        app_settings: Settings,
        system_prompt: str,
        chat_settings: dict[str, Any],
        *,
        has_conversation: bool,
        tasks: TaskRunner | None = None,
        loaded_model: LoadInfo | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._loaded_model = loaded_model  # what the context size costs is shown for it
        self.setObjectName("SettingsDialog")
        self.setMinimumSize(560, 640)
        self._app = dataclasses.replace(app_settings, generation=dataclasses.replace(app_settings.generation))
        self._has_conversation = has_conversation
        self._filling = False

        self.tabs = QTabWidget()
        self.tabs.addTab(self._build_chat_tab(), "")
        self.tabs.addTab(self._build_app_tab(), "")
        self.server_tab = ServerSettingsTab(self._app, tasks)  # Settings → Server (ui/server_settings.py)
        self.tabs.addTab(self.server_tab, "")
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.ok_button = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.ok_button.setObjectName("PrimaryButton")
        cancel = self.cancel_button = self.buttons.button(QDialogButtonBox.StandardButton.Cancel)
        cancel.setObjectName("SecondaryButton")
        for button in (self.ok_button, cancel):
            button.setIcon(QIcon())  # the icon theme's tick and cross look out of place here
            button.setMinimumWidth(88)
        self.heading = QLabel()
        self.heading.setObjectName("DialogTitle")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(22, 18, 22, 16)
        layout.setSpacing(12)
        layout.addWidget(self.heading)
        layout.addWidget(self.tabs, 1)
        layout.addWidget(self.buttons)

        theme.style(self)
        self._fill_app(self._app)
        self.system_prompt.setPlainText(system_prompt)
        self._fill_chat(chat_settings)
        self.retranslate()
        plain_labels(self)  # the chat's title and the model's path are shown as text, never as HTML

    # -- building --------------------------------------------------------------------------------------------------
    def _build_chat_tab(self) -> QWidget:
        page = QWidget()
        self.chat_scope = QLabel()
        self.chat_scope.setObjectName("HelpText")
        self.chat_scope.setWordWrap(True)
        self.system_prompt = QPlainTextEdit()
        self.system_prompt.setObjectName("SystemPrompt")
        self.system_prompt.setFixedHeight(96)
        self.system_prompt.setTabChangesFocus(True)
        self.system_prompt_label = QLabel()

        self.preset_group = QButtonGroup(self)
        self.preset_group.setExclusive(False)
        self.preset_buttons: dict[str, QPushButton] = {}
        presets = QHBoxLayout()
        presets.setSpacing(8)
        for name in PRESET_ORDER:
            button = QPushButton()
            button.setObjectName("PresetButton")
            button.setCheckable(True)
            button.setMinimumWidth(104)
            button.setCursor(Qt.CursorShape.PointingHandCursor)
            button.clicked.connect(lambda _=False, n=name: self._choose_preset(n))
            self.preset_group.addButton(button)
            self.preset_buttons[name] = button
            presets.addWidget(button)
        presets.addStretch(1)
        self.preset_label = QLabel()

        self.temperature = _double(0.0, 5.0, 0.05)
        self.top_p = _double(0.01, 1.0, 0.05)
        self.top_k = _int(0, 1000)
        self.max_new_tokens = _int(1, 131072, 64)
        self.repetition_penalty = _double(0.5, 2.0, 0.05)
        self.fields: dict[str, QSpinBox | QDoubleSpinBox] = {
            "temperature": self.temperature,
            "top_p": self.top_p,
            "top_k": self.top_k,
            "max_new_tokens": self.max_new_tokens,
            "repetition_penalty": self.repetition_penalty,
        }
        for box in self.fields.values():
            box.valueChanged.connect(self._on_value_edited)

        self.sampling_form = QFormLayout()
        self.sampling_form.setLabelAlignment(Qt.AlignmentFlag.AlignRight)
        self.sampling_form.setHorizontalSpacing(14)
        self.field_labels = {name: QLabel() for name in self.fields}
        for name, box in self.fields.items():
            self.sampling_form.addRow(self.field_labels[name], box)

        self.make_default_button = QPushButton()
        self.make_default_button.setObjectName("SecondaryButton")
        self.make_default_button.clicked.connect(self._make_default)
        self.reset_button = QPushButton()
        self.reset_button.setObjectName("SecondaryButton")
        self.reset_button.clicked.connect(self._reset_to_defaults)
        self.defaults_note = QLabel()
        self.defaults_note.setObjectName("HelpText")
        actions = QHBoxLayout()
        actions.addWidget(self.reset_button)
        actions.addWidget(self.make_default_button)
        actions.addStretch(1)

        layout = QVBoxLayout(page)
        layout.setContentsMargins(18, 16, 18, 16)
        layout.setSpacing(8)
        layout.addWidget(self.chat_scope)
        layout.addWidget(self.system_prompt_label)
        layout.addWidget(self.system_prompt)
        layout.addSpacing(6)
        layout.addWidget(self.preset_label)
        layout.addLayout(presets)
        layout.addSpacing(4)
        layout.addLayout(self.sampling_form)
        layout.addStretch(1)
        layout.addLayout(actions)
        layout.addWidget(self.defaults_note)
        return page

    def _build_app_tab(self) -> QWidget:
        page = QWidget()
        self.theme_combo = QComboBox()
        self.language_combo = QComboBox()
        self.language_note = QLabel()
        self.language_note.setObjectName("HelpText")
        self.language_note.setWordWrap(True)
        self.device_combo = QComboBox()
        self.context_budget = _int(CONTEXT_BUDGET_RANGE[0], 131072, 256)
        self.context_memory = QLabel()  # what the context size costs in memory, for the loaded model
        self.context_memory.setObjectName("HelpText")
        self.context_memory.setWordWrap(True)
        self.context_memory.setTextFormat(Qt.TextFormat.PlainText)  # it names the model
        self.context_budget.valueChanged.connect(self._show_context_memory)
        self.threads = _int(0, 256)
        self.prepare_replies = QCheckBox()
        self.engine_note = QLabel()
        self.engine_note.setObjectName("HelpText")
        self.engine_note.setWordWrap(True)
        for value in ("system", "light", "dark"):
            self.theme_combo.addItem("", value)
        for value in ("system", "en", "zh_CN"):
            self.language_combo.addItem("", value)
        for value in ("auto", "cpu", "cuda", "dml", "coreml"):
            self.device_combo.addItem("", value)

        self.look_group = QGroupBox()
        look = QFormLayout(self.look_group)
        look.setHorizontalSpacing(14)
        self.theme_label, self.language_label = QLabel(), QLabel()
        look.addRow(self.theme_label, self.theme_combo)
        look.addRow(self.language_label, self.language_combo)
        look.addRow("", self.language_note)

        self.engine_group = QGroupBox()
        engine = QFormLayout(self.engine_group)
        engine.setHorizontalSpacing(14)
        self.device_label, self.context_label, self.threads_label = QLabel(), QLabel(), QLabel()
        engine.addRow(self.device_label, self.device_combo)
        engine.addRow(self.context_label, self.context_budget)
        engine.addRow("", self.context_memory)
        engine.addRow(self.threads_label, self.threads)
        engine.addRow("", self.engine_note)
        engine.addRow("", self.prepare_replies)  # below the note: it does not reload the model

        layout = QVBoxLayout(page)
        layout.setContentsMargins(18, 8, 18, 16)
        layout.addWidget(self.look_group)
        layout.addWidget(self.engine_group)
        layout.addStretch(1)
        return page

    # -- filling and reading --------------------------------------------------------------------------------------
    def _fill_app(self, s: Settings) -> None:
        self.theme_combo.setCurrentIndex(max(0, self.theme_combo.findData(s.theme)))
        self.language_combo.setCurrentIndex(max(0, self.language_combo.findData(s.language)))
        self.device_combo.setCurrentIndex(max(0, self.device_combo.findData(s.device)))
        self.context_budget.setValue(s.context_budget)
        self.threads.setValue(s.threads or 0)
        self.prepare_replies.setChecked(s.prepare_replies)

    def _fill_chat(self, chat: dict[str, Any]) -> None:
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

    def _choose_preset(self, name: str) -> None:
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

    def _make_default(self) -> None:
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

    def _reset_to_defaults(self) -> None:
        self._set_values(self._defaults_dict())
        self.system_prompt.setPlainText(self._app.generation.system_prompt)
        self._mark_preset(self._matching_preset())

    def result_values(self) -> SettingsResult:
        app = self._app
        app.theme = self.theme_combo.currentData()
        app.language = self.language_combo.currentData()
        app.device = self.device_combo.currentData()
        app.context_budget = self.context_budget.value()
        app.threads = self.threads.value() or None
        self.server_tab.apply(app)
        app.prepare_replies = self.prepare_replies.isChecked()
        return SettingsResult(
            app, self.system_prompt.toPlainText(), self.chat_settings(), self.server_tab.key_changes()
        )

    def accept(self) -> None:
        if self.server_tab.problem():
            self.tabs.setCurrentWidget(self.server_tab)  # its message says what to fix
            return
        self.applied.emit(self.result_values())
        super().accept()

    # -- text ------------------------------------------------------------------------------------------------------
    def retranslate(self) -> None:
        self.setWindowTitle(self.tr("Settings"))
        self.heading.setText(self.windowTitle())
        # Our own words: a bundle does not ship Qt's translations of the standard buttons.
        self.ok_button.setText(self.tr("OK"))
        self.cancel_button.setText(self.tr("Cancel"))
        self.tabs.setTabText(self.CHAT_TAB, self.tr("This chat"))
        self.tabs.setTabText(self.APP_TAB, self.tr("App"))
        self.tabs.setTabText(
            self.tabs.indexOf(self.server_tab), QCoreApplication.translate("ServerSettingsTab", "Server")
        )
        self.chat_scope.setText(
            self.tr("These settings apply to this chat only.")
            if self._has_conversation
            else self.tr("These settings apply to the new chat you are about to start.")
        )
        self.system_prompt_label.setText(self.tr("System prompt"))
        self.system_prompt.setPlaceholderText(
            self.tr("For example: You are a concise assistant. Answer in plain English.")
        )
        self.system_prompt.setAccessibleName(self.tr("System prompt"))
        self.preset_label.setText(self.tr("Style"))
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
        labels = {
            "temperature": self.tr("Temperature"),
            "top_p": self.tr("Top-p"),
            "top_k": self.tr("Top-k"),
            "max_new_tokens": self.tr("Max answer length (tokens)"),
            "repetition_penalty": self.tr("Repetition penalty"),
        }
        tips = {
            "temperature": self.tr("Higher is more random; 0 always picks the likeliest word."),
            "top_p": self.tr("Only consider the likeliest words that together make up this share."),
            "top_k": self.tr("Only consider this many likeliest words (0: no limit)."),
            "max_new_tokens": self.tr("The longest answer the model may write."),
            "repetition_penalty": self.tr("Above 1 discourages repeating the same words."),
        }
        for name, label in self.field_labels.items():
            label.setText(labels[name])
            self.fields[name].setToolTip(tips[name])
            self.fields[name].setAccessibleName(labels[name])
        self.threads.setSpecialValueText(self.tr("Automatic"))
        self.reset_button.setText(self.tr("Reset to defaults"))
        self.make_default_button.setText(self.tr("Use for new chats"))
        self.make_default_button.setToolTip(
            self.tr("Make these values and the system prompt the defaults for new chats")
        )

        self.look_group.setTitle(self.tr("Appearance"))
        self.engine_group.setTitle(self.tr("Engine"))
        self.theme_label.setText(self.tr("Theme"))
        self.language_label.setText(self.tr("Language"))
        self.device_label.setText(self.tr("Run models on"))
        self.context_label.setText(self.tr("Context size (tokens)"))
        self.threads_label.setText(self.tr("CPU threads"))
        for i, text in enumerate((self.tr("Follow the system"), self.tr("Light"), self.tr("Dark"))):
            self.theme_combo.setItemText(i, text)
        # Language names are written in their own language, so a user who cannot read the current one finds theirs.
        for i, text in enumerate((self.tr("Follow the system"), "English", "简体中文")):
            self.language_combo.setItemText(i, text)
        devices = (
            self.tr("Automatic (best available)"),
            self.tr("CPU"),
            self.tr("NVIDIA GPU (CUDA)"),
            self.tr("GPU via DirectML (Windows)"),
            self.tr("Apple Core ML (macOS)"),
        )
        for i, text in enumerate(devices):
            self.device_combo.setItemText(i, text)
        self.theme_combo.setAccessibleName(self.tr("Theme"))
        self.language_combo.setAccessibleName(self.tr("Language"))
        self.device_combo.setAccessibleName(self.tr("Run models on"))
        self.context_budget.setAccessibleName(self.tr("Context size"))
        self.threads.setAccessibleName(self.tr("CPU threads"))
        self.prepare_replies.setText(self.tr("Prepare replies while I type"))
        self.prepare_replies.setToolTip(
            self.tr(
                "The model reads the chat and your message while you type, so the answer starts as soon as you "
                "press Enter. Off while the computer runs on battery."
            )
        )
        self._show_context_memory()
        self.language_note.setText(self.tr("The language changes at once; a few parts follow after a restart."))
        self.engine_note.setText(
            self.tr(
                "A larger context remembers more of a long chat but needs more memory. Changes here reload the model."
            )
        )

    def _show_context_memory(self) -> None:
        """The KV cache's price: og reserves memory for the whole context size when the model loads."""
        model, tokens = self._loaded_model, self.context_budget.value()
        if model is None or model.kv_bytes_per_token <= 0:
            self.context_memory.setText(
                self.tr("The memory a context takes depends on the model: load one to see it here.")
            )
            return
        used = min(tokens, model.context_length) if model.context_length else tokens
        text = self.tr(
            "{model}: {tokens} tokens of context take {size} of memory ({per_token} per token), reserved as "
            "soon as the model is loaded, on top of the model itself."
        ).format(
            model=model.model_name,
            tokens=f"{used:,}",
            size=_size(used * model.kv_bytes_per_token),
            per_token=_size(model.kv_bytes_per_token),
        )
        if model.context_length and tokens > model.context_length:
            text += " " + self.tr("This model reads at most {tokens} tokens.").format(
                tokens=f"{model.context_length:,}"
            )
        self.context_memory.setText(text)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)


def _size(count: int) -> str:
    if count >= 1 << 30:
        return f"{count / (1 << 30):.1f} GB"
    if count >= 1 << 20:
        return f"{count / (1 << 20):.0f} MB"
    return f"{count / (1 << 10):.0f} KB"


def defaults_differ(a: GenerationDefaults, b: GenerationDefaults) -> bool:
    return dataclasses.asdict(a) != dataclasses.asdict(b)
