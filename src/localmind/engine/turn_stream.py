"""One turn's stream from the engine child, with the watchdog's outcomes turned into what the caller sees.

Stop that the child does not honour in time, a command a frozen child never took, a stall: each ends in a
killed child and a fresh one reloading the model (engine/process.py); the turn itself ends as cancelled, is
sent once more to the fresh child, or fails with a message that says what happened.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

from localmind.engine import protocol as p
from localmind.engine.types import EngineError, FinishReason, StreamEvent, TextDelta, TurnFinished, TurnStats
from localmind.engine.watchdog import Hung

_HUNG = "The engine stopped responding, so LocalMind restarted it."
_HUNG_HINT = "Send your message again; if it keeps happening, try a smaller model or the CPU."


class _Retry(Exception):
    """The command was never taken: send it again, once, to the fresh child."""


class TurnStream:
    def __init__(self, engine: Any, command: p.Generate) -> None:
        """``engine``: the EngineProcess whose child runs the turn (its pipe, watchdog and restart)."""
        self._engine = engine
        self._command = command
        self._started = time.perf_counter()
        self._first: float | None = None
        self._deltas = 0

    def _cancelled(self) -> TurnFinished:
        # The child was killed: what the parent saw is all it knows of the turn.
        now = time.perf_counter()
        return TurnFinished(
            FinishReason.CANCELLED,
            TurnStats(
                generated_tokens=self._deltas,
                time_to_first_token_s=(self._first - self._started) if self._first else 0.0,
                total_s=now - self._started,
            ),
        )

    def events(self) -> Iterator[StreamEvent]:
        engine = self._engine
        with engine._locked():
            try:
                engine._ready_for_work(cancellable=True)
            except Hung:
                # Stopped while a fresh child was still loading: the load goes on, the turn ends.
                yield self._cancelled()
                return
            for attempt in (1, 2):
                try:
                    yield from self._attempt(attempt)
                    return
                except _Retry:
                    continue

    def _attempt(self, attempt: int) -> Iterator[StreamEvent]:
        engine = self._engine
        conn = engine._ensure_started()
        finished = False
        try:
            beats = engine._send(conn, self._command)
            while True:
                reply = engine._receive(conn, beats, cancellable=True, stall=True)
                if not isinstance(reply, p.Event):
                    finished = True
                    engine._unwrap(reply)
                    return
                event = reply.event
                if isinstance(event, TextDelta):
                    self._deltas += 1
                    self._first = self._first or time.perf_counter()
                elif event.reloaded is not None:
                    engine._after_device_fallback(event.reloaded)
                yield event
        except (EOFError, OSError) as exc:
            finished = True
            raise engine._crashed() from exc
        except EngineError:
            finished = True
            raise
        except Hung as hung:
            finished = True
            yield from self._hung(hung, attempt)
        finally:
            if not finished and engine._conn is conn:
                engine._drain(conn)

    def _hung(self, hung: Hung, attempt: int) -> Iterator[StreamEvent]:
        engine = self._engine
        engine._kill_and_restart()
        if hung.why == "cancel":
            yield self._cancelled()
            return
        if hung.why == "ack" and attempt == 1:
            try:
                engine._settle_pending_load(cancellable=True)
            except Hung:
                yield self._cancelled()
                return
            raise _Retry()
        raise EngineError.say(_HUNG, _HUNG_HINT) from None
