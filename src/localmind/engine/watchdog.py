"""The parent's wait on the engine child: never blind (see engine/process.py's docstring for the rules).

It reads the pipe in short slices and watches the child's heartbeat (a shared counter bumped when it takes a
command and at every prefill chunk and decode step), and gives up — raising :class:`Hung` — when Stop was not
honoured within the grace, a command was not taken, a turn stalled, or a preempted read went silent.
"""

from __future__ import annotations

import multiprocessing.connection
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from localmind.engine import protocol as p

STARTUP_TIMEOUT_S = 60.0  # a fresh child imports numpy and og before it takes anything
POLL_S = 0.05


class Hung(Exception):
    """The child did not answer in time; ``why`` is "cancel", "ack" or "stall"."""

    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


@dataclass
class Limits:
    cancel_grace_s: float
    ack_timeout_s: float
    stall_timeout_s: float
    preempt_patience_s: float


class Watch:
    """One wait for the child's next reply."""

    def __init__(
        self,
        beats: Any,
        sent_beats: int,
        limits: Limits,
        *,
        cancel_at: Callable[[], float | None] | None,
        stall: bool,
        preempted: Callable[[], bool] | None = None,
    ) -> None:
        self._beats = beats
        self._sent_beats = sent_beats
        self._limits = limits
        self._cancel_at = cancel_at
        self._stall = stall
        self._preempted = preempted
        self._sent_at = self._last_progress = time.monotonic()
        self._last_beats = sent_beats
        self._ready = sent_beats > 0
        self._acked = False
        self._longest_gap = 0.0  # between heartbeats: how long one chunk takes on this machine right now

    def reply(self, conn: multiprocessing.connection.Connection, check_open: Callable[[], None]) -> p.Reply:
        """The next reply; ``check_open`` raises if the engine is being closed meanwhile."""
        while True:
            check_open()
            if conn.poll(POLL_S):
                reply: p.Reply = conn.recv()
                return reply
            self._check(time.monotonic())

    def _check(self, now: float) -> None:
        beats = int(self._beats.value)
        if beats != self._last_beats:
            if not self._ready:
                self._ready, self._sent_at = True, now  # now it is listening: the ready beat, then the taken beat
                self._acked = beats >= 2
            else:
                self._acked = True
            if self._acked and self._last_beats > self._sent_beats:
                self._longest_gap = max(self._longest_gap, now - self._last_progress)
            self._last_beats, self._last_progress = beats, now
        limits = self._limits
        cancel_at = self._cancel_at() if self._cancel_at is not None else None
        if cancel_at is not None and now - cancel_at >= limits.cancel_grace_s:
            raise Hung("cancel")
        if self._preempted is not None and self._preempted():
            # Reading ahead is only speculative, but killing a child that is merely slow costs a reload: wait for
            # the chunk in flight unless the heartbeat has been silent for much longer than a chunk takes. A chunk
            # on a loaded machine can take seconds, and the first pass of a fresh session longer.
            patience = max(limits.preempt_patience_s, 5 * self._longest_gap)
            if now - self._last_progress >= patience:
                raise Hung("cancel")
        if not self._acked and now - self._sent_at >= (limits.ack_timeout_s if self._ready else STARTUP_TIMEOUT_S):
            raise Hung("ack")
        if self._stall and self._acked and now - self._last_progress >= limits.stall_timeout_s:
            raise Hung("stall")

    @property
    def silent_for(self) -> float:
        return time.monotonic() - self._last_progress
