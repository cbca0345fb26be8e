"""Run one engine turn to its end, optionally pressing Stop after N pieces of text."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from localmind.engine.types import ChatMessage, GenerationOptions, TextDelta, TurnFinished


class Generating(Protocol):
    """Any engine: LocalEngine, EngineProcess, RemoteEngine, RoutingEngine."""

    def generate(self, messages: list[ChatMessage], options: GenerationOptions) -> Iterable[object]: ...

    def cancel(self) -> None: ...


def run_pieces(
    engine: Generating, messages: list[ChatMessage], options: GenerationOptions, cancel_after: int | None = None
) -> tuple[list[str], TurnFinished]:
    """The reply's pieces of text as they arrived and how the turn finished; ``cancel_after`` presses Stop once
    that many pieces arrived."""
    pieces: list[str] = []
    finished = None
    for event in engine.generate(messages, options):
        if isinstance(event, TextDelta):
            pieces.append(event.text)
            if cancel_after is not None and len(pieces) == cancel_after:
                engine.cancel()
        elif isinstance(event, TurnFinished):
            finished = event
    assert finished is not None
    return pieces, finished


def run_turn(
    engine: Generating, messages: list[ChatMessage], options: GenerationOptions, cancel_after: int | None = None
) -> tuple[str, TurnFinished]:
    """The reply's text and how the turn finished; ``cancel_after`` cancels once that many pieces arrived."""
    pieces, finished = run_pieces(engine, messages, options, cancel_after)
    return "".join(pieces), finished
