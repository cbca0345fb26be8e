"""The settings dialog: opened once at a time, and what applying it changes (theme, language, server, model)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject

from localmind.controllers.api_server import ApiServerLifecycle
from localmind.controllers.loading import ModelLoading
from localmind.settings import Settings
from localmind.ui.i18n import Translations
from localmind.ui.main_window import MainWindow
from localmind.ui.settings_dialog import SettingsDialog, SettingsResult
from localmind.ui.theme import ThemeManager
from localmind.viewmodels.chat_session import ChatSession
from localmind.workers.tasks import TaskRunner

_APPLIED = ("theme", "language", "device", "context_budget", "threads", "generation")
_SERVER = ("api_server", "api_server_port", "api_server_lan", "remote_models", "remote_url")
_RELOAD = ("device", "context_budget", "threads")  # the engine reads these when it loads a model


class SettingsFlow(QObject):
    def __init__(
        self,
        settings: Settings,
        session: ChatSession,
        window: MainWindow,
        tasks: TaskRunner,
        *,
        loading: ModelLoading,
        api: ApiServerLifecycle,
        theme: ThemeManager,
        translations: Translations,
        save_settings: Callable[[], None],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.settings, self.session, self.window, self.tasks = settings, session, window, tasks
        self.loading, self.api, self.theme, self.translations = loading, api, theme, translations
        self._save_settings = save_settings
        self.dialog: SettingsDialog | None = None

    def wire(self) -> None:
        self.window.settings_requested.connect(self.open)

    def open(self) -> SettingsDialog:
        if self.dialog is not None and self.dialog.isVisible():
            self.dialog.raise_()
            return self.dialog
        system_prompt, chat_settings = self.session.chat_settings()
        dialog = SettingsDialog(
            self.settings,
            system_prompt,
            chat_settings,
            has_conversation=self.session.conversation is not None,
            tasks=self.tasks,
            loaded_model=self.session.model,
            parent=self.window,
        )
        dialog.applied.connect(self.apply)
        dialog.finished.connect(self._closed)
        self.dialog = dialog
        dialog.open()
        return dialog

    def _closed(self) -> None:
        if self.dialog is not None:
            self.dialog.deleteLater()
            self.dialog = None

    def apply(self, result: SettingsResult) -> None:
        current, new = self.settings, result.app
        reload_model = any(getattr(current, name) != getattr(new, name) for name in _RELOAD)
        theme_changed, language_changed = current.theme != new.theme, current.language != new.language
        for name in (*_APPLIED, *_SERVER):
            setattr(current, name, getattr(new, name))
        self._save_settings()
        self.api.apply(result.keys)  # restarts a running server: a new key may have come
        self.session.set_chat_settings(result.system_prompt, result.chat_settings)
        if theme_changed:
            self.theme.apply(current.theme)
            self.window.apply_theme()
        if language_changed:
            # Installing the translator sends LanguageChange: every LocalMind widget re-reads its strings.
            self.translations.apply(current.language)
        if reload_model:
            self.loading.reload_if_idle()


__all__ = ["SettingsFlow"]
