"""The window's handle on the engine: a thin Qt adapter over the engine service (engine/service.py).

The window's turns, loads and token counts go to the service as jobs of the window's priority (before any API
request); type-ahead and warm-reopen reads as background reads (after everything else, and stopped at their
next chunk when anything else comes). The service runs them on its own thread and reports each job's events to
a callback here, which turns them into this object's signals: a signal emitted from the service's thread is
delivered queued, in the window's thread. Every turn has a request id; output of a turn the window has moved
on from is dropped here. Text reaches the window in batches (about every 30 ms), not per token.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence

from PySide6.QtCore import QCoreApplication, QObject, Signal

from localmind.engine.service import (
    CountTokens,
    Dropped,
    EngineService,
    Failed,
    JobEvent,
    Load,
    Priority,
    Read,
    Result,
    Ticket,
    Turn,
)
from localmind.engine.types import (
    ChatEngine,
    ChatMessage,
    FinishReason,
    GenerationOptions,
    LoadInfo,
    LoadOptions,
    TextDelta,
    TurnFinished,
    TurnStats,
)
from localmind.errors import UserFacingError
from localmind.workers.messages import user_text

BATCH_INTERVAL_S = 0.03
WINDOW = "window"  # the window's client id in the engine service
TYPEAHEAD = "typeahead"  # its reads' supersede key: the next keystroke's read replaces the last


def _prepare(model_dir: str, options: LoadOptions, report: Callable[[float], None]) -> None:
    """An onnx-community export opened for the first time is rewritten for this computer (seconds to a minute):
    done as the load's first step, reporting progress, so the engine's own load then finds it ready."""
    from pathlib import Path

    from localmind.engine.formats import prepare

    folder = Path(model_dir).expanduser()
    if not prepare.is_community_folder(folder):
        return
    shown = -1

    def progress(fraction: float, _what: str) -> None:
        nonlocal shown
        percent = int(max(0.0, min(1.0, fraction)) * 100)
        if percent != shown:  # the rewrite reports every few MB: one signal per percent is plenty
            shown = percent
            report(fraction)

    prepare.prepare_folder(folder, variant=options.variant, device=options.device, progress=progress)


class _TurnEvents:
    """A window turn's events (on the service's thread) as the service's private signals, text in batches."""

    def __init__(self, owner: InferenceService, request_id: int) -> None:
        self._owner = owner
        self._id = request_id
        self._pending: list[str] = []
        self._last_emit = -math.inf  # the first words are shown the moment they come; later ones batched

    def _flush(self) -> None:
        if self._pending:
            self._owner._turn_text.emit(self._id, "".join(self._pending))
            self._pending.clear()

    def __call__(self, event: JobEvent) -> None:
        owner = self._owner
        if isinstance(event, TextDelta):
            self._pending.append(event.text)
            now = time.monotonic()
            if now - self._last_emit >= BATCH_INTERVAL_S:
                self._flush()
                self._last_emit = now
        elif isinstance(event, TurnFinished):
            self._flush()
            owner._turn_finished.emit(self._id, event)
        elif isinstance(event, Dropped):
            owner._turn_finished.emit(self._id, TurnFinished(FinishReason.CANCELLED, TurnStats()))
        elif isinstance(event, Failed):
            self._flush()
            owner._turn_failed.emit(self._id, _failure_text(event.error))


def _failure_text(error: BaseException | None) -> str:
    if error is None:
        return QCoreApplication.translate("engine", "The engine ended the turn without saying why.")
    if isinstance(error, UserFacingError):
        return user_text(error)
    return QCoreApplication.translate("engine", "Generation failed: {detail}").format(detail=error)


class InferenceService(QObject):
    """The window thread's handle on the engine. Forwards only the current request's output.

    Signals:
        loaded(LoadInfo), load_failed(str), loading_started(str model_dir), load_progress(float 0..1),
        tokens_ready(int, str), finished(int, TurnFinished), failed(int, str),
        token_count_ready(int, int), busy_changed(bool), prefilled(int tokens in the cache after a read-ahead)
    """

    loaded = Signal(object)
    load_failed = Signal(str)
    loading_started = Signal(str)
    load_progress = Signal(float)
    tokens_ready = Signal(int, str)
    finished = Signal(int, object)
    failed = Signal(int, str)
    token_count_ready = Signal(int, int)
    busy_changed = Signal(bool)
    prefilled = Signal(int)

    # Emitted on the engine service's thread, delivered queued in this object's (the window's) thread.
    _turn_text = Signal(int, str)
    _turn_finished = Signal(int, object)
    _turn_failed = Signal(int, str)
    _load_done = Signal(object)
    _load_error = Signal(str)
    # The public signals are emitted on the window's thread only: a plain Python callable connected to a signal
    # emitted on the service's thread runs on that thread (pytest-qt's waitSignal did, and crashed Qt).
    _prefilled = Signal(int)
    _load_progress = Signal(float)
    _token_count = Signal(int, int)

    def __init__(self, engine_factory: Callable[[], ChatEngine] | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        if engine_factory is None:
            from localmind.engine.process import EngineProcess

            engine_factory = EngineProcess
        self.engine = engine_factory()
        self.engine_service = EngineService(self.engine)
        self._next_id = 0
        self._tickets: dict[int, Ticket] = {}
        self.active_request: int | None = None
        self.info: LoadInfo | None = None
        self.loading = False
        self._turn_text.connect(self._on_tokens)
        self._turn_finished.connect(self._on_finished)
        self._turn_failed.connect(self._on_failed)
        self._load_done.connect(self._on_loaded)
        self._load_error.connect(self._on_load_failed)
        self._prefilled.connect(self._on_prefilled)
        self._load_progress.connect(self._on_load_progress)
        self._token_count.connect(self._on_token_count)

    @property
    def busy(self) -> bool:
        return self.active_request is not None or self.loading

    @property
    def can_prefill(self) -> bool:
        return self.engine_service.reads_ahead

    def _submit(
        self, job: Turn | Read | CountTokens | Load, priority: Priority, on_event: Callable[[JobEvent], None]
    ) -> Ticket:
        return self.engine_service.submit(job, priority=priority, client=WINDOW, on_event=on_event)

    def prefill(
        self,
        messages: Sequence[ChatMessage],
        draft: str,
        whole: bool = False,
        compose: Callable[[], str | None] | None = None,
    ) -> bool:
        """Type-ahead and warm reopen: read ``messages`` and the start of ``draft`` (all of it and the reply header
        with ``whole``: the user paused) ahead of a send. ``compose`` (documents read-ahead) runs on the engine
        service's thread and gives the text to read in place of ``draft`` (the passages, then the question).

        Speculative, a background job: skipped while a model loads or a reply runs; any later job of the window
        (or an API request) stops it at its next chunk, and the next read replaces it. Returns whether it was asked.
        """
        if not self.can_prefill or self.busy or self.info is None:
            return False

        def on_event(event: JobEvent) -> None:
            if isinstance(event, Result):
                self._prefilled.emit(int(event.value))

        read = Read(list(messages), draft, whole, supersede=TYPEAHEAD, compose=compose)
        self._submit(read, Priority.BACKGROUND, on_event)
        return True

    def load(self, model_dir: str, options: LoadOptions | None = None) -> None:
        options = options or LoadOptions()
        self.cancel()
        self.loading = True
        self.loading_started.emit(model_dir)
        self.busy_changed.emit(True)

        def on_event(event: JobEvent) -> None:
            if isinstance(event, Result):
                self._load_done.emit(event.value)
            elif isinstance(event, Failed):
                error = event.error
                if isinstance(error, UserFacingError):
                    self._load_error.emit(user_text(error))
                else:
                    text = QCoreApplication.translate("engine", "The model could not be loaded: {detail}")
                    self._load_error.emit(text.format(detail=error))

        prepare = lambda: _prepare(model_dir, options, self._load_progress.emit)  # noqa: E731
        self._submit(Load(model_dir, options, prepare), Priority.WINDOW, on_event)

    def generate(self, messages: Sequence[ChatMessage], options: GenerationOptions) -> int:
        """Start a turn; returns its request id. A turn still running is cancelled first, and a read-ahead in
        flight stops at its next chunk (the send waits for at most that chunk)."""
        self.cancel()
        self._next_id += 1
        request_id = self._next_id
        self.active_request = request_id
        self.busy_changed.emit(True)
        self._tickets[request_id] = self._submit(
            Turn(list(messages), options), Priority.WINDOW, _TurnEvents(self, request_id)
        )
        return request_id

    def request_token_count(self, messages: Sequence[ChatMessage]) -> int:
        self._next_id += 1
        request_id = self._next_id

        def on_event(event: JobEvent) -> None:
            if isinstance(event, Result):
                self._token_count.emit(request_id, int(event.value))

        self._submit(CountTokens(list(messages)), Priority.WINDOW, on_event)
        return request_id

    def cancel(self) -> None:
        """Stop the current turn (within one decode step or prefill chunk). Its late output is dropped.

        A turn still waiting (an API request has the engine, which must not be stopped) ends at once."""
        request_id = self.active_request
        ticket = self._tickets.get(request_id) if request_id is not None else None
        if ticket is not None:
            ticket.cancel()

    def shutdown(self, timeout_ms: int = 3000) -> None:
        """Stop the turn, end the engine service and the engine. Never hangs on an engine that does not answer:
        Stop ends a turn within about 2 s; if the service is still busy after ``timeout_ms`` (a load in a frozen
        child), closing the engine kills the child, which ends the service's wait."""
        self.cancel()
        self.engine_service.close(timeout=timeout_ms / 1000)

    # -- from the engine service (the window's thread) ------------------------------------------------------------
    def _on_prefilled(self, tokens: int) -> None:
        self.prefilled.emit(tokens)

    def _on_load_progress(self, fraction: float) -> None:
        self.load_progress.emit(fraction)

    def _on_token_count(self, request_id: int, tokens: int) -> None:
        self.token_count_ready.emit(request_id, tokens)

    def _on_loaded(self, info: LoadInfo) -> None:
        self.loading = False
        self.info = info
        self.loaded.emit(info)
        self.busy_changed.emit(self.busy)

    def _on_load_failed(self, message: str) -> None:
        self.loading = False
        self.load_failed.emit(message)
        self.busy_changed.emit(self.busy)

    def _on_tokens(self, request_id: int, text: str) -> None:
        if request_id == self.active_request:
            self.tokens_ready.emit(request_id, text)

    def _end(self, request_id: int) -> bool:
        self._tickets.pop(request_id, None)
        if request_id != self.active_request:
            return False
        self.active_request = None
        return True

    def _on_finished(self, request_id: int, finished: TurnFinished) -> None:
        if finished.reloaded is not None:
            # The device failed and the engine moved the model to the CPU during this turn: the model changed.
            self.info = finished.reloaded
            self.loaded.emit(finished.reloaded)
        if self._end(request_id):
            self.finished.emit(request_id, finished)
            self.busy_changed.emit(self.busy)

    def _on_failed(self, request_id: int, message: str) -> None:
        if self._end(request_id):
            self.failed.emit(request_id, message)
            self.busy_changed.emit(self.busy)
