"""Settings → App: the look, the language, and how models run (device, context size, threads).

The context size is an app setting, but a model reads no more than its own context length: with a model loaded the
box stops there and says so, and the memory it costs is shown for what the model will really use. The saved value
is changed only when the user changes the box (a larger value stays for larger models).
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QEvent
from PySide6.QtWidgets import QCheckBox, QComboBox, QFormLayout, QGroupBox, QLabel, QVBoxLayout, QWidget

from localmind.engine.types import LoadInfo
from localmind.settings import CONTEXT_BUDGET_RANGE, Settings
from localmind.ui.settings_chat import help_label, int_box

MAX_CONTEXT = 131072


class AppSettingsTab(QWidget):
    def __init__(self, loaded_model: LoadInfo | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._loaded_model = loaded_model  # what the context size costs is shown for it
        self._saved_budget = CONTEXT_BUDGET_RANGE[0]
        self.theme_combo, self.language_combo, self.device_combo = QComboBox(), QComboBox(), QComboBox()
        self.language_note = help_label()
        self.context_budget = int_box(CONTEXT_BUDGET_RANGE[0], self._context_cap(), 256)
        self.context_help = help_label()
        self.context_memory = help_label()  # what the context size costs in memory, for the loaded model
        self.context_budget.valueChanged.connect(self._show_context_memory)
        self.threads = int_box(0, 256)
        self.prepare_replies = QCheckBox()
        self.engine_note = help_label()
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
        engine.addRow("", self.context_help)  # each help line sits under its own control
        engine.addRow("", self.context_memory)
        engine.addRow(self.threads_label, self.threads)
        engine.addRow("", self.engine_note)
        engine.addRow("", self.prepare_replies)  # below the note: it does not reload the model
        for label, field in (
            (self.theme_label, self.theme_combo),
            (self.language_label, self.language_combo),
            (self.device_label, self.device_combo),
            (self.context_label, self.context_budget),
            (self.threads_label, self.threads),
        ):
            label.setBuddy(field)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(18, 8, 18, 16)
        layout.addWidget(self.look_group)
        layout.addWidget(self.engine_group)
        layout.addStretch(1)

    def _context_cap(self) -> int:
        model = self._loaded_model
        if model is not None and model.context_length:
            return max(CONTEXT_BUDGET_RANGE[0], min(MAX_CONTEXT, model.context_length))
        return MAX_CONTEXT

    def fill(self, s: Settings) -> None:
        self.theme_combo.setCurrentIndex(max(0, self.theme_combo.findData(s.theme)))
        self.language_combo.setCurrentIndex(max(0, self.language_combo.findData(s.language)))
        self.device_combo.setCurrentIndex(max(0, self.device_combo.findData(s.device)))
        self._saved_budget = s.context_budget
        self.context_budget.setValue(min(s.context_budget, self._context_cap()))
        self.threads.setValue(s.threads or 0)
        self.prepare_replies.setChecked(s.prepare_replies)

    def apply(self, app: Settings) -> None:
        app.theme = self.theme_combo.currentData()
        app.language = self.language_combo.currentData()
        app.device = self.device_combo.currentData()
        shown = self.context_budget.value()
        # Shown capped at the model's length but not changed by the user: the saved (larger) value stands.
        capped = shown == min(self._saved_budget, self._context_cap())
        app.context_budget = self._saved_budget if capped else shown
        app.threads = self.threads.value() or None
        app.prepare_replies = self.prepare_replies.isChecked()

    # -- text ------------------------------------------------------------------------------------------------------
    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def retranslate(self) -> None:
        self.look_group.setTitle(self.tr("Appearance"))
        self.engine_group.setTitle(self.tr("Engine"))
        for label, text in (
            (self.theme_label, self.tr("Theme")),
            (self.language_label, self.tr("Language")),
            (self.device_label, self.tr("Run models on")),
            (self.context_label, self.tr("Context size (tokens)")),
            (self.threads_label, self.tr("CPU threads")),
        ):
            label.setText(text)
            label.buddy().setAccessibleName(text)
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
        self.threads.setSpecialValueText(self.tr("Automatic"))
        self.prepare_replies.setText(self.tr("Prepare replies while I type"))
        self.prepare_replies.setToolTip(
            self.tr(
                "The model reads the chat and your message while you type, so the answer starts as soon as you "
                "press Enter. Off while the computer runs on battery."
            )
        )
        self.language_note.setText(self.tr("The language changes at once; a few parts follow after a restart."))
        self.context_help.setText(
            self.tr(
                "How much of the chat the model keeps in mind. More remembers more of a long chat but needs more memory."
            )
        )
        self.engine_note.setText(self.tr("Changing the device, context size or threads reloads the model."))
        self._show_context_memory()

    def _show_context_memory(self) -> None:
        """The KV cache's price: og reserves memory for the whole context size when the model loads."""
        model, tokens = self._loaded_model, self.context_budget.value()
        if model is None or model.kv_bytes_per_token <= 0:
            self.context_memory.setText(
                self.tr("The memory a context takes depends on the model: load one to see it here.")
            )
            return
        text = self.tr(
            "{model}: {tokens} tokens of context take {size} of memory ({per_token} per token), reserved as "
            "soon as the model is loaded, on top of the model itself."
        ).format(
            model=model.model_name,
            tokens=f"{tokens:,}",
            size=byte_size(tokens * model.kv_bytes_per_token),
            per_token=byte_size(model.kv_bytes_per_token),
        )
        if model.context_length and tokens >= model.context_length:
            text += " " + self.tr("This model reads at most {tokens} tokens.").format(
                tokens=f"{model.context_length:,}"
            )
        self.context_memory.setText(text)


def byte_size(count: int) -> str:
    """A size as people read it; under a kilobyte in bytes (a tiny model's per-token cost is not "0 KB")."""
    if count >= 1 << 30:
        return f"{count / (1 << 30):.1f} GB"
    if count >= 1 << 20:
        return f"{count / (1 << 20):.0f} MB"
    if count >= 1 << 10:
        return f"{count / (1 << 10):.0f} KB"
    return QCoreApplication.translate("AppSettingsTab", "{count} bytes").format(count=count)
