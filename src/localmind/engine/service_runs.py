"""How the engine service runs each kind of job on the engine (its own thread; see engine/service.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from localmind.engine.service import (
    CountTokens,
    Dropped,
    Failed,
    JobEvent,
    Load,
    Read,
    Result,
    Ticket,
    Turn,
    Unload,
)
from localmind.engine.types import ReadsAhead, TurnFinished

if TYPE_CHECKING:
    from localmind.engine.service import EngineService


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
    return Result(int(engine.prefill(job.messages, job.draft, epoch, whole=job.whole)))
