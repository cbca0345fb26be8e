"""One engine, many clients: a fair, bounded queue in front of it.

The engine runs one turn at a time (one model, one KV cache), in a thread of its own so the event loop keeps
serving. Waiting turns are taken round-robin by client, so one client sending many requests cannot starve the
others; beyond ``max_queue`` waiting turns a request is refused at once (the caller answers 429 with a
Retry-After estimated from recent turns). A cancelled job (the client hung up) leaves the queue, or, while it
runs, stops the engine within one decode step — but only if it is still the one running.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import math
import threading
import time
from collections import OrderedDict, deque
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field

from localmind.engine.types import ChatEngine, ChatMessage, GenerationOptions, StreamEvent, TurnFinished

log = logging.getLogger(__name__)

EngineLease = Callable[[], AbstractContextManager[ChatEngine]]
"""Exclusive use of the engine for one turn. ``localmind serve`` owns its engine; the app shares the window's."""


class QueueFull(Exception):
    def __init__(self, waiting: int, retry_after_s: int) -> None:
        super().__init__(f"{waiting} requests are already waiting")
        self.waiting = waiting
        self.retry_after_s = retry_after_s


_ids = itertools.count(1)


@dataclass(eq=False)
class Job:
    messages: list[ChatMessage]
    options: GenerationOptions
    client: str
    loop: asyncio.AbstractEventLoop
    id: int = field(default_factory=lambda: next(_ids))
    queued_at: float = field(default_factory=time.perf_counter)
    started_at: float | None = None
    cancelled: threading.Event = field(default_factory=threading.Event)
    _events: asyncio.Queue[StreamEvent | BaseException | None] = field(default_factory=asyncio.Queue)
    _scheduler: Scheduler | None = None

    def _push(self, item: StreamEvent | BaseException | None) -> None:
        with contextlib.suppress(RuntimeError):  # the loop is gone (shutdown): nobody is listening any more
            self.loop.call_soon_threadsafe(self._events.put_nowait, item)

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
        if self._scheduler is not None:
            self._scheduler.cancel(self)


class Scheduler:
    def __init__(self, lease: EngineLease, max_queue: int = 16) -> None:
        self._lease = lease
        self.max_queue = max_queue
        self._cond = threading.Condition()
        self._waiting: OrderedDict[str, deque[Job]] = OrderedDict()  # client -> its jobs; order = whose turn
        self._running: Job | None = None
        self._engine: ChatEngine | None = None
        self._durations: deque[float] = deque(maxlen=20)
        self._closed = False
        self._thread = threading.Thread(target=self._work, name="localmind-server-engine", daemon=True)
        self._thread.start()

    # -- called from the event loop ------------------------------------------------------------------------------
    @property
    def waiting(self) -> int:
        with self._cond:
            return sum(len(q) for q in self._waiting.values())

    @property
    def running(self) -> bool:
        with self._cond:
            return self._running is not None

    def submit(self, messages: Sequence[ChatMessage], options: GenerationOptions, client: str) -> Job:
        job = Job(list(messages), options, client, asyncio.get_running_loop())
        job._scheduler = self
        with self._cond:
            if self._closed:
                raise RuntimeError("the server is shutting down")
            waiting = sum(len(q) for q in self._waiting.values())
            busy = self._running is not None or waiting > 0
            if busy and waiting >= self.max_queue:
                raise QueueFull(waiting, self._retry_after(waiting))
            self._waiting.setdefault(client, deque()).append(job)
            self._cond.notify_all()
        return job

    def _retry_after(self, waiting: int) -> int:
        typical = sorted(self._durations)[len(self._durations) // 2] if self._durations else 1.0
        return max(1, math.ceil(typical * (waiting + 1)))

    def cancel(self, job: Job) -> None:
        job.cancelled.set()
        with self._cond:
            queue = self._waiting.get(job.client)
            if queue is not None and job in queue:
                queue.remove(job)
                if not queue:
                    del self._waiting[job.client]
                job._push(None)
                return
            if self._running is job and self._engine is not None:
                self._engine.cancel()

    def close(self, timeout: float = 10.0) -> None:
        with self._cond:
            self._closed = True
            for queue in self._waiting.values():
                for job in queue:
                    job.cancelled.set()
                    job._push(None)
            self._waiting.clear()
            if self._running is not None:
                self._running.cancelled.set()
                if self._engine is not None:
                    self._engine.cancel()
            self._cond.notify_all()
        self._thread.join(timeout)

    # -- the engine thread ---------------------------------------------------------------------------------------
    def _take(self) -> Job | None:
        with self._cond:
            while not self._waiting and not self._closed:
                self._cond.wait()
            if self._closed:
                return None
            client, queue = next(iter(self._waiting.items()))
            job = queue.popleft()
            del self._waiting[client]
            if queue:  # the client has more: it goes to the back of the line
                self._waiting[client] = queue
            return job

    def _work(self) -> None:
        while (job := self._take()) is not None:
            started = time.perf_counter()
            try:
                with self._lease() as engine:
                    self._run(job, engine)
            except BaseException as exc:  # the client gets the error; this thread keeps serving
                job._push(exc)
            finally:
                job._push(None)  # always last: the end of the job's events
                with self._cond:
                    self._running = None
                    self._engine = None
                self._durations.append(time.perf_counter() - started)

    def _run(self, job: Job, engine: ChatEngine) -> None:
        if job.cancelled.is_set():  # hung up while it waited (for the engine, in the app)
            return
        # Engines clear their Stop flag when a turn starts. So start it first and only then show it as running:
        # a cancel from then on reaches the engine after that clear; one that came in between is seen below.
        # (The other way round, a hang-up landing between the two was wiped by the clear and the turn ran on.)
        events: Iterator[StreamEvent] = engine.generate(job.messages, job.options)
        with self._cond:
            self._running, self._engine = job, engine
            job.started_at = time.perf_counter()
            if job.cancelled.is_set():
                engine.cancel()
        for event in events:
            if job.cancelled.is_set():
                engine.cancel()  # also covers a cancel that came before the engine cleared its flag
            job._push(event)
            if isinstance(event, TurnFinished):
                return
