"""The engine process's own side: one command at a time from the pipe, replies back on it (engine/protocol.py).

Cancel is a flag in shared memory the parent sets from any thread; every check of it (each prefill chunk and
decode step) is also a heartbeat the parent's watchdog reads (engine/watchdog.py).
"""

from __future__ import annotations

import multiprocessing.connection
import os
import signal
import sys
import threading
from typing import Any

from localmind import startup_trace
from localmind.engine import protocol as p

RESERVE_GRACE_S = 0.1  # after serve's first turn, how long the child waits for a next request before reserving


class SharedFlag:
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


class Heartbeat(SharedFlag):
    """The child's cancel flag: every check (each prefill chunk and decode step) is also a heartbeat."""

    def __init__(self, value: Any, beats: Any) -> None:
        super().__init__(value)
        self._beats = beats

    def beat(self) -> None:
        self._beats.value += 1  # one writer (the child); the parent only reads

    def is_set(self) -> bool:
        self.beat()
        return super().is_set()


class _Child:
    """The engine and the pipe, in the child."""

    def __init__(self, conn: multiprocessing.connection.Connection, heartbeat: Heartbeat, epoch: Any) -> None:
        from localmind.engine.local import LocalEngine

        self.conn = conn
        self.heartbeat = heartbeat
        self.engine = LocalEngine(cancel_flag=heartbeat, typeahead_epoch=epoch)

    def run(self) -> None:
        self.heartbeat.beat()  # ready
        while True:
            try:
                command = self.conn.recv()
            except (EOFError, OSError):
                return
            self.heartbeat.beat()  # taken
            try:
                if isinstance(command, p.Quit):
                    self.conn.send(p.Done())
                    return
                self._do(command)
            except Exception as exc:  # a user-facing error, or a bug / og failure we did not foresee: keep serving
                self.conn.send(p.Failed.of(exc))

    def _do(self, command: p.Command) -> None:
        engine, beat = self.engine, self.heartbeat.beat
        if isinstance(command, p.Load):
            startup_trace.trace("engine-loading", startup_trace.web_framework_loaded())
            startup_trace.wait_for_load_gate()
            info = engine.load(command.model_dir, command.options)
            startup_trace.trace("engine-loaded")
            self.conn.send(p.Done(info))
            engine.prepare_first_turn()  # while the parent gets ready: the first message does not wait for it
            beat()
        elif isinstance(command, p.Unload):
            engine.unload()
            self.conn.send(p.Done())
        elif isinstance(command, p.Prefill):
            read = engine.prefill(command.messages, command.draft, command.epoch, on_chunk=beat, whole=command.whole)
            self.conn.send(p.Done(read))
        elif isinstance(command, p.CountTokens):
            self.conn.send(p.Done(engine.count_tokens(command.messages)))
        elif isinstance(command, p.Generate):
            for event in engine.generate(command.messages, command.options, reset_cancel=False):
                self.conn.send(p.Event(event))
            self.conn.send(p.Done())
            # Serve's first turn had a KV buffer of its own size; the budget's is made once nothing waits (a
            # request queued behind this one is sent within milliseconds: it does not wait for the buffer).
            if engine.kv_pending and not self.conn.poll(RESERVE_GRACE_S):
                if engine.reserve_kv(on_chunk=beat):
                    startup_trace.trace("engine-reserved")
                beat()
        else:
            self.conn.send(p.Failed(p.ErrorKind.ENGINE, f"Unknown engine command {command!r}."))


def serve(
    conn: multiprocessing.connection.Connection, cancel: Any, beats: Any, epoch: Any, data_dir: str | None
) -> None:
    """The child's main: one request at a time from ``conn``; replies go back on it."""
    # Ctrl+C in a terminal reaches the whole process group: the parent ends this process (a traceback from here
    # was all the child added).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
    if data_dir:
        from localmind import paths

        paths.set_data_dir(data_dir)
    _Child(conn, Heartbeat(cancel, beats), epoch).run()


def serve_forked(
    parent_end: multiprocessing.connection.Connection,
    conn: multiprocessing.connection.Connection,
    cancel: Any,
    beats: Any,
    epoch: Any,
    data_dir: str | None,
) -> None:
    """``serve`` in a forked child: first close the parent's end of the pipe, which the fork copied (held open
    here, the child would never see the parent go away)."""
    parent_end.close()
    serve(conn, cancel, beats, epoch, data_dir)


def can_fork() -> bool:
    """Whether a child may be forked from this process: Linux, and no thread besides this one (a fork copies
    only the calling thread, and a lock another thread held stays locked in the child forever)."""
    return sys.platform.startswith("linux") and threading.active_count() == 1
