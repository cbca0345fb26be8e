"""The window's local API server: started, restarted and stopped as the settings say; the remote server's models.

The keyring and the server's start and stop (its web framework's import, the wait for it to listen, a stop that lets
a streaming request end) run in the task runner: each may take seconds (a locked keychain asks for its password).
"""

from __future__ import annotations

import logging
import threading

from PySide6.QtCore import QCoreApplication, QObject

from localmind.core import secrets
from localmind.engine.types import GenerationOptions
from localmind.errors import UserFacingError
from localmind.settings import Settings
from localmind.ui.main_window import MainWindow
from localmind.ui.server_settings import API_KEY_NAME, REMOTE_KEY_NAME, ApiStatusLabel, store_keys
from localmind.workers.api_server import AppApiServer
from localmind.workers.messages import user_text
from localmind.workers.tasks import TaskContext, TaskRunner

log = logging.getLogger(__name__)

Wanted = tuple[int, bool, GenerationOptions] | None  # port, LAN, the defaults of a request; None: off


class ApiServerLifecycle(QObject):
    """Applies the Server settings: stores changed keys, (re)starts or stops the server, lists remote models.

    Of several rounds in flight (the settings applied twice quickly), only the last one applies the server.
    """

    def __init__(
        self,
        server: AppApiServer,
        status: ApiStatusLabel,
        settings: Settings,
        window: MainWindow,
        tasks: TaskRunner,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.server, self.status, self.settings, self.window, self.tasks = server, status, settings, window, tasks
        self._round = 0
        self._keys_lock = threading.Lock()  # one round's keys at a time: a later round's are stored after
        self._server_lock = threading.Lock()  # one start or stop of the API server at a time
        server.busy_changed.connect(status.set_busy)

    def start(self) -> None:
        """At start-up: apply the saved settings, unless nothing needs a key (then the keyring is not imported)."""
        s = self.settings
        if s.api_server or (s.remote_models and s.remote_url):
            self.apply({})

    def apply(self, key_changes: dict[str, str | None]) -> None:
        """Store changed keys, then (re)start or stop the API server and list the remote models, with the keys."""
        if not self.settings.api_server:
            self.status.set_url(None)
            self.tasks.start(lambda _ctx: self._run(None, None), key=f"server-stop:{self._round}")
        self._round += 1
        round_ = self._round
        wanted = self._wanted()

        def keys(_ctx: TaskContext) -> tuple[str | None, str | None, str | None]:
            with self._keys_lock:
                store_keys(key_changes)
                api_key, remote_key = secrets.get_token(API_KEY_NAME), secrets.get_token(REMOTE_KEY_NAME)
            if round_ != self._round:
                return api_key, remote_key, None  # a later round applies the server with its own settings
            return api_key, remote_key, self._run(wanted, api_key)

        def done(found: tuple[str | None, str | None, str | None]) -> None:
            if round_ == self._round:
                self._show(found[2])
                self.refresh_remote_models(found[1])

        self.tasks.start(
            keys,
            key=f"server-keys:{round_}",
            on_success=done,
            on_failure=lambda exc: self._failed(
                QCoreApplication.translate("LocalMind", "The keyring could not be used."), exc
            ),
        )

    def refresh_remote_models(self, key: str | None) -> None:
        """List the remote server's models (Settings → Server → Remote models) for the picker, in the task runner."""
        s = self.settings
        self.window.remote_models = []
        if not (s.remote_models and s.remote_url):
            return
        url = s.remote_url
        runs_on = QCoreApplication.translate("LocalMind", "{name} — runs on {host}")
        leaves = QCoreApplication.translate("LocalMind", "Runs on {host}: your messages leave this computer.")

        def run(_ctx: TaskContext) -> list[tuple[str, str, str]]:
            from localmind.engine.remote import list_remote_models, remote_model_dir

            try:
                host, names = list_remote_models(url, key)
            except UserFacingError as exc:
                log.warning("Remote models: %s", exc)
                return []
            return [
                (runs_on.format(name=n, host=host), remote_model_dir(url, n), leaves.format(host=host)) for n in names
            ]

        def found(models: list[tuple[str, str, str]]) -> None:
            if self.settings.remote_models and models:
                self.window.remote_models = models

        self.tasks.start(run, key=f"remote-models:{self._round}", on_success=found)

    def _wanted(self) -> Wanted:
        """What the settings ask of the API server (read on the GUI thread)."""
        s = self.settings
        if not s.api_server:
            return None
        g = s.generation
        defaults = GenerationOptions(
            temperature=g.temperature,
            top_p=g.top_p,
            top_k=g.top_k,
            repetition_penalty=g.repetition_penalty,
            max_new_tokens=g.max_new_tokens,
        )
        return s.api_server_port, s.api_server_lan, defaults

    def _run(self, wanted: Wanted, api_key: str | None) -> str | None:
        """Start, restart or stop the server (in a task's thread). Returns why it could not start, or None."""
        with self._server_lock:
            if wanted is None:
                self.server.stop()
                return None
            port, lan, defaults = wanted
            self.server.defaults = defaults
            try:
                self.server.start(port, api_key, lan)
            except UserFacingError as exc:
                return user_text(exc)
            return None

    def _show(self, error: str | None) -> None:
        self.status.set_url(self.server.url if self.settings.api_server else None)
        if error is not None:
            self.window.show_error(
                QCoreApplication.translate("LocalMind", "The local API server could not start."), error
            )

    def _failed(self, title: str, exc: BaseException) -> None:
        if not isinstance(exc, UserFacingError):
            raise exc  # a bug: the crash handler shows it
        self.window.show_error(title, user_text(exc))

    def shutdown(self) -> None:
        """Stop the server, after a start or stop still running in a task (the task runner is drained first)."""
        with self._server_lock:
            self.server.stop()


__all__ = ["ApiServerLifecycle"]
