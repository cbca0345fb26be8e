"""Settings: this chat's instructions and style, the app's look, language and engine, and the API server.

The dialog edits copies; the window applies them when the user presses OK. Each tab is its own widget
(ui/settings_chat.py, ui/settings_app.py, ui/server_settings.py); the dialog puts them in a body that scrolls where
the screen is small (ui/fit.py), with OK and Cancel always in view.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from PySide6.QtCore import QCoreApplication, QEvent, Signal
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QTabWidget, QVBoxLayout, QWidget

from localmind.engine.types import LoadInfo
from localmind.settings import GenerationDefaults, Settings
from localmind.ui import fit, theme
from localmind.ui.plain import plain_labels
from localmind.ui.server_settings import ServerSettingsTab
from localmind.ui.settings_app import AppSettingsTab
from localmind.ui.settings_chat import PRESET_ORDER, ChatSettingsTab
from localmind.workers.tasks import TaskRunner

__all__ = ["PRESET_ORDER", "SettingsDialog", "SettingsResult", "defaults_differ"]


@dataclasses.dataclass
class SettingsResult:
    app: Settings
    system_prompt: str
    chat_settings: dict[str, Any]
    keys: dict[str, str | None] = dataclasses.field(default_factory=dict)  # Server tab: keys to store (None: remove)


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
        self.setObjectName("SettingsDialog")
        self._app = dataclasses.replace(app_settings, generation=dataclasses.replace(app_settings.generation))
        self.chat_tab = ChatSettingsTab(self._app, has_conversation=has_conversation)
        self.app_tab = AppSettingsTab(loaded_model)
        self.server_tab = ServerSettingsTab(self._app, tasks)
        self.tabs = QTabWidget()
        for tab in (self.chat_tab, self.app_tab, self.server_tab):
            self.tabs.addTab(tab, "")
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
        fit.scroll_body(self)  # the tabs scroll on a small screen; OK and Cancel stay in view
        self.resize(600, 640)  # what it would like; fit.py caps it to the screen when it is shown

        theme.style(self)
        self.app_tab.fill(self._app)
        self.chat_tab.fill(system_prompt, chat_settings)
        self.retranslate()
        plain_labels(self)  # the chat's title and the model's path are shown as text, never as HTML
        # The keyboard starts on the tabs (Ctrl+Tab and the arrows change tab), not on OK inside the scroll wrapper.
        self.tabs.tabBar().setFocus()

    def result_values(self) -> SettingsResult:
        app = self._app
        self.app_tab.apply(app)
        self.server_tab.apply(app)
        return SettingsResult(
            app, self.chat_tab.system_prompt.toPlainText(), self.chat_tab.chat_settings(), self.server_tab.key_changes()
        )

    def accept(self) -> None:
        if self.server_tab.problem():
            self.tabs.setCurrentWidget(self.server_tab)  # its message says what to fix
            return
        self.applied.emit(self.result_values())
        super().accept()

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
        self.tabs.setAccessibleName(self.tr("Settings"))
        self.chat_tab.retranslate()
        self.app_tab.retranslate()

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)


def defaults_differ(a: GenerationDefaults, b: GenerationDefaults) -> bool:
    return dataclasses.asdict(a) != dataclasses.asdict(b)
