"""The engine in a child process, so the window's thread never waits on og.

og's Generator holds Python's GIL for a whole forward pass: in a thread of the
window's process a 1,000-token prompt froze the window for seconds. In a child
process the GIL is not shared. Cancel is a shared flag the parent sets from
any thread; the child checks it every decode step and every prefill chunk.
Commands, replies and errors cross the pipe as dataclasses (engine/protocol.py);
the child's loop is engine/child.py.

A child can also stop answering (frozen, swapped out, stuck in a driver), so
the parent never waits on it blindly (engine/watchdog.py). Then:

* Stop takes effect within ``cancel_grace_s`` whatever the child does: if the
  turn has not ended by then, the child is killed and the turn reported as
  cancelled. A fresh child starts at once and reloads the model in the
  background, so the next message is answered.
* A command the child does not take within ``ack_timeout_s`` (it is idle then,
  so it takes it at once unless it is frozen) is sent again to a fresh child.
* A turn with no heartbeat for ``stall_timeout_s`` is ended with an error.

A crash in the child (og aborting on a bad model, running out of memory) does
not take the window down either: the parent reports it, and the next call
starts a fresh child and reloads the last model. A reload that fails (the
model's files missing or damaged at that moment) is tried again, with a
growing pause between tries, until it works or another model is asked for.

One thread talks to the child at a time: the engine service (engine/service.py)
is its only caller. ``close`` from another thread while a call is in flight
kills the child instead of talking to it, and the caller's wait ends at once.
"""

from __future__ import annotations

import contextlib
import dataclasses
import multiprocessing
import multiprocessing.connection
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from localmind.engine import protocol as p
from localmind.engine.child import SharedFlag, can_fork, serve, serve_forked
from localmind.engine.turn_stream import TurnStream
from localmind.engine.types import (
    ChatMessage,
    EngineError,
    GenerationOptions,
    LoadInfo,
    LoadOptions,
    StreamEvent,
)
from localmind.engine.watchdog import Hung, Limits, Watch
from localmind.errors import UserFacingError

CANCEL_GRACE_S = 1.5  # Stop must take effect within 2 s: kill after this, then report
ACK_TIMEOUT_S = 5.0  # an idle child takes a command in milliseconds; this is a frozen one
STALL_TIMEOUT_S = 120.0  # no prefill chunk or token for this long: the turn is hung
PREEMPT_PATIENCE_S = 10.0  # a preempted read-ahead chunk silent this long (and 5x the longest seen): frozen
FROZEN_AFTER_S = 10.0  # a call in flight with no heartbeat this long: /health says the engine is frozen
RELOAD_BACKOFF_S = (1.0, 60.0)  # a failed reload after a restart is tried again after 1 s, 2 s, 4 s… at most 60 s
_HUNG = "The engine stopped responding, so LocalMind restarted it."
_RESTART_HINT = "LocalMind restarts it on your next message; if it keeps happening, try a smaller model or the CPU."

__all__ = ["EngineProcess", "can_fork"]


class Closed(EngineError):
    """``close`` was called from another thread while this one waited on the child."""

    def __init__(self) -> None:
        super().__init__("")
        self.tell("The engine is shutting down.")


class EngineProcess:
    """A :class:`~localmind.engine.types.ChatEngine` (and ``ReadsAhead``) whose model lives in a child process."""

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
        self._cancel = SharedFlag(self._cancel_value)
        self._cancel_at: float | None = None
        self._beats: Any = self._ctx.RawValue("Q", 0)
        self._epoch: Any = self._ctx.RawValue("Q", 0)  # read-ahead: bumped to stop a prefill in flight
        self._proc: Any = None
        self._conn: multiprocessing.connection.Connection | None = None
        self._pipe_lock = threading.Lock()  # the service calls from one thread; this guards close() against it
        self._closing = False
        self._pending_load = False  # a fresh child was sent Load and its answer is not read yet
        self._pending_beats = 0
        self._last_load: p.Load | None = None  # the model wanted: reloaded into a fresh child
        self._child_loaded = False  # the current child holds it
        self._retry_at = 0.0
        self._retry_delay = RELOAD_BACKOFF_S[0]
        self._watch: Watch | None = None
        self.limits = Limits(cancel_grace_s, ack_timeout_s, stall_timeout_s, preempt_patience_s)
        self.info: LoadInfo | None = None
        self.load_error: UserFacingError | None = None  # why the last reload after a restart failed
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
            target: Callable[..., None] = serve_forked
            args = (parent, *args)
        else:
            ctx, target = self._ctx, serve
        self._fork_next = False
        self._proc = ctx.Process(target=target, args=args, name="localmind-engine", daemon=True)
        self._proc.start()
        child.close()
        self._conn = parent
        return parent

    def _discard(self) -> None:
        self._pending_load = False
        self._child_loaded = False
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
            self._pending_beats = self._send(conn, self._last_load)
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

    def _send(self, conn: multiprocessing.connection.Connection, command: p.Command) -> int:
        """Send ``command``; returns the heartbeat count from before, so taking it shows as a change."""
        beats = int(self._beats.value)
        conn.send(command)
        return beats

    def _check_open(self) -> None:
        if self._closing:
            raise Closed()

    def _cancelled_at(self) -> float | None:
        """When Stop was pressed, while the flag is up (a wait that honours Stop gives up ``cancel_grace_s`` later)."""
        if not self._cancel.is_set():
            return None
        if self._cancel_at is None:
            self._cancel_at = time.monotonic()
        return self._cancel_at

    def _receive(
        self,
        conn: multiprocessing.connection.Connection,
        sent_beats: int,
        *,
        cancellable: bool,
        stall: bool,
        preempted: Callable[[], bool] | None = None,
    ) -> p.Reply:
        """The child's next reply, without ever waiting on it blindly (engine/watchdog.py)."""
        cancel_at = self._cancelled_at if cancellable else None
        self._watch = Watch(self._beats, sent_beats, self.limits, cancel_at=cancel_at, stall=stall, preempted=preempted)
        try:
            return self._watch.reply(conn, self._check_open)
        finally:
            self._watch = None

    def _loaded(self, reply: p.Reply) -> LoadInfo:
        info: LoadInfo = self._unwrap(reply)
        self._child_loaded = True
        self.load_error = None
        self._retry_delay = RELOAD_BACKOFF_S[0]
        return info

    def _settle_pending_load(self, *, cancellable: bool) -> None:
        """Read the answer to a background reload before anything else goes down the pipe.

        Raises ``Hung("cancel")`` if Stop was pressed meanwhile (the load goes on; it is read next time).
        """
        if not self._pending_load or self._conn is None:
            return
        try:
            reply = self._receive(self._conn, self._pending_beats, cancellable=cancellable, stall=False)
        except (EOFError, OSError) as exc:
            raise self._crashed() from exc
        except Hung as hung:
            if hung.why == "cancel":
                raise
            self._discard()
            raise EngineError.say(_HUNG, "Try again.") from None
        self._pending_load = False
        try:
            self.info = self._loaded(reply)
        except UserFacingError as exc:
            self._reload_failed(exc)
            raise

    def _reload_failed(self, error: UserFacingError) -> None:
        """The model could not be reloaded after a restart: keep wanting it, and try again after a pause."""
        self.info = None
        self.load_error = error
        self._retry_at = time.monotonic() + self._retry_delay
        self._retry_delay = min(self._retry_delay * 2, RELOAD_BACKOFF_S[1])

    def _request(self, command: p.Command) -> p.Reply:
        """Send one command and return its answer; a child that does not take it is replaced once."""
        for attempt in (1, 2):
            conn = self._ensure_started()
            try:
                beats = self._send(conn, command)
                return self._receive(conn, beats, cancellable=False, stall=False)
            except (EOFError, OSError, BrokenPipeError) as exc:
                raise self._crashed() from exc
            except Hung:
                self._kill_and_restart()
                if attempt == 2 or isinstance(command, p.Load):
                    raise EngineError.say(_HUNG, "Try again.") from None
                self._settle_pending_load(cancellable=False)
        raise AssertionError("unreachable")

    def _call(self, command: p.Command) -> Any:
        with self._locked():
            if isinstance(command, p.Load):
                with contextlib.suppress(UserFacingError):  # the model being replaced failed to reload: no matter now
                    self._settle_pending_load(cancellable=False)
            else:
                self._ready_for_work(cancellable=False)
            return self._unwrap(self._request(command))

    def _locked(self) -> Any:
        self._check_open()
        return self._pipe_lock

    @staticmethod
    def _unwrap(reply: p.Reply) -> Any:
        if isinstance(reply, p.Done):
            return reply.value
        if isinstance(reply, p.Failed):
            raise reply.error()  # the window translates it (any UserFacingError built with say/tell)
        raise EngineError(f"The engine answered out of turn: {reply!r}.")

    def _ready_for_work(self, *, cancellable: bool) -> None:
        """Before a command that needs the model: read a pending reload, or reload into a fresh child."""
        self._settle_pending_load(cancellable=cancellable)
        if self._proc is not None and not self._proc.is_alive():
            self._discard()  # it died while idle (killed, out of memory): a fresh child needs the model again
        if self._last_load is None or self._child_loaded:
            return
        if time.monotonic() < self._retry_at and self.load_error is not None:
            raise self.load_error  # the last try failed a moment ago: not again on every request
        try:
            self.info = self._loaded(self._request(self._last_load))
        except UserFacingError as exc:
            self._reload_failed(exc)
            raise

    # -- health (any thread) ----------------------------------------------------------------------------------------
    def reload_due(self) -> bool:
        """A model is wanted, the child does not hold it, and the pause after the last failed try is over."""
        return (
            self._last_load is not None
            and not self._child_loaded
            and self.load_error is not None
            and time.monotonic() >= self._retry_at
        )

    def heal(self) -> None:
        """Try the failed reload again now (the engine service calls it when idle and ``reload_due``)."""
        with self._locked(), contextlib.suppress(UserFacingError):
            self._ready_for_work(cancellable=False)

    def health(self) -> str | None:
        frozen = self.frozen_for()
        if frozen:
            return f"The engine has not answered for {frozen:.0f} s (it is restarted if it stays so)."
        if self._last_load is not None and not self._child_loaded and self.load_error is not None:
            return f"The model is not loaded: {self.load_error} (LocalMind tries again)."
        return None

    def frozen_for(self) -> float:
        """Seconds a call in flight has gone without a heartbeat beyond ``FROZEN_AFTER_S``; 0 when not frozen."""
        watch = self._watch
        silent = watch.silent_for if watch is not None else 0.0
        return silent if silent >= FROZEN_AFTER_S else 0.0

    # -- ChatEngine -----------------------------------------------------------------------------------------------
    def load(self, model_dir: str, options: LoadOptions | None = None) -> LoadInfo:
        command = p.Load(model_dir, options or LoadOptions())
        info: LoadInfo = self._call(command)
        self._child_loaded = True
        self._last_load = command
        self.load_error = None
        self.info = info
        return info

    def start_load(self, model_dir: str, options: LoadOptions | None = None) -> None:
        """Send ``load`` and return at once: the child imports og and loads while the caller gets on with its own
        start-up (``localmind serve`` imports its web server meanwhile). ``wait_loaded`` (or any later call)
        reads the answer."""
        command = p.Load(model_dir, options or LoadOptions())
        with self._locked():
            with contextlib.suppress(UserFacingError):  # a model being replaced that failed to reload: no matter
                self._settle_pending_load(cancellable=False)
            conn = self._ensure_started()
            self._pending_beats = self._send(conn, command)
            self._pending_load = True
            self._last_load = command
            self.info = None

    def wait_loaded(self) -> LoadInfo:
        """The answer to ``start_load``: its LoadInfo, or its error (then nothing is reloaded behind it)."""
        with self._locked():
            try:
                self._settle_pending_load(cancellable=False)
            except UserFacingError:
                self._last_load = None
                raise
        if self.info is None:
            raise EngineError.say("No model is loaded.", "Open a model first.")
        return self.info

    def unload(self) -> None:
        self._last_load = None
        self.load_error = None
        self.info = None
        if self._proc is not None and self._proc.is_alive():
            self._call(p.Unload())

    def count_tokens(self, messages: Sequence[ChatMessage]) -> int:
        return int(self._call(p.CountTokens(list(messages))))

    def cancel(self) -> None:
        # The grace counts from the first Stop: another one (the window closing after Stop) must not extend it.
        if not self._cancel.is_set() or self._cancel_at is None:
            self._cancel_at = time.monotonic()
        self._cancel.set()

    # -- ReadsAhead -----------------------------------------------------------------------------------------------
    def typeahead_epoch(self) -> int:
        return int(self._epoch.value)

    def preempt_prefill(self) -> None:
        """Stop a read-ahead in flight at its next chunk. Any thread."""
        self._epoch.value += 1

    def prefill(
        self, messages: Sequence[ChatMessage], draft: str = "", epoch: int | None = None, whole: bool = False
    ) -> int:
        """See :meth:`LocalEngine.prefill`. A child that does not stop within its patience after a preempt is
        killed and restarted like a frozen turn (the work was only speculative)."""
        epoch = self.typeahead_epoch() if epoch is None else epoch
        if self.typeahead_epoch() != epoch:
            return 0
        with self._locked():
            try:
                self._ready_for_work(cancellable=False)
            except Hung:
                return 0
            conn = self._ensure_started()
            try:
                beats = self._send(conn, p.Prefill(list(messages), draft, epoch, whole))
                reply = self._receive(
                    conn, beats, cancellable=False, stall=True, preempted=lambda: self.typeahead_epoch() != epoch
                )
            except (EOFError, OSError) as exc:
                raise self._crashed() from exc
            except Hung:
                self._kill_and_restart()
                return 0
            return int(self._unwrap(reply))

    def generate(
        self, messages: Sequence[ChatMessage], options: GenerationOptions | None = None
    ) -> Iterator[StreamEvent]:
        # Cleared now, not when the stream is first read: a Stop after this call must count.
        self._cancel.clear()
        self._cancel_at = None
        return TurnStream(self, p.Generate(list(messages), options or GenerationOptions())).events()

    def _after_device_fallback(self, reloaded: LoadInfo) -> None:
        """The device failed on its first answer and the turn ran on the CPU: a restarted child should use it too."""
        self.info = reloaded
        if self._last_load is not None:
            options = dataclasses.replace(self._last_load.options, device="cpu")
            self._last_load = p.Load(self._last_load.model_dir, options)

    def _drain(self, conn: multiprocessing.connection.Connection) -> None:
        """The caller stopped reading early: stop the turn and read to its end, so the next call starts clean."""
        self.cancel()
        try:
            while isinstance(self._receive(conn, int(self._beats.value), cancellable=True, stall=True), p.Event):
                pass
        except (EOFError, OSError, Closed):
            self._discard()
        except Hung:
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
                    self._conn.send(p.Quit())
                    if self._conn.poll(2):
                        self._conn.recv()
                except (EOFError, OSError):
                    pass
            self._discard()
            self._closing = False  # nobody is waiting: a later call may start a fresh child
        finally:
            self._pipe_lock.release()
