"""API turns as jobs of the engine service: a thin async adapter for the server's event loop.

The engine service (engine/service.py) owns the engine and decides the order: the window's own turns first
(in the app), then API requests — round-robin by client, so one client sending many requests cannot starve
the others — then background reads. Beyond ``max_queue`` waiting API turns a request is refused at once (the
caller answers 429 with a Retry-After estimated from recent turns). A cancelled job (the client hung up)
leaves the queue, or, while it runs, stops the engine within one decode step.

Events come on the service's thread and are handed to the request's event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator, Sequence

from localmind.engine.service import (
    Dropped,
    EngineService,
    Failed,
    JobEvent,
    Priority,
    QueueFull,
    Started,
    Ticket,
    Turn,
    is_final,
)
from localmind.engine.types import ChatMessage, EngineError, GenerationOptions, StreamEvent, TurnFinished

__all__ = ["Job", "QueueFull", "Scheduler"]

_END = None


class Job:
    """One API turn: its events on the event loop, its times, and cancel."""

    def __init__(self, loop: asyncio.AbstractEventLoop, scheduler: Scheduler) -> None:
        self.loop = loop
        self._scheduler = scheduler
        self.ticket: Ticket | None = None
        self.error: BaseException | None = None  # what ended it, when the engine failed (the log says so)
        self._events: asyncio.Queue[StreamEvent | BaseException | None] = asyncio.Queue()

    @property
    def id(self) -> int:
        return self.ticket.id if self.ticket is not None else 0

    @property
    def queued_at(self) -> float:
        assert self.ticket is not None
        return self.ticket.queued_at

    @property
    def started_at(self) -> float | None:
        return self.ticket.started_at if self.ticket is not None else None

    @property
    def cancelled(self) -> threading.Event:
        assert self.ticket is not None
        return self.ticket.cancelled

    def _push(self, item: StreamEvent | BaseException | None) -> None:
        with contextlib.suppress(RuntimeError):  # the loop is gone (shutdown): nobody is listening any more
            self.loop.call_soon_threadsafe(self._events.put_nowait, item)

    def _on_event(self, event: JobEvent) -> None:
        """From the engine service's thread."""
        if isinstance(event, Started):
            return
        if is_final(event):
            self._scheduler._forget(self)
        if isinstance(event, Failed):
            error = event.error or EngineError.say("The engine ended the turn without saying why.")
            self.error = error
            self._push(error)
            self._push(_END)
        elif isinstance(event, Dropped):
            self._push(_END)
        elif isinstance(event, TurnFinished):
            self._push(event)
            self._push(_END)
        else:
            self._push(event)  # type: ignore[arg-type]

    async def events(self) -> AsyncIterator[StreamEvent]:
        """The turn's events; raises what the engine raised. Ends after ``TurnFinished``."""
        while True:
            item = await self._events.get()
            if item is None:
                return
            if isinstance(item, BaseException):
                raise item
            yield item
            if isinstance(item, TurnFinished):
                return

    async def drain(self) -> TurnFinished | None:
        """Read what is left of the turn (after a cancel); its ``TurnFinished`` if one comes."""
        finished = None
        while (item := await self._events.get()) is not None:
            if isinstance(item, TurnFinished):
                finished = item
        return finished

    def cancel(self) -> None:
        if self.ticket is not None:
            self.ticket.cancel()


class Scheduler:
    """The server's side of the engine service: submits API turns, and cancels its own at close."""

    def __init__(self, service: EngineService, max_queue: int = 16) -> None:
        self.service = service
        self.max_queue = max_queue
        self._jobs: set[Job] = set()
        self._lock = threading.RLock()
        self._closed = False

    @property
    def waiting(self) -> int:
        return self.service.waiting(Priority.API)

    @property
    def running(self) -> bool:
        return self.service.running is not None

    def health(self) -> str | None:
        """Why the engine cannot answer now (None: it can)."""
        return self.service.health()

    def submit(self, messages: Sequence[ChatMessage], options: GenerationOptions, client: str) -> Job:
        job = Job(asyncio.get_running_loop(), self)
        with self._lock:
            if self._closed:
                raise RuntimeError("the server is shutting down")
            job.ticket = self.service.submit(
                Turn(list(messages), options),
                priority=Priority.API,
                client=client,
                on_event=job._on_event,
                max_waiting=self.max_queue,
            )
            self._jobs.add(job)
        return job

    def cancel(self, job: Job) -> None:
        job.cancel()

    def _forget(self, job: Job) -> None:
        with self._lock:
            self._jobs.discard(job)

    def close(self, timeout: float = 10.0) -> None:
        """Stop this server's turns (waiting ones leave the queue; a running one stops within one step). The
        engine service stays: in the app it is the window's."""
        with self._lock:
            self._closed = True
            jobs, self._jobs = list(self._jobs), set()
        for job in jobs:
            job.cancel()
