"""A client that hangs up just as its turn begins: the Stop must reach the engine, never be lost.

The moment is made exact, not timed: the engine service (the real owner the app and ``localmind serve`` use)
runs the real tiny-model engine behind a thin wrapper that pauses the turn's start at a chosen point — or, for
"queued", runs a window turn first that holds the engine — until the test, on the event loop like a real
hang-up, has cancelled the request.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from localmind.engine.local import LocalEngine
from localmind.engine.service import EngineService, Priority, Turn
from localmind.engine.types import (
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

    def close(self) -> None:
        pass  # the module's engine outlives each test's service


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


@pytest.mark.parametrize("where", ["queued", "before", "after"])
def test_a_hang_up_as_the_turn_begins_stops_it(engine: LocalEngine, where: str) -> None:
    wrapper = PausingEngine(engine, "before" if where == "queued" else where)

    async def scenario() -> tuple[list[StreamEvent], list[StreamEvent]]:
        service = EngineService(wrapper)  # type: ignore[arg-type]
        scheduler = Scheduler(service)
        try:
            if where == "queued":  # the window's turn holds the engine; the API request waits behind it
                window = service.submit(Turn([ChatMessage("user", "hi")], GREEDY), priority=Priority.WINDOW)
                assert await asyncio.to_thread(wrapper.paused.wait, 30)
            job = scheduler.submit([ChatMessage("user", "Tell me everything.")], GREEDY, "client-a")
            if where != "queued":
                assert await asyncio.to_thread(wrapper.paused.wait, 30)
            job.cancel()  # the hang-up, handled on the event loop as the server does
            wrapper.resume.set()
            hung_up = await asyncio.wait_for(events_of(job), 30)
            if where == "queued":
                assert job.started_at is None, "the cancelled request ran"
                assert list(window.events(timeout=30))[-1].reason is FinishReason.END_OF_TURN  # type: ignore[union-attr]
            # The next request is answered in full: the engine was not left stopped.
            after = scheduler.submit([ChatMessage("user", "hi")], GREEDY, "client-b")
            return hung_up, await asyncio.wait_for(events_of(after), 30)
        finally:
            scheduler.close()
            service.close()

    hung_up, after = asyncio.run(scenario())
    assert not [e for e in hung_up if isinstance(e, TextDelta)], "the cancelled turn streamed text"
    finished = [e for e in hung_up if isinstance(e, TurnFinished)]
    # Not run at all, or stopped before its first token.
    assert finished == [] or (finished[0].reason is FinishReason.CANCELLED and finished[0].stats.generated_tokens == 0)
    assert "".join(e.text for e in after if isinstance(e, TextDelta)) in REPLIES
    assert isinstance(after[-1], TurnFinished) and after[-1].reason is FinishReason.END_OF_TURN
