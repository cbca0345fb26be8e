"""The engine in a child process, so the window's thread never waits on og.

og's Generator holds Python's GIL for a whole forward pass: in a thread of the
window's process a 1,000-token prompt froze the window for seconds. In a child
process the GIL is not shared. Cancel is a shared event the parent sets from
any thread; the child checks it every decode step and every prefill chunk.

A child can also stop answering (frozen, swapped out, stuck in a driver), so
the parent never waits on it blindly. It reads the pipe in short slices and
watches a heartbeat: a shared counter the child bumps when it takes a command
and at every prefill chunk and decode step. Then:

* Stop takes effect within ``cancel_grace_s`` whatever the child does: if the
  turn has not ended by then, the child is killed and the turn reported as
  cancelled. A fresh child starts at once and reloads the model in the
  background, so the next message is answered.
* A command the child does not take within ``ack_timeout_s`` (it is idle then,
  so it takes it at once unless it is frozen) is sent again to a fresh child.
* A turn with no heartbeat for ``stall_timeout_s`` is ended with an error.

A crash in the child (og aborting on a bad model, running out of memory) does
not take the window down either: the parent reports it, and the next call
starts a fresh child and reloads the last model.

One thread talks to the child at a time (a lock guards the pipe); ``close``
from another thread while a call is in flight kills the child instead of
talking to it, and the caller's wait ends at once.
"""

from __future__ import annotations

import contextlib
import dataclasses
import multiprocessing
import multiprocessing.connection
import os
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from localmind import startup_trace
from localmind.engine.types import (
    ChatMessage,
    ContextLengthExceededError,
    EngineError,
    FinishReason,
    GenerationOptions,
    GrammarError,
    LoadInfo,
    LoadOptions,
    ModelLoadError,
    PromptTooLongError,
    StreamEvent,
    TextDelta,
    TurnFinished,
    TurnStats,
)
from localmind.errors import UserFacingError

_ERRORS: dict[str, type[UserFacingError]] = {
    "ModelLoadError": ModelLoadError,
    "PromptTooLongError": PromptTooLongError,
    "ContextLengthExceededError": ContextLengthExceededError,  # the API answers it 400 context_length_exceeded
    "GrammarError": GrammarError,
    "EngineError": EngineError,
    "UserFacingError": UserFacingError,
}

CANCEL_GRACE_S = 1.5  # Stop must take effect within 2 s: kill after this, then report
ACK_TIMEOUT_S = 5.0  # an idle child takes a command in milliseconds; this is a frozen one
STARTUP_TIMEOUT_S = 60.0  # a fresh child imports numpy and og before it takes anything
STALL_TIMEOUT_S = 120.0  # no prefill chunk or token for this long: the turn is hung
PREEMPT_PATIENCE_S = 10.0  # a preempted type-ahead chunk silent this long (and 5x the longest seen): frozen
_POLL_S = 0.05
RESERVE_GRACE_S = 0.1  # after serve's first turn, how long the child waits for a next request before reserving
_HUNG = "The engine stopped responding, so LocalMind restarted it."
_RESTART_HINT = "LocalMind restarts it on your next message; if it keeps happening, try a smaller model or the CPU."


class _SharedFlag:
    """A cancel flag in shared memory with no lock: a multiprocessing.Event takes a lock to read, and a child
    frozen while holding it would freeze the parent (the window's thread, on Stop) too."""

    def __init__(self, value: Any) -> None:
        self._value = value

    def set(self) -> None:
        self._value.value = 1

    def clear(self) -> None:
        self._value.value = 0

    def is_set(self) -> bool:
        return bool(self._value.value)


class _Heartbeat(_SharedFlag):
    """The child's cancel flag: every check (each prefill chunk and decode step) is also a heartbeat."""

    def __init__(self, value: Any, beats: Any) -> None:
        super().__init__(value)
        self._beats = beats

    def beat(self) -> None:
        self._beats.value += 1  # one writer (the child); the parent only reads

    def is_set(self) -> bool:
        self.beat()
        return super().is_set()


def _serve(
    conn: multiprocessing.connection.Connection, cancel: Any, beats: Any, epoch: Any, data_dir: str | None
) -> None:
    """The child's loop: one request at a time from ``conn``; replies go back on it."""
    # Ctrl+C in a terminal reaches the whole process group: the parent ends this process (a traceback from here
    # was all the child added).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
    if data_dir:
        from localmind import paths

        paths.set_data_dir(data_dir)
    from localmind.engine.local import LocalEngine

    heartbeat = _Heartbeat(cancel, beats)
    engine = LocalEngine(cancel_flag=heartbeat, typeahead_epoch=epoch)
    heartbeat.beat()  # ready
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        heartbeat.beat()  # taken
        command, args = message[0], message[1:]
        try:
            if command == "quit":
                conn.send(("ok", None))
                return
            if command == "load":
                startup_trace.trace("engine-loading", startup_trace.web_framework_loaded())
                startup_trace.wait_for_load_gate()
                info = engine.load(*args)
                startup_trace.trace("engine-loaded")
                conn.send(("ok", info))
                engine.prepare_first_turn()  # while the parent gets ready: the first message does not wait for it
                heartbeat.beat()
            elif command == "unload":
                engine.unload()
                conn.send(("ok", None))
            elif command == "prefill":
                history, draft, epoch_then, whole = args
                conn.send(("ok", engine.prefill(history, draft, epoch_then, on_chunk=heartbeat.beat, whole=whole)))
            elif command == "count":
                conn.send(("ok", engine.count_tokens(*args)))
            elif command == "generate":
                for event in engine.generate(*args, reset_cancel=False):
                    conn.send(("event", event))
                conn.send(("ok", None))
                # Serve's first turn had a KV buffer of its own size; the budget's is made once nothing waits (a
                # request queued behind this one is sent within milliseconds: it does not wait for the buffer).
                if engine.kv_pending and not conn.poll(RESERVE_GRACE_S):
                    if engine.reserve_kv(on_chunk=heartbeat.beat):
                        startup_trace.trace("engine-reserved")
                    heartbeat.beat()
            else:
                conn.send(("error", "EngineError", f"Unknown engine command {command!r}.", None, None))
        except UserFacingError as exc:
            sources = exc.sources()
            conn.send(("error", type(exc).__name__, exc.message, exc.hint, sources))
        except Exception as exc:  # a bug or an og failure we did not foresee: report it, keep serving
            detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
            conn.send(("error", "EngineError", f"The engine failed: {detail}", None, None))


def _serve_forked(
    parent_end: multiprocessing.connection.Connection,
    conn: multiprocessing.connection.Connection,
    cancel: Any,
    beats: Any,
    epoch: Any,
    data_dir: str | None,
) -> None:
    """``_serve`` in a forked child: first close the parent's end of the pipe, which the fork copied (held open
    here, the child would never see the parent go away)."""
    parent_end.close()
    _serve(conn, cancel, beats, epoch, data_dir)


def can_fork() -> bool:
    """Whether a child may be forked from this process: Linux, and no thread besides this one (a fork copies
    only the calling thread, and a lock another thread held stays locked in the child forever)."""
    return sys.platform.startswith("linux") and threading.active_count() == 1


class _Hung(Exception):
    """The child did not answer in time; ``why`` is "cancel", "ack" or "stall"."""

    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


class _Closed(EngineError):
    """``close`` was called from another thread while this one waited on the child."""

    def __init__(self) -> None:
        super().__init__("")
        self.tell("The engine is shutting down.")


class EngineProcess:
    """A :class:`~localmind.engine.types.ChatEngine` whose model lives in a child process."""

    def __init__(
        self,
        *,
        cancel_grace_s: float = CANCEL_GRACE_S,
        ack_timeout_s: float = ACK_TIMEOUT_S,
        stall_timeout_s: float = STALL_TIMEOUT_S,
        preempt_patience_s: float = PREEMPT_PATIENCE_S,
        fork_first: bool = False,
    ) -> None:
        self._ctx = multiprocessing.get_context("spawn")
        # ``localmind serve``'s first child is forked where that is safe (see ``can_fork``): it starts at once,
        # with what this process imported so far, instead of a fresh Python that imports it all again (plus
        # multiprocessing's resource tracker, another fresh Python) while the server imports its web framework.
        # Later children (a restart) are spawned: by then this process has threads.
        self._fork_next = fork_first
        self._cancel_value: Any = self._ctx.RawValue("b", 0)
        self._cancel = _SharedFlag(self._cancel_value)
        self._cancel_at: float | None = None
        self._beats: Any = self._ctx.RawValue("Q", 0)
        self._epoch: Any = self._ctx.RawValue("Q", 0)  # type-ahead: bumped to stop a prefill in flight
        self._proc: Any = None
        self._conn: multiprocessing.connection.Connection | None = None
        self._pipe_lock = threading.Lock()
        self._closing = False
        self._pending_load = False  # a fresh child was sent "load" and its answer is not read yet
        self._pending_beats = 0
        self._last_load: tuple[str, LoadOptions] | None = None
        self.cancel_grace_s = cancel_grace_s
        self.ack_timeout_s = ack_timeout_s
        self.stall_timeout_s = stall_timeout_s
        self.preempt_patience_s = preempt_patience_s
        self.info: LoadInfo | None = None
        self.restarts = 0
        self.kills = 0  # children killed because they did not answer in time

    @property
    def pid(self) -> int | None:
        proc = self._proc
        return int(proc.pid) if proc is not None and proc.pid is not None else None

    # -- process management (the pipe lock is held) ---------------------------------------------------------------
    def _ensure_started(self) -> multiprocessing.connection.Connection:
        if self._proc is not None and self._proc.is_alive() and self._conn is not None:
            return self._conn
        self._discard()
        from localmind import paths

        parent, child = self._ctx.Pipe()
        self._beats.value = 0
        args: tuple[Any, ...] = (child, self._cancel_value, self._beats, self._epoch, str(paths.data_dir()))
        if self._fork_next and can_fork():
            ctx: Any = multiprocessing.get_context("fork")
            target: Callable[..., None] = _serve_forked
            args = (parent, *args)
        else:
            ctx, target = self._ctx, _serve
        self._fork_next = False
        self._proc = ctx.Process(target=target, args=args, name="localmind-engine", daemon=True)
        self._proc.start()
        child.close()
        self._conn = parent
        return parent

    def _discard(self) -> None:
        self._pending_load = False
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        if self._proc is not None:
            if self._proc.is_alive():
                self._proc.kill()
            self._proc.join(timeout=5)
            self._proc = None

    def _kill_and_restart(self) -> None:
        """Kill a child that did not answer; start a fresh one reloading the last model in the background."""
        self.kills += 1
        self.restarts += 1
        self._discard()
        if self._last_load is None or self._closing:
            return
        conn = self._ensure_started()
        try:
            self._pending_beats = self._send(conn, ("load", *self._last_load))
            self._pending_load = True
        except OSError:
            self._discard()

    def _crashed(self) -> EngineError:
        proc = self._proc
        if proc is not None:
            proc.join(timeout=1)  # the pipe closes a moment before the exit status is known
        code = proc.exitcode if proc is not None else None
        self._discard()
        self.restarts += 1
        if code is not None and code < 0:
            return EngineError.say(
                "The engine stopped unexpectedly (stopped by signal {signal}).", _RESTART_HINT, signal=-code
            )
        if code:
            return EngineError.say(
                "The engine stopped unexpectedly (exit status {status}).", _RESTART_HINT, status=code
            )
        return EngineError.say("The engine stopped unexpectedly.", _RESTART_HINT)

    def _send(self, conn: multiprocessing.connection.Connection, message: tuple[Any, ...]) -> int:
        """Send ``message``; returns the heartbeat count from before, so taking it shows as a change."""
        beats = int(self._beats.value)
        conn.send(message)
        return beats

    def _receive(
        self,
        conn: multiprocessing.connection.Connection,
        sent_beats: int,
        *,
        cancellable: bool,
        stall: bool,
        preempted: Callable[[], bool] | None = None,
    ) -> Any:
        """The child's next reply, without ever waiting on it blindly (see the module docstring)."""
        sent_at = last_progress = time.monotonic()
        last_beats = sent_beats
        ready = sent_beats > 0
        acked = False
        longest_gap = 0.0  # between heartbeats: how long one chunk takes on this machine right now
        while True:
            if self._closing:
                raise _Closed()
            if conn.poll(_POLL_S):
                return conn.recv()
            now = time.monotonic()
            beats = int(self._beats.value)
            if beats != last_beats:
                if not ready:
                    ready, sent_at = True, now  # now it is listening: the ready beat, then the taken beat
                    acked = beats >= 2
                else:
                    acked = True
                if acked and last_beats > sent_beats:
                    longest_gap = max(longest_gap, now - last_progress)
                last_beats, last_progress = beats, now
            if cancellable and self._cancel.is_set():
                if self._cancel_at is None:
                    self._cancel_at = now
                if now - self._cancel_at >= self.cancel_grace_s:
                    raise _Hung("cancel")
            if preempted is not None and preempted():
                # Type-ahead is only speculative, but killing a child that is merely slow costs a reload: wait
                # for the chunk in flight unless the heartbeat has been silent for much longer than a chunk takes.
                # A chunk on a loaded machine can take seconds, and the first pass of a fresh session longer.
                patience = max(self.preempt_patience_s, 5 * longest_gap)
                if now - last_progress >= patience:
                    raise _Hung("cancel")
            if not acked and now - sent_at >= (self.ack_timeout_s if ready else STARTUP_TIMEOUT_S):
                raise _Hung("ack")
            if stall and acked and now - last_progress >= self.stall_timeout_s:
                raise _Hung("stall")

    def _settle_pending_load(self, *, cancellable: bool) -> None:
        """Read the answer to a background reload before anything else goes down the pipe.

        Raises ``_Hung("cancel")`` if Stop was pressed meanwhile (the load goes on; it is read next time).
        """
        if not self._pending_load or self._conn is None:
            return
        try:
            reply = self._receive(self._conn, self._pending_beats, cancellable=cancellable, stall=False)
        except (EOFError, OSError) as exc:
            raise self._crashed() from exc
        except _Hung as hung:
            if hung.why == "cancel":
                raise
            self._discard()
            raise EngineError.say(_HUNG, "Try again.") from None
        self._pending_load = False
        try:
            self.info = self._unwrap(reply)
        except UserFacingError:
            self._last_load = None
            self.info = None
            raise

    def _request(self, message: tuple[Any, ...]) -> Any:
        """Send one command and return its answer; a child that does not take it is replaced once."""
        for attempt in (1, 2):
            conn = self._ensure_started()
            try:
                beats = self._send(conn, message)
                return self._receive(conn, beats, cancellable=False, stall=False)
            except (EOFError, OSError, BrokenPipeError) as exc:
                raise self._crashed() from exc
            except _Hung:
                self._kill_and_restart()
                if attempt == 2 or message[0] == "load":
                    raise EngineError.say(_HUNG, "Try again.") from None
                self._settle_pending_load(cancellable=False)
        raise AssertionError("unreachable")

    def _call(self, *message: Any) -> Any:
        with self._locked():
            if message[0] == "load":
                with contextlib.suppress(UserFacingError):  # the model being replaced failed to reload: no matter now
                    self._settle_pending_load(cancellable=False)
            else:
                self._settle_pending_load(cancellable=False)
                self._reload_if_restarted()
            return self._unwrap(self._request(message))

    def _locked(self) -> Any:
        if self._closing:
            raise _Closed()
        return self._pipe_lock

    @staticmethod
    def _unwrap(reply: tuple[Any, ...]) -> Any:
        if reply[0] == "ok":
            return reply[1]
        _, kind, message, hint, sources = reply
        cls = _ERRORS.get(kind, EngineError)
        error = cls(message, hint=hint)
        error.set_sources(sources)  # the window translates it (any UserFacingError built with say/tell)
        raise error

    def _reload_if_restarted(self) -> None:
        if (self._proc is None or not self._proc.is_alive()) and self._last_load is not None:
            self.info = self._unwrap(self._request(("load", *self._last_load)))

    # -- ChatEngine -----------------------------------------------------------------------------------------------
    def load(self, model_dir: str, options: LoadOptions | None = None) -> LoadInfo:
        options = options or LoadOptions()
        info: LoadInfo = self._call("load", model_dir, options)
        self._last_load = (model_dir, options)
        self.info = info
        return info

    def start_load(self, model_dir: str, options: LoadOptions | None = None) -> None:
        """Send ``load`` and return at once: the child imports og and loads while the caller gets on with its own
        start-up (``localmind serve`` imports its web server meanwhile). ``wait_loaded`` (or any later call)
        reads the answer."""
        options = options or LoadOptions()
        with self._locked():
            with contextlib.suppress(UserFacingError):  # a model being replaced that failed to reload: no matter
                self._settle_pending_load(cancellable=False)
            conn = self._ensure_started()
            self._pending_beats = self._send(conn, ("load", model_dir, options))
            self._pending_load = True
            self._last_load = (model_dir, options)
            self.info = None

    def wait_loaded(self) -> LoadInfo:
        """The answer to ``start_load``: its LoadInfo, or its error."""
        with self._locked():
            self._settle_pending_load(cancellable=False)
        if self.info is None:
            raise EngineError.say("No model is loaded.", "Open a model first.")
        return self.info

    def unload(self) -> None:
        self._last_load = None
        self.info = None
        if self._proc is not None and self._proc.is_alive():
            self._call("unload")

    def count_tokens(self, messages: Sequence[ChatMessage]) -> int:
        return int(self._call("count", list(messages)))

    def cancel(self) -> None:
        self._cancel_at = time.monotonic()
        self._cancel.set()

    # -- type-ahead -----------------------------------------------------------------------------------------------
    def typeahead_epoch(self) -> int:
        return int(self._epoch.value)

    def preempt_prefill(self) -> None:
        """Stop a type-ahead prefill in flight at its next chunk. Any thread (one writer: the window's)."""
        self._cancel_at = time.monotonic()
        self._epoch.value += 1

    def prefill(
        self, messages: Sequence[ChatMessage], draft: str = "", epoch: int | None = None, whole: bool = False
    ) -> int:
        """See :meth:`LocalEngine.prefill`. A child that does not stop within the grace after a preempt is
        killed and restarted like a frozen turn (the work was only speculative)."""
        epoch = self.typeahead_epoch() if epoch is None else epoch
        if self.typeahead_epoch() != epoch:
            return 0
        with self._locked():
            try:
                self._settle_pending_load(cancellable=False)
                self._reload_if_restarted()
            except _Hung:
                return 0
            conn = self._ensure_started()
            try:
                beats = self._send(conn, ("prefill", list(messages), draft, epoch, whole))
                reply = self._receive(
                    conn, beats, cancellable=False, stall=True, preempted=lambda: self.typeahead_epoch() != epoch
                )
            except (EOFError, OSError) as exc:
                raise self._crashed() from exc
            except _Hung:
                self._kill_and_restart()
                return 0
            return int(self._unwrap(reply))

    def generate(
        self, messages: Sequence[ChatMessage], options: GenerationOptions | None = None
    ) -> Iterator[StreamEvent]:
        # Cleared now, not when the stream is first read: a Stop after this call must count.
        self._cancel.clear()
        self._cancel_at = None
        return self._stream(("generate", list(messages), options or GenerationOptions()))

    def _stream(self, message: tuple[Any, ...]) -> Iterator[StreamEvent]:
        started = time.perf_counter()
        first: float | None = None
        deltas = 0

        def cancelled() -> TurnFinished:
            # The child was killed: what the parent saw is all it knows of the turn.
            now = time.perf_counter()
            return TurnFinished(
                FinishReason.CANCELLED,
                TurnStats(
                    generated_tokens=deltas,
                    time_to_first_token_s=(first - started) if first else 0.0,
                    total_s=now - started,
                ),
            )

        with self._locked():
            try:
                self._settle_pending_load(cancellable=True)
                self._reload_if_restarted()
            except _Hung:
                # Stopped while a fresh child was still loading: the load goes on, the turn ends.
                yield cancelled()
                return
            for attempt in (1, 2):
                conn = self._ensure_started()
                finished = False
                try:
                    beats = self._send(conn, message)
                    while True:
                        reply = self._receive(conn, beats, cancellable=True, stall=True)
                        if reply[0] != "event":
                            finished = True
                            self._unwrap(reply)
                            return
                        event: TextDelta | TurnFinished = reply[1]
                        if isinstance(event, TextDelta):
                            deltas += 1
                            first = first or time.perf_counter()
                        elif event.reloaded is not None and self._last_load is not None:
                            # The device failed on its first answer: a restarted child should use the CPU too.
                            self.info = event.reloaded
                            self._last_load = (
                                self._last_load[0],
                                dataclasses.replace(self._last_load[1], device="cpu"),
                            )
                        yield event
                except (EOFError, OSError) as exc:
                    finished = True
                    raise self._crashed() from exc
                except _Closed:
                    finished = True
                    raise
                except _Hung as hung:
                    finished = True
                    self._kill_and_restart()
                    if hung.why == "cancel":
                        yield cancelled()
                        return
                    if hung.why == "ack" and attempt == 1:
                        try:
                            self._settle_pending_load(cancellable=True)
                        except _Hung:
                            yield cancelled()
                            return
                        continue
                    raise EngineError.say(
                        _HUNG, "Send your message again; if it keeps happening, try a smaller model or the CPU."
                    ) from None
                finally:
                    if not finished and self._conn is conn:
                        self._drain(conn)

    def _drain(self, conn: multiprocessing.connection.Connection) -> None:
        """The caller stopped reading early: stop the turn and read to its end, so the next call starts clean."""
        self.cancel()
        try:
            while self._receive(conn, int(self._beats.value), cancellable=True, stall=True)[0] == "event":
                pass
        except (EOFError, OSError, _Closed):
            self._discard()
        except _Hung:
            self._kill_and_restart()

    def close(self) -> None:
        """End the child. Never blocks for long: from another thread while a call is in flight, it kills."""
        if not self._pipe_lock.acquire(timeout=0.2):
            self._closing = True
            proc = self._proc
            if proc is not None and proc.is_alive():
                proc.kill()  # the waiting thread sees _closing (or the pipe's end) within one poll slice
                proc.join(timeout=1)  # reaped: nothing left behind
            return
        try:
            self._closing = True
            if self._proc is not None and self._proc.is_alive() and self._conn is not None and not self._pending_load:
                try:
                    self._conn.send(("quit",))
                    if self._conn.poll(2):
                        self._conn.recv()
                except (EOFError, OSError):
                    pass
            self._discard()
            self._closing = False  # nobody is waiting: a later call may start a fresh child
        finally:
            self._pipe_lock.release()
