"""A client that hangs up just as its turn begins: the Stop must reach the engine, never be lost.

The moment is made exact, not timed: the engine lease (the real interface the app and ``localmind serve`` use)
hands out the real tiny-model engine behind a thin wrapper that pauses the turn's start at a chosen point until
the test, on the event loop like a real hang-up, has cancelled the request.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from localmind.engine.local import LocalEngine
from localmind.engine.types import (
    ChatEngine,
    ChatMessage,
    FinishReason,
    GenerationOptions,
    LoadOptions,
    StreamEvent,
    TextDelta,
    TurnFinished,
)
from localmind.server.scheduler import Job, Scheduler
from tests.helpers.tiny_model import REPLIES

GREEDY = GenerationOptions(temperature=0)


class PausingEngine:
    """The real engine; ``generate`` stops at ``where`` ("before" or "after" the engine's own start, which clears
    its Stop flag) until ``resume`` is set. Everything else goes straight through."""

    def __init__(self, engine: LocalEngine, where: str | None) -> None:
        self.engine, self.where = engine, where
        self.paused, self.resume = threading.Event(), threading.Event()

    def _pause(self, here: str) -> None:
        if self.where == here:
            self.where = None  # once
            self.paused.set()
            assert self.resume.wait(30)

    def generate(self, messages: Sequence[ChatMessage], options: GenerationOptions) -> Iterator[StreamEvent]:
        self._pause("before")
        events = self.engine.generate(messages, options)
        self._pause("after")
        return events

    def cancel(self) -> None:
        self.engine.cancel()


@pytest.fixture(scope="module")
def engine(tiny_model: Path) -> Iterator[LocalEngine]:
    e = LocalEngine()
    e.load(str(tiny_model), LoadOptions(device="cpu"))
    yield e
    e.close()


async def events_of(job: Job) -> list[StreamEvent]:
    out = []
    async for event in job.events():
        out.append(event)
    return out


@pytest.mark.parametrize("where", ["lease", "before", "after"])
def test_a_hang_up_as_the_turn_begins_stops_it(engine: LocalEngine, where: str) -> None:
    wrapper = PausingEngine(engine, where if where != "lease" else None)
    lease_paused, lease_resume = threading.Event(), threading.Event()

    @contextlib.contextmanager
    def lease() -> Iterator[ChatEngine]:
        if where == "lease":  # the app's lease waits for the window's turn to end
            lease_paused.set()
            assert lease_resume.wait(30)
        yield wrapper  # type: ignore[misc]

    paused, resume = (lease_paused, lease_resume) if where == "lease" else (wrapper.paused, wrapper.resume)

    async def scenario() -> tuple[list[StreamEvent], list[StreamEvent]]:
        scheduler = Scheduler(lease)
        try:
            job = scheduler.submit([ChatMessage("user", "Tell me everything.")], GREEDY, "client-a")
            assert await asyncio.to_thread(paused.wait, 30)
            job.cancel()  # the hang-up, handled on the event loop as the server does
            resume.set()
            hung_up = await asyncio.wait_for(events_of(job), 30)
            # The next request is answered in full: the engine was not left stopped.
            after = scheduler.submit([ChatMessage("user", "hi")], GREEDY, "client-b")
            return hung_up, await asyncio.wait_for(events_of(after), 30)
        finally:
            scheduler.close()

    hung_up, after = asyncio.run(scenario())
    assert not [e for e in hung_up if isinstance(e, TextDelta)], "the cancelled turn streamed text"
    finished = [e for e in hung_up if isinstance(e, TurnFinished)]
    # Not run at all, or stopped before its first token.
    assert finished == [] or (finished[0].reason is FinishReason.CANCELLED and finished[0].stats.generated_tokens == 0)
    assert "".join(e.text for e in after if isinstance(e, TextDelta)) in REPLIES
    assert isinstance(after[-1], TurnFinished) and after[-1].reason is FinishReason.END_OF_TURN
