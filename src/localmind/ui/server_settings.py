"""Settings → Server: the local API server (share the loaded model) and remote models (use a model elsewhere).

Both are off by default. Keys go to the system keyring (core/secrets.py), never to the settings file. The keyring
may block (a locked keychain asks for its password; a keyring service still starting), so it is never asked on
the GUI thread: the tab reads the keys through the task runner and fills them in when they come; the app stores
changed keys (``key_changes``) the same way.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TypeVar

import shiboken6
from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from localmind.core import secrets
from localmind.settings import Settings
from localmind.workers.tasks import TaskContext, TaskRunner

log = logging.getLogger(__name__)
_T = TypeVar("_T")

API_KEY_NAME = "api-server-key"
REMOTE_KEY_NAME = "remote-api-key"


class ServerSettingsTab(QWidget):
    """Signals: connection_tested(bool ok, str message) — when the test (in the task runner) has an answer."""

    connection_tested = Signal(bool, str)

    def __init__(self, settings: Settings, tasks: TaskRunner | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("ServerSettingsTab")
        self._build_server_group()
        self._build_remote_group()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(18, 8, 18, 16)
        layout.addWidget(self.server_group)
        layout.addWidget(self.remote_group)
        layout.addStretch(1)

        self.server_enabled.setChecked(settings.api_server)
        self.port.setValue(settings.api_server_port)
        self.lan.setChecked(settings.api_server_lan)
        self.remote_enabled.setChecked(settings.remote_models)
        self.remote_url.setText(settings.remote_url or "")
        self._keys: dict[str, str] | None = None  # as the keyring has them; None until it has answered
        self._tasks = tasks if tasks is not None else TaskRunner(self)
        self._tasks.start(
            _read_keys,
            key=f"server-keys-read:{id(self)}",
            on_success=self._if_alive(self._keys_read),
            on_failure=self._if_alive(self._keys_failed),
        )
        for widget in (self.server_enabled, self.lan, self.remote_enabled):
            widget.toggled.connect(self._update)
        self.api_key.textChanged.connect(self._update)
        self.remote_url.textChanged.connect(self._update)
        self.port.valueChanged.connect(self.retranslate)  # the note shows the address
        self.test_button.clicked.connect(self.test_connection)
        self.connection_tested.connect(self._show_test)
        self.retranslate()
        self._update()

    def _build_server_group(self) -> None:
        """The local API server: share the loaded model."""
        self.server_group = QGroupBox()
        self.server_enabled = QCheckBox()
        self.server_enabled.setObjectName("ApiServerEnabled")
        self.port = QSpinBox()
        self.port.setObjectName("ApiServerPort")
        self.port.setRange(1024, 65535)
        self.port.setFixedWidth(130)
        self.api_key = QLineEdit()
        self.api_key.setObjectName("ApiServerKey")
        self.api_key.setEchoMode(QLineEdit.EchoMode.Password)
        self.lan = QCheckBox()
        self.lan.setObjectName("ApiServerLan")
        self.server_note = QLabel()
        self.server_note.setObjectName("HelpText")
        self.server_note.setWordWrap(True)
        self.server_error = QLabel()
        self.server_error.setObjectName("NoticeText")  # themed in the warning colour
        self.server_error.setWordWrap(True)
        form = QFormLayout(self.server_group)
        form.setHorizontalSpacing(14)
        self.port_label, self.key_label = QLabel(), QLabel()
        form.addRow(self.server_enabled)
        form.addRow(self.port_label, self.port)
        form.addRow(self.key_label, self.api_key)
        form.addRow(self.lan)
        form.addRow(self.server_note)
        form.addRow(self.server_error)

    def _build_remote_group(self) -> None:
        """Remote models: use a model on another computer."""
        self.remote_group = QGroupBox()
        self.remote_enabled = QCheckBox()
        self.remote_enabled.setObjectName("RemoteEnabled")
        self.remote_url = QLineEdit()
        self.remote_url.setObjectName("RemoteUrl")
        self.remote_url.setPlaceholderText("http://gpu-box:8000/v1")
        self.remote_key = QLineEdit()
        self.remote_key.setObjectName("RemoteKey")
        self.remote_key.setEchoMode(QLineEdit.EchoMode.Password)
        self.test_button = QPushButton()
        self.test_button.setObjectName("SecondaryButton")
        self.test_button.setMinimumWidth(150)
        self.test_result = QLabel()
        self.test_result.setObjectName("HelpText")
        self.test_result.setWordWrap(True)
        self.test_result.setTextFormat(Qt.TextFormat.PlainText)  # server answers are not ours
        self.remote_note = QLabel()
        self.remote_note.setObjectName("HelpText")
        self.remote_note.setWordWrap(True)
        remote = QFormLayout(self.remote_group)
        remote.setHorizontalSpacing(14)
        self.url_label, self.remote_key_label = QLabel(), QLabel()
        remote.addRow(self.remote_enabled)
        remote.addRow(self.url_label, self.remote_url)
        remote.addRow(self.remote_key_label, self.remote_key)
        row = QHBoxLayout()
        row.addWidget(self.test_button)
        row.addWidget(self.test_result, 1)
        remote.addRow(row)
        remote.addRow(self.remote_note)

    # -- keys ----------------------------------------------------------------------------------------------------
    @property
    def keys_loaded(self) -> bool:
        return self._keys is not None

    def _if_alive(self, callback: Callable[[_T], None]) -> Callable[[_T], None]:
        # The keyring may answer after the dialog was closed and deleted.
        return lambda value: callback(value) if shiboken6.isValid(self) else None

    def _keys_read(self, keys: dict[str, str]) -> None:
        self._keys = keys
        # Typed while the keyring was being read: what the user typed stands.
        for name, field in ((API_KEY_NAME, self.api_key), (REMOTE_KEY_NAME, self.remote_key)):
            if not field.text():
                field.setText(keys.get(name, ""))
        self.retranslate()

    def _keys_failed(self, exc: BaseException) -> None:
        log.warning("The keyring could not be read: %s", type(exc).__name__)
        self._keys_read({})

    def key_changes(self) -> dict[str, str | None]:
        """The keys to store (a value) or remove (None): those the user changed. None changed while the keyring had
        not answered yet: then only fields the user typed into count."""
        known = self._keys or {}
        changes: dict[str, str | None] = {}
        for name, field in ((API_KEY_NAME, self.api_key), (REMOTE_KEY_NAME, self.remote_key)):
            value = field.text().strip()
            if value != known.get(name, "") and (self._keys is not None or value):
                changes[name] = value or None
        return changes

    # -- state ---------------------------------------------------------------------------------------------------
    def problem(self) -> str | None:
        """Why the values cannot be saved as they are, or None."""
        no_key = not self.api_key.text().strip() and self._keys is not None  # unknown until the keyring answers
        if self.server_enabled.isChecked() and self.lan.isChecked() and no_key:
            return self.tr("Other devices may use the model only with an API key: set one, or untick the box.")
        url = self.remote_url.text().strip()
        if self.remote_enabled.isChecked() and not url.startswith(("http://", "https://")):
            return self.tr("Enter the server's address, starting with http:// or https://.")
        return None

    def _update(self) -> None:
        on = self.server_enabled.isChecked()
        for widget in (self.port, self.api_key, self.lan):
            widget.setEnabled(on)
        remote = self.remote_enabled.isChecked()
        for widget in (self.remote_url, self.remote_key):
            widget.setEnabled(remote)
        self.test_button.setEnabled(remote and bool(self.remote_url.text().strip()))
        self.server_error.setText(self.problem() or "")

    def apply(self, settings: Settings) -> None:
        """Copy the values into ``settings`` (the keys: see ``key_changes``)."""
        settings.api_server = self.server_enabled.isChecked()
        settings.api_server_port = self.port.value()
        settings.api_server_lan = self.lan.isChecked()
        settings.remote_models = self.remote_enabled.isChecked()
        settings.remote_url = self.remote_url.text().strip() or None

    # -- test connection -----------------------------------------------------------------------------------------
    def test_connection(self) -> None:
        url, key = self.remote_url.text().strip(), self.remote_key.text().strip() or None
        self.test_button.setEnabled(False)
        self.test_result.setText(self.tr("Connecting…"))
        ok_text = self.tr("Connected to {host}: {count} models ({names}).")

        def run(_ctx: TaskContext) -> tuple[bool, str]:
            from localmind.engine.remote import list_remote_models
            from localmind.errors import UserFacingError
            from localmind.workers.messages import user_text

            try:
                host, names = list_remote_models(url, key)
            except UserFacingError as exc:
                return False, user_text(exc)
            shown = ", ".join(names[:5]) + ("…" if len(names) > 5 else "")
            return True, ok_text.format(host=host, count=len(names), names=shown)

        # The dialog may have closed while the server answered.
        def tested(outcome: tuple[bool, str]) -> None:
            self.connection_tested.emit(*outcome)

        self._tasks.start(run, key=f"remote-test:{id(self)}", on_success=self._if_alive(tested))

    def _show_test(self, ok: bool, message: str) -> None:
        self.test_result.setProperty("ok", ok)
        self.test_result.setText(message)
        self._update()

    # -- text ----------------------------------------------------------------------------------------------------
    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def retranslate(self) -> None:
        self.server_group.setTitle(self.tr("Local API server"))
        self.server_enabled.setText(self.tr("Share the loaded model with other programs"))
        self.port_label.setText(self.tr("Port"))
        self.key_label.setText(self.tr("API key"))
        reading = self.tr("Reading the keyring…")
        self.api_key.setPlaceholderText(self.tr("Optional on this computer") if self.keys_loaded else reading)
        self.lan.setText(self.tr("Allow other devices on my network (needs an API key)"))
        self.server_note.setText(
            self.tr(
                "An OpenAI-compatible API at http://127.0.0.1:{port}/v1. The window and the API take turns on the "
                "model; the window shows when an API request is running."
            ).format(port=self.port.value())
        )
        self.remote_group.setTitle(self.tr("Remote models"))
        self.remote_enabled.setText(self.tr("Use models on another computer"))
        self.url_label.setText(self.tr("Server address"))
        self.remote_key_label.setText(self.tr("API key"))
        self.remote_key.setPlaceholderText(self.tr("If the server needs one") if self.keys_loaded else reading)
        self.test_button.setText(self.tr("Test connection"))
        self.remote_note.setText(
            self.tr(
                "Any OpenAI-compatible server (vLLM, Ollama, llama.cpp, LocalMind). Its models appear in the model "
                "list, marked: your messages are sent to that computer."
            )
        )
        self._update()


def _read_keys(_ctx: TaskContext) -> dict[str, str]:
    keys = {name: secrets.get_token(name) for name in (API_KEY_NAME, REMOTE_KEY_NAME)}
    return {name: value for name, value in keys.items() if value}


def store_keys(changes: dict[str, str | None]) -> None:
    """Store or remove keys as ``key_changes`` says (in a task: the keyring may block)."""
    for name, value in changes.items():
        if value:
            secrets.set_token(value, name)
        else:
            secrets.delete_token(name)


class ApiStatusLabel(QLabel):
    """In the status bar while the local API server runs: its address, and when an API request has the model."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("ApiStatus")
        self.setTextFormat(Qt.TextFormat.PlainText)
        self._url: str | None = None
        self._busy = False
        self._refresh()

    def set_url(self, url: str | None) -> None:
        self._url = url
        self._busy = self._busy and url is not None
        self._refresh()

    def set_busy(self, busy: bool) -> None:
        self._busy = busy
        self._refresh()

    def _refresh(self) -> None:
        self.setVisible(self._url is not None)
        if self._busy:
            self.setText(self.tr("API: answering a request…"))
        else:
            self.setText(self.tr("API on"))
        self.setToolTip(self.tr("The local API server is running at {url}").format(url=self._url or ""))

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self._refresh()
        super().changeEvent(event)
