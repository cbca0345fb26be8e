"""The engine in a child process, so the window's thread never waits on og.

og's Generator holds Python's GIL for a whole forward pass: in a thread of the
window's process a 1,000-token prompt froze the window for seconds. In a child
process the GIL is not shared. Cancel is a shared event the parent sets from
any thread; the child checks it every decode step and every prefill chunk.

A crash in the child (og aborting on a bad model, running out of memory)
does not take the window down: the parent reports it, and the next call
starts a fresh child and reloads the last model.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import os
import traceback
from collections.abc import Iterator, Sequence
from typing import Any

from localmind.engine.types import (
    ChatMessage,
    EngineError,
    GenerationOptions,
    LoadInfo,
    LoadOptions,
    ModelLoadError,
    PromptTooLongError,
    StreamEvent,
    TextDelta,
    TurnFinished,
)
from localmind.errors import UserFacingError

_ERRORS: dict[str, type[UserFacingError]] = {
    "ModelLoadError": ModelLoadError,
    "PromptTooLongError": PromptTooLongError,
    "EngineError": EngineError,
    "UserFacingError": UserFacingError,
}


def _serve(conn: multiprocessing.connection.Connection, cancel: Any, data_dir: str | None) -> None:
    """The child's loop: one request at a time from ``conn``; replies go back on it."""
    os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
    if data_dir:
        from localmind import paths

        paths.set_data_dir(data_dir)
    from localmind.engine.local import LocalEngine

    engine = LocalEngine(cancel_flag=cancel)
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        command, args = message[0], message[1:]
        try:
            if command == "quit":
                conn.send(("ok", None))
                return
            if command == "load":
                conn.send(("ok", engine.load(*args)))
            elif command == "unload":
                engine.unload()
                conn.send(("ok", None))
            elif command == "count":
                conn.send(("ok", engine.count_tokens(*args)))
            elif command == "generate":
                for event in engine.generate(*args, reset_cancel=False):
                    conn.send(("event", event))
                conn.send(("ok", None))
            else:
                conn.send(("error", "EngineError", f"Unknown engine command {command!r}.", None))
        except UserFacingError as exc:
            conn.send(("error", type(exc).__name__, exc.message, exc.hint))
        except Exception as exc:  # a bug or an og failure we did not foresee: report it, keep serving
            detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
            conn.send(("error", "EngineError", f"The engine failed: {detail}", None))


class EngineProcess:
    """A :class:`~localmind.engine.types.ChatEngine` whose model lives in a child process."""

    def __init__(self) -> None:
        self._ctx = multiprocessing.get_context("spawn")
        self._cancel = self._ctx.Event()
        self._proc: Any = None
        self._conn: multiprocessing.connection.Connection | None = None
        self._last_load: tuple[str, LoadOptions] | None = None
        self.info: LoadInfo | None = None
        self.restarts = 0

    # -- process management ---------------------------------------------------------------------------------------
    def _ensure_started(self) -> multiprocessing.connection.Connection:
        if self._proc is not None and self._proc.is_alive() and self._conn is not None:
            return self._conn
        self._discard()
        from localmind import paths

        parent, child = self._ctx.Pipe()
        self._proc = self._ctx.Process(
            target=_serve, args=(child, self._cancel, str(paths.data_dir())), name="localmind-engine", daemon=True
        )
        self._proc.start()
        child.close()
        self._conn = parent
        return parent

    def _discard(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        if self._proc is not None:
            if self._proc.is_alive():
                self._proc.kill()
            self._proc.join(timeout=5)
            self._proc = None

    def _crashed(self) -> EngineError:
        code = self._proc.exitcode if self._proc is not None else None
        self._discard()
        self.restarts += 1
        how = f"signal {-code}" if code is not None and code < 0 else f"exit code {code}"
        return EngineError(
            f"The engine stopped unexpectedly ({how}).",
            hint="LocalMind restarts it on your next message; if it keeps happening, try a smaller model or the CPU.",
        )

    def _call(self, *message: Any) -> Any:
        conn = self._ensure_started()
        try:
            conn.send(message)
            reply = conn.recv()
        except (EOFError, OSError, BrokenPipeError) as exc:
            raise self._crashed() from exc
        return self._unwrap(reply)

    @staticmethod
    def _unwrap(reply: tuple[Any, ...]) -> Any:
        if reply[0] == "ok":
            return reply[1]
        _, kind, message, hint = reply
        raise _ERRORS.get(kind, EngineError)(message, hint=hint)

    def _reload_if_restarted(self) -> None:
        if (self._proc is None or not self._proc.is_alive()) and self._last_load is not None:
            self.info = self._call("load", *self._last_load)

    # -- ChatEngine -----------------------------------------------------------------------------------------------
    def load(self, model_dir: str, options: LoadOptions | None = None) -> LoadInfo:
        options = options or LoadOptions()
        info: LoadInfo = self._call("load", model_dir, options)
        self._last_load = (model_dir, options)
        self.info = info
        return info

    def unload(self) -> None:
        self._last_load = None
        self.info = None
        if self._proc is not None and self._proc.is_alive():
            self._call("unload")

    def count_tokens(self, messages: Sequence[ChatMessage]) -> int:
        self._reload_if_restarted()
        return int(self._call("count", list(messages)))

    def cancel(self) -> None:
        self._cancel.set()

    def generate(
        self, messages: Sequence[ChatMessage], options: GenerationOptions | None = None
    ) -> Iterator[StreamEvent]:
        self._reload_if_restarted()
        conn = self._ensure_started()
        self._cancel.clear()
        try:
            conn.send(("generate", list(messages), options or GenerationOptions()))
        except (OSError, BrokenPipeError) as exc:
            raise self._crashed() from exc
        return self._events(conn)

    def _events(self, conn: multiprocessing.connection.Connection) -> Iterator[StreamEvent]:
        finished = False
        try:
            while True:
                try:
                    reply = conn.recv()
                except (EOFError, OSError) as exc:
                    finished = True
                    raise self._crashed() from exc
                if reply[0] == "event":
                    event: TextDelta | TurnFinished = reply[1]
                    yield event
                    continue
                finished = True
                self._unwrap(reply)
                return
        finally:
            if not finished and self._conn is conn:
                # The caller stopped reading early: stop the turn and drain the pipe so the next call starts clean.
                self._cancel.set()
                try:
                    while conn.recv()[0] == "event":
                        pass
                except (EOFError, OSError):
                    self._discard()

    def close(self) -> None:
        if self._proc is not None and self._proc.is_alive() and self._conn is not None:
            try:
                self._conn.send(("quit",))
                if self._conn.poll(5):
                    self._conn.recv()
            except (EOFError, OSError):
                pass
        self._discard()
