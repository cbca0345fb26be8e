"""The inference worker: one engine for the app, driven from its own QThread.

GUI -> worker: queued signals (load, generate). Cancel is not a signal: a
queued signal cannot arrive while the worker is busy streaming, so the GUI
sets the engine's thread-safe cancel flag directly.
Worker -> GUI: signals carrying small dataclasses. Every turn has a request
id; output of a turn the GUI has moved on from is dropped in the service.
Text reaches the GUI in batches (about every 30 ms), not per token.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Sequence

from PySide6.QtCore import QCoreApplication, QObject, QThread, Signal, Slot

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


class InferenceWorker(QObject):
    """Lives in the worker thread. Slots run there; signals are delivered queued to the GUI."""

    loaded = Signal(object)  # LoadInfo
    load_failed = Signal(str)
    load_progress = Signal(float)  # 0..1 while an exported model is rewritten for this computer (first load)
    tokens_ready = Signal(int, str)  # request id, text (whole characters)
    finished = Signal(int, object)  # request id, TurnFinished
    failed = Signal(int, str)  # request id, message
    token_count_ready = Signal(int, int)  # request id, tokens
    prefilled = Signal(int)  # tokens now in the cache after a type-ahead prefill

    def __init__(
        self, engine: ChatEngine, cancelled: set[int], lock: threading.Lock, engine_lock: threading.Lock | None = None
    ) -> None:
        super().__init__()
        self.engine = engine
        self._cancelled = cancelled
        self._lock = lock
        # Held for every engine call: the app's API server uses the same engine between the window's turns.
        self._engine_lock = engine_lock or threading.Lock()
        self.running_request: int | None = None  # the window's turn that is on the engine right now

    def _is_cancelled(self, request_id: int) -> bool:
        with self._lock:
            return request_id in self._cancelled

    @Slot(str, object)
    def load(self, model_dir: str, options: LoadOptions) -> None:
        try:
            self._prepare(model_dir, options)
            with self._engine_lock:
                info = self.engine.load(model_dir, options)
        except UserFacingError as exc:
            self.load_failed.emit(user_text(exc))
        except Exception as exc:  # never let a bad model take the worker down
            self.load_failed.emit(
                QCoreApplication.translate("engine", "The model could not be loaded: {detail}").format(detail=exc)
            )
        else:
            self.loaded.emit(info)

    def _prepare(self, model_dir: str, options: LoadOptions) -> None:
        """An onnx-community export opened for the first time is rewritten for this computer (seconds to a
        minute): do it here, reporting progress, so the engine's own load then finds it ready."""
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
                self.load_progress.emit(fraction)

        prepare.prepare_folder(folder, variant=options.variant, device=options.device, progress=progress)

    @Slot(int, object)
    def count_tokens(self, request_id: int, messages: list[ChatMessage]) -> None:
        try:
            with self._engine_lock:
                count = self.engine.count_tokens(messages)
        except Exception:
            return
        self.token_count_ready.emit(request_id, count)

    @Slot(object, str, int, bool)
    def prefill(self, messages: list[ChatMessage], draft: str, epoch: int, whole: bool = False) -> None:
        """Type-ahead: read the chat and the message being typed into the cache (stops when a send preempts it)."""
        prefill = getattr(self.engine, "prefill", None)
        if prefill is None or not self._engine_lock.acquire(blocking=False):
            return  # no type-ahead in this engine, or the API server is using it: speculative work waits for no one
        try:
            tokens = int(prefill(messages, draft, epoch, whole=whole))
        except Exception:  # speculative work: a failure here is the next real turn's to report
            return
        finally:
            self._engine_lock.release()
        self.prefilled.emit(tokens)

    @Slot(int, object, object)
    def generate(self, request_id: int, messages: list[ChatMessage], options: GenerationOptions) -> None:
        with self._engine_lock:
            with self._lock:
                self.running_request = request_id
            try:
                self._generate(request_id, messages, options)
            finally:
                with self._lock:
                    self.running_request = None

    def _generate(self, request_id: int, messages: list[ChatMessage], options: GenerationOptions) -> None:
        if self._is_cancelled(request_id):
            self.finished.emit(request_id, TurnFinished(FinishReason.CANCELLED, TurnStats()))
            return
        pending: list[str] = []
        last_emit = -math.inf  # the first words are shown the moment they come; later ones batched
        try:
            events = self.engine.generate(messages, options)
            if self._is_cancelled(request_id):
                # A Stop that came before generate() cleared the engine's flag would be lost otherwise, and a
                # frozen engine sends no event on which to notice it.
                self.engine.cancel()
            for event in events:
                if self._is_cancelled(request_id):
                    self.engine.cancel()  # also covers a cancel that came before the engine cleared its flag
                if isinstance(event, TextDelta):
                    pending.append(event.text)
                    now = time.monotonic()
                    if now - last_emit >= BATCH_INTERVAL_S:
                        self.tokens_ready.emit(request_id, "".join(pending))
                        pending.clear()
                        last_emit = now
                else:
                    if pending:
                        self.tokens_ready.emit(request_id, "".join(pending))
                        pending.clear()
                    self.finished.emit(request_id, event)
                    return
        except UserFacingError as exc:
            message = user_text(exc)
        except Exception as exc:
            message = QCoreApplication.translate("engine", "Generation failed: {detail}").format(detail=exc)
        else:
            message = QCoreApplication.translate("engine", "The engine ended the turn without saying why.")
        if pending:
            self.tokens_ready.emit(request_id, "".join(pending))
        self.failed.emit(request_id, message)


class InferenceService(QObject):
    """The GUI thread's handle on the worker. Forwards only the current request's output.

    Signals:
        loaded(LoadInfo), load_failed(str), loading_started(str model_dir), load_progress(float 0..1),
        tokens_ready(int, str), finished(int, TurnFinished), failed(int, str),
        token_count_ready(int, int), busy_changed(bool)
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

    _load_requested = Signal(str, object)
    _prefill_requested = Signal(object, str, int, bool)
    _generate_requested = Signal(int, object, object)
    _count_requested = Signal(int, object)

    def __init__(self, engine_factory: Callable[[], ChatEngine] | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        if engine_factory is None:
            from localmind.engine.process import EngineProcess

            engine_factory = EngineProcess
        self.engine = engine_factory()
        self._lock = threading.Lock()
        self._cancelled: set[int] = set()
        self._next_id = 0
        self.active_request: int | None = None
        self.info: LoadInfo | None = None
        self.loading = False
        self._thread = QThread()
        self._thread.setObjectName("localmind-inference")
        self.engine_lock = threading.Lock()  # see InferenceWorker; the API server takes it between turns
        self._worker = InferenceWorker(self.engine, self._cancelled, self._lock, self.engine_lock)
        self._worker.moveToThread(self._thread)
        self._load_requested.connect(self._worker.load)
        self._generate_requested.connect(self._worker.generate)
        self._count_requested.connect(self._worker.count_tokens)
        self._prefill_requested.connect(self._worker.prefill)
        self._worker.prefilled.connect(self.prefilled)
        self._worker.loaded.connect(self._on_loaded)
        self._worker.load_failed.connect(self._on_load_failed)
        self._worker.load_progress.connect(self.load_progress)
        self._worker.tokens_ready.connect(self._on_tokens)
        self._worker.finished.connect(self._on_finished)
        self._worker.failed.connect(self._on_failed)
        self._worker.token_count_ready.connect(self.token_count_ready)
        self._thread.start()

    @property
    def busy(self) -> bool:
        return self.active_request is not None or self.loading

    @property
    def can_prefill(self) -> bool:
        return hasattr(self.engine, "prefill")

    def prefill(self, messages: Sequence[ChatMessage], draft: str, whole: bool = False) -> bool:
        """Type-ahead: ask the engine to read ``messages`` and the start of ``draft`` (all of it and the reply
        header with ``whole``: the user paused) ahead of a send.

        Speculative and lowest priority: skipped while a model loads or a reply runs, and any later
        ``generate``, ``load`` or ``prefill`` stops it at its next chunk. Returns whether it was asked.
        """
        if not self.can_prefill or self.busy or self.info is None:
            return False
        self._preempt_prefill()  # the previous draft's prefill is out of date
        epoch = int(self.engine.typeahead_epoch())  # type: ignore[attr-defined]
        self._prefill_requested.emit(list(messages), draft, epoch, whole)
        return True

    def _preempt_prefill(self) -> None:
        preempt = getattr(self.engine, "preempt_prefill", None)
        if preempt is not None:
            preempt()

    def load(self, model_dir: str, options: LoadOptions | None = None) -> None:
        self._preempt_prefill()
        self.cancel()
        self.loading = True
        self.loading_started.emit(model_dir)
        self.busy_changed.emit(True)
        self._load_requested.emit(model_dir, options or LoadOptions())

    def generate(self, messages: Sequence[ChatMessage], options: GenerationOptions) -> int:
        """Start a turn; returns its request id. A turn still running is cancelled first, and a type-ahead
        prefill in flight stops at its next chunk (the send waits for at most that chunk)."""
        self._preempt_prefill()
        self.cancel()
        self._next_id += 1
        request_id = self._next_id
        self.active_request = request_id
        self.busy_changed.emit(True)
        self._generate_requested.emit(request_id, list(messages), options)
        return request_id

    def request_token_count(self, messages: Sequence[ChatMessage]) -> int:
        self._next_id += 1
        self._count_requested.emit(self._next_id, list(messages))
        return self._next_id

    def cancel(self) -> None:
        """Stop the current turn (within one decode step or prefill chunk). Its late output is dropped."""
        request_id = self.active_request
        if request_id is None:
            return
        with self._lock:
            self._cancelled.add(request_id)
            running = self._worker.running_request == request_id
        if running:
            self.engine.cancel()
        elif request_id == self.active_request:
            # Still waiting for the engine (the app's API server has it, which must not be stopped): the window's
            # turn ends now; the worker skips it when its turn comes, and _end drops that late report.
            self.active_request = None
            self.finished.emit(request_id, TurnFinished(FinishReason.CANCELLED, TurnStats()))
            self.busy_changed.emit(self.busy)

    def shutdown(self, timeout_ms: int = 3000) -> None:
        """Stop the turn, end the worker thread and the engine. Never hangs on an engine that does not answer:
        Stop ends a turn within about 2 s; if the thread is still busy after ``timeout_ms`` (a load in a frozen
        child), closing the engine from here kills the child, which ends the thread's wait."""
        self._preempt_prefill()
        self.cancel()
        self._thread.quit()
        if not self._thread.wait(timeout_ms):
            self.engine.close()
            self._thread.wait(timeout_ms)
        self.engine.close()

    # -- from the worker (GUI thread) ----------------------------------------------------------------------------
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
        with self._lock:
            self._cancelled.discard(request_id)
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
