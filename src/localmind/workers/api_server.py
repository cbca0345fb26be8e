"""The app's local API server: the model the window has loaded, shared with API clients turn by turn.

One engine, one KV cache, one owner: API requests are jobs of the engine service the window uses
(engine/service.py), of the API's priority — after the window's own turns and loads, before type-ahead reads,
fair between clients. Nobody locks the engine. The window's Stop stops only the window's turn (a job of its
own); an API request stops when its client hangs up.
The server runs in a thread of its own (uvicorn's event loop); the engine itself is the child process the
window already uses, so nothing here holds the GIL for long.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal

from localmind.engine.service import Priority, Ticket
from localmind.engine.types import GenerationOptions
from localmind.errors import UserFacingError
from localmind.workers.inference import InferenceService

API_KEY_NAME = "api-server-key"  # in the keyring (core/secrets.py)


class AppApiServer(QObject):
    """Signals: busy_changed(bool) — an API request is on the engine; running_changed(bool)."""

    busy_changed = Signal(bool)
    running_changed = Signal(bool)
    _busy = Signal(bool)  # from the engine service's thread; busy_changed is emitted on the window's thread
    header_timeout = 10.0  # seconds a client has to send a request's headers (serve's --header-timeout default)

    def __init__(self, service: InferenceService, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._service = service
        self._busy.connect(self._on_busy)
        self._server: Any = None
        self._thread: threading.Thread | None = None
        self._scheduler: Any = None
        self._unlisten: Callable[[], None] | None = None
        self.url: str | None = None
        self.defaults = GenerationOptions()

    @property
    def running(self) -> bool:
        """Serving: started and listening (``start`` sets the URL once it listens), not yet stopped."""
        return self.url is not None and self._thread is not None and self._thread.is_alive()

    def _on_running(self, ticket: Ticket, running: bool) -> None:
        """The engine service started or ended a job (its thread): say when an API request is on the engine."""
        if ticket.priority is Priority.API:
            self._busy.emit(running)

    def _on_busy(self, running: bool) -> None:
        self.busy_changed.emit(running)

    def _served(self) -> Any:
        from localmind.server.context import ServedModel

        info = self._service.info
        if info is None or self._service.loading:
            return None
        return ServedModel(id=Path(info.model_dir).name, name=info.model_name, context_budget=info.context_budget)

    def start(self, port: int, api_key: str | None, allow_lan: bool) -> str:
        """Start serving; returns the address. Raises UserFacingError if it cannot."""
        self.stop()
        if allow_lan and not api_key:
            raise UserFacingError.say(
                "Other devices may use the API only with a key.", "Set an API key, or turn off network access."
            )
        from localmind.server.app import create_app
        from localmind.server.connections import uvicorn_server
        from localmind.server.context import LOOPBACK_HOSTS, ServerConfig
        from localmind.server.scheduler import Scheduler

        host = "0.0.0.0" if allow_lan else "127.0.0.1"
        self._scheduler = Scheduler(self._service.engine_service)
        self._unlisten = self._service.engine_service.on_running(self._on_running)
        config = ServerConfig(
            api_key=api_key or None, allowed_hosts=() if allow_lan else LOOPBACK_HOSTS, defaults=self.defaults
        )
        app = create_app(self._scheduler, self._served, config)
        # The same guards as `localmind serve`: request headers on time, connections capped, floods not logged.
        self._server = uvicorn_server(app, host, port, header_timeout=self.header_timeout, graceful_shutdown_s=2)
        self._thread = threading.Thread(target=self._server.run, name="localmind-api-server", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started and self._thread.is_alive() and time.monotonic() < deadline:
            time.sleep(0.02)
        if not self._server.started:
            self.stop()
            raise UserFacingError.say(
                "The API server could not listen on port {port}.",
                "Another program may be using it: pick another port in Settings.",
                port=port,
            )
        self.url = f"http://{'127.0.0.1' if not allow_lan else host}:{port}/v1"
        self.running_changed.emit(True)
        return self.url

    def stop(self) -> None:
        was_running = self.running
        if self._server is not None:
            self._server.should_exit = True
        if self._scheduler is not None:
            self._scheduler.close()
            self._scheduler = None
        if self._unlisten is not None:
            self._unlisten()
            self._unlisten = None
        if self._thread is not None:
            self._thread.join(10)
            self._thread = None
        self._server = None
        self.url = None
        if was_running:
            self.running_changed.emit(False)
