"""The engine service: the one owner of the engine. Every client submits typed jobs; nobody locks the engine.

Clients — the window's turns and loads, type-ahead and warm-reopen reads (and documents reads), the window's API
server, ``localmind serve``, the terminal chat — call :meth:`EngineService.submit` with a job (:class:`Turn`,
:class:`Read`, :class:`CountTokens`, :class:`Load`, :class:`Unload`), a :class:`Priority` and a client id. One
thread of the service runs the jobs on the engine, one at a time (one model, one KV cache):

* the highest priority waiting goes first: the window > an API request > background reads;
* within a priority, clients take turns (round-robin): one API client sending many requests cannot starve another;
* a job of a higher priority arriving while a background read runs stops that read at its next chunk (the read
  is only speculative; what it read stays in the cache);
* a read may ``supersede`` an older one of the same client and key (the next keystroke's read replaces the last);
* :meth:`Ticket.cancel` removes a waiting job, or stops a running one within one engine step (a token or a read
  chunk: the engine child checks a shared flag at each);
* an optional bound on waiting jobs of a priority (the API's queue) refuses more with :class:`QueueFull`, which
  carries a Retry-After estimated from recent jobs.

Each job reports typed events to its own callback (on the service's thread) or, without one, to an iterator:
:class:`Started`, then for a turn the engine's ``TextDelta``s and its ``TurnFinished``; for other jobs a
:class:`Result`; or :class:`Failed` / :class:`Dropped`. Exactly one of ``TurnFinished``, :class:`Result`,
:class:`Failed`, :class:`Dropped` ends every job.
"""

from __future__ import annotations

import itertools
import logging
import math
import queue
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Iterator
from typing import Any

from localmind.engine.jobs import (
    CountTokens,
    Dropped,
    Failed,
    Job,
    JobEvent,
    Load,
    Priority,
    QueueFull,
    Read,
    Result,
    Started,
    Turn,
    Unload,
    is_final,
)
from localmind.engine.types import ChatEngine, EngineError, ReadsAhead, Recovers, TurnFinished

log = logging.getLogger(__name__)

IDLE_CHECK_S = 1.0  # how often an idle service looks whether a failed reload is due again

_ids = itertools.count(1)
_HEAL: Any = object()


class Ticket:
    """A submitted job: its id, its times, and the way to cancel it or read its events."""

    def __init__(
        self,
        service: EngineService,
        job: Job,
        priority: Priority,
        client: str,
        on_event: Callable[[JobEvent], None] | None,
    ) -> None:
        self.id = next(_ids)
        self.job, self.priority, self.client = job, priority, client
        self.queued_at = time.perf_counter()
        self.started_at: float | None = None
        self.ended = False
        self.cancelled = threading.Event()
        self._service = service
        self._queue: queue.SimpleQueue[Any] | None = None if on_event else queue.SimpleQueue()
        self._on_event = on_event

    def cancel(self) -> bool:
        """Stop the job; returns True if it was still waiting (then it never runs, and ends with Dropped)."""
        return self._service.cancel(self.id)

    def _emit(self, event: JobEvent) -> None:
        if self._on_event is not None:
            try:
                self._on_event(event)
            except Exception:  # a client's bug must not take the engine's thread down
                log.exception("an engine service client failed on %s", type(event).__name__)
        else:
            assert self._queue is not None
            self._queue.put(event)

    def events(self, timeout: float | None = None) -> Iterator[JobEvent]:
        """The job's events as they come, up to and including the one that ends it (without a callback only)."""
        assert self._queue is not None, "this job reports to its callback"
        while True:
            event = self._queue.get(timeout=timeout)
            yield event
            if is_final(event):
                return


class EngineService:
    """The one owner of ``engine`` (see the module docstring). ``close`` ends its thread and closes the engine."""

    def __init__(self, engine: ChatEngine, *, name: str = "localmind-engine-service") -> None:
        self.engine = engine
        self._cond = threading.Condition()
        self._waiting: dict[Priority, OrderedDict[str, deque[Ticket]]] = {p: OrderedDict() for p in Priority}
        self._tickets: dict[int, Ticket] = {}
        self._running: Ticket | None = None
        self._read_epoch: int | None = None  # the epoch the running read was started with
        self._durations: dict[Priority, deque[float]] = {p: deque(maxlen=20) for p in Priority}
        self._listeners: list[Callable[[Ticket, bool], None]] = []
        self._closed = False
        self._thread = threading.Thread(target=self._work, name=name, daemon=True)
        self._thread.start()

    # -- any thread ---------------------------------------------------------------------------------------------------
    @property
    def reads_ahead(self) -> bool:
        return isinstance(self.engine, ReadsAhead)

    def waiting(self, priority: Priority | None = None) -> int:
        with self._cond:
            return self._count(priority)

    @property
    def running(self) -> Ticket | None:
        return self._running

    def health(self) -> str | None:
        """Why the engine cannot answer now (None: it can), where the engine says."""
        return self.engine.health() if isinstance(self.engine, Recovers) else None

    def on_running(self, listener: Callable[[Ticket, bool], None]) -> Callable[[], None]:
        """Call ``listener(ticket, True)`` when a job starts and ``(ticket, False)`` when it ends (service thread).
        Returns a function that removes it."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    def submit(
        self,
        job: Job,
        *,
        priority: Priority,
        client: str = "",
        on_event: Callable[[JobEvent], None] | None = None,
        max_waiting: int | None = None,
    ) -> Ticket:
        """Queue ``job``. ``max_waiting``: refuse it (QueueFull) if this many of its priority already wait while
        the engine is busy."""
        ticket = Ticket(self, job, priority, client, on_event)
        superseded: list[Ticket] = []
        with self._cond:
            if self._closed:
                raise RuntimeError("the engine service is closed")
            waiting = self._count(priority)
            busy = self._running is not None or waiting > 0
            if max_waiting is not None and busy and waiting >= max_waiting:
                raise QueueFull(waiting, self._retry_after(priority, waiting))
            if isinstance(job, Read) and job.supersede is not None:
                superseded = self._supersede(client, job.supersede)
            self._waiting[priority].setdefault(client, deque()).append(ticket)
            self._tickets[ticket.id] = ticket
            running = self._running
            if running is not None and isinstance(running.job, Read) and priority < running.priority:
                self._stop_read()  # a person or a program waits: the speculative read gives way at its next chunk
            self._cond.notify_all()
        for old in superseded:
            self._end(old, Dropped("superseded"))
        return ticket

    def run(self, job: CountTokens | Load | Unload | Read, *, priority: Priority, client: str = "") -> Any:
        """Submit ``job`` and wait for its result (a caller with nothing else to do: the terminal chat)."""
        ticket = self.submit(job, priority=priority, client=client)
        for event in ticket.events():
            if isinstance(event, Result):
                return event.value
            if isinstance(event, Failed):
                raise event.error or EngineError.say("The engine ended the job without saying why.")
            if isinstance(event, Dropped):
                raise EngineError.say("The engine service stopped the job before it ran.")
        raise AssertionError("unreachable")

    def cancel(self, job_id: int) -> bool:
        """Stop job ``job_id`` (see :meth:`Ticket.cancel`)."""
        with self._cond:
            ticket = self._tickets.get(job_id)
            if ticket is None:
                return False
            ticket.cancelled.set()
            if self._remove_waiting(ticket):
                removed = True
            else:
                removed = False
                if self._running is ticket:
                    self._stop_running(ticket)
        if removed:
            self._end(ticket, Dropped("cancelled"))
        return removed

    def close(self, timeout: float = 10.0) -> None:
        """Drop waiting jobs, stop the running one, end the thread and close the engine. Never hangs on an engine
        that does not answer: if the thread is still busy after ``timeout``, closing the engine kills its child."""
        with self._cond:
            self._closed = True
            dropped = [t for clients in self._waiting.values() for q in clients.values() for t in q]
            for clients in self._waiting.values():
                clients.clear()
            running = self._running
            if running is not None:
                running.cancelled.set()
                self._stop_running(running)
            self._cond.notify_all()
        if running is not None and isinstance(running.job, Read):
            # A speculative read (or the reload of a restarted child it waits for) is not worth waiting for when
            # everything closes: closing the engine from here ends it at once.
            self.engine.close()
        for ticket in dropped:
            ticket.cancelled.set()
            self._end(ticket, Dropped("closed"))
        self._thread.join(timeout)
        if self._thread.is_alive():
            self.engine.close()
            self._thread.join(timeout)
        self.engine.close()

    # -- under the lock -----------------------------------------------------------------------------------------------
    def _count(self, priority: Priority | None) -> int:
        groups = [self._waiting[priority]] if priority is not None else list(self._waiting.values())
        return sum(len(q) for clients in groups for q in clients.values())

    def _retry_after(self, priority: Priority, waiting: int) -> int:
        durations = sorted(self._durations[priority])
        typical = durations[len(durations) // 2] if durations else 1.0
        return max(1, math.ceil(typical * (waiting + 1)))

    def _supersede(self, client: str, key: str) -> list[Ticket]:
        old = [
            t
            for clients in self._waiting.values()
            for t in clients.get(client, ())
            if isinstance(t.job, Read) and t.job.supersede == key
        ]
        for ticket in old:
            self._remove_waiting(ticket)
        running = self._running
        job = running.job if running is not None and running.client == client else None
        if isinstance(job, Read) and job.supersede == key:
            self._stop_read()
        return old

    def _remove_waiting(self, ticket: Ticket) -> bool:
        clients = self._waiting[ticket.priority]
        line = clients.get(ticket.client)
        if line is None or ticket not in line:
            return False
        line.remove(ticket)
        if not line:
            del clients[ticket.client]
        return True

    def _stop_read(self) -> None:
        if self._read_epoch is not None and isinstance(self.engine, ReadsAhead):
            self.engine.preempt_prefill()
            self._read_epoch = None

    def _stop_running(self, ticket: Ticket) -> None:
        if isinstance(ticket.job, Read):
            self._stop_read()
        elif isinstance(ticket.job, Turn):
            self.engine.cancel()
        # A load, unload or count takes moments and cannot be stopped halfway: it ends, and reports.

    # -- the service's thread -----------------------------------------------------------------------------------------
    def _take(self) -> Ticket | Any | None:
        with self._cond:
            while not self._closed:
                for priority in Priority:
                    clients = self._waiting[priority]
                    if clients:
                        client, line = next(iter(clients.items()))
                        ticket = line.popleft()
                        del clients[client]
                        if line:  # the client has more: it goes to the back of the line
                            clients[client] = line
                        return ticket
                if not self._cond.wait(IDLE_CHECK_S) and self._reload_due():
                    return _HEAL
            return None

    def _reload_due(self) -> bool:
        return isinstance(self.engine, Recovers) and self.engine.reload_due()

    def _work(self) -> None:
        while (ticket := self._take()) is not None:
            if ticket is _HEAL:
                # Idle, and a reload that failed after a restart is due again (its files may be back): a job
                # submitted meanwhile waits for this one try.
                assert isinstance(self.engine, Recovers)
                self.engine.heal()
                continue
            started = time.perf_counter()
            try:
                final = run_job(self, ticket)
            except BaseException as exc:  # the client gets the error; this thread keeps serving
                final = Failed(exc)
            with self._cond:
                self._running = None
                self._read_epoch = None
            self._durations[ticket.priority].append(time.perf_counter() - started)
            for listener in list(self._listeners):
                listener(ticket, False)
            self._end(ticket, final)

    def _begin(self, ticket: Ticket) -> int | None:
        """Show ``ticket`` as running (after the engine cleared its Stop flag for a turn). Returns None if it was
        cancelled meanwhile (stopped then), else the read epoch it runs under (0 when not a read)."""
        with self._cond:
            self._running = ticket
            ticket.started_at = time.perf_counter()
            epoch = 0
            if isinstance(ticket.job, Read) and isinstance(self.engine, ReadsAhead):
                # Taken under the lock, like the preempt that bumps it: a job of a higher priority that came
                # since this read was taken, or comes from now on, stops it.
                epoch = self._read_epoch = self.engine.typeahead_epoch()
                if any(self._count(p) for p in Priority if p < ticket.priority):
                    ticket.cancelled.set()
            cancelled = ticket.cancelled.is_set()
            if cancelled:
                self._stop_running(ticket)
        ticket._emit(Started(ticket.id))
        for listener in list(self._listeners):
            listener(ticket, True)
        return None if cancelled else epoch

    def _end(self, ticket: Ticket, final: JobEvent) -> None:
        with self._cond:
            if ticket.ended:
                return
            ticket.ended = True
            self._tickets.pop(ticket.id, None)
        ticket._emit(final)


# -- running each kind of job (the service's thread) -------------------------------------------------------------


def run_job(service: EngineService, ticket: Ticket) -> JobEvent:
    """Run ``ticket``'s job; returns the event that ends it (exceptions are the caller's to report)."""
    if ticket.cancelled.is_set():  # cancelled between being taken and now
        return Dropped("cancelled")
    job = ticket.job
    if isinstance(job, Turn):
        return _turn(service, ticket, job)
    if isinstance(job, Read):
        return _read(service, ticket, job)
    engine = service.engine
    if service._begin(ticket) is None:
        return Dropped("cancelled")
    if isinstance(job, CountTokens):
        return Result(engine.count_tokens(job.messages))
    if isinstance(job, Load):
        if job.prepare is not None:
            job.prepare()
        return Result(engine.load(job.model_dir, job.options))
    if isinstance(job, Unload):
        engine.unload()
        return Result(None)
    raise TypeError(f"not an engine job: {job!r}")


def _turn(service: EngineService, ticket: Ticket, job: Turn) -> JobEvent:
    engine = service.engine
    # Engines clear their Stop flag when a turn starts. So start it first and only then show it as running: a
    # cancel from then on reaches the engine after that clear; one that came in between is seen by _begin.
    events = engine.generate(job.messages, job.options)
    service._begin(ticket)
    for event in events:
        if ticket.cancelled.is_set():
            engine.cancel()  # also covers a cancel that came before the engine cleared its flag
        if isinstance(event, TurnFinished):
            return event
        ticket._emit(event)
    return Failed(None)


def _read(service: EngineService, ticket: Ticket, job: Read) -> JobEvent:
    engine = service.engine
    if not isinstance(engine, ReadsAhead):
        return Result(0)
    epoch = service._begin(ticket)
    if epoch is None:
        return Dropped("cancelled")
    return Result(int(engine.prefill(job.messages, _draft(job), epoch, whole=job.whole)))


def _draft(job: Read) -> str:
    """The text the read reads after its messages: ``compose``'s (passages and the question) or the draft."""
    if job.compose is None:
        return job.draft
    try:
        composed = job.compose()
    except Exception:  # a read ahead is only a guess: a failing search reads the draft alone
        log.warning("could not compose the text to read ahead", exc_info=True)
        return job.draft
    return job.draft if composed is None else composed


__all__ = [
    "CountTokens",
    "Dropped",
    "EngineService",
    "Failed",
    "Job",
    "JobEvent",
    "Load",
    "Priority",
    "QueueFull",
    "Read",
    "Result",
    "Started",
    "Ticket",
    "Turn",
    "Unload",
    "is_final",
]
