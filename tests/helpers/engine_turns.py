"""Run one engine turn to its end, optionally pressing Stop after N pieces of text."""

from __future__ import annotations

from localmind.engine.local import LocalEngine
from localmind.engine.types import ChatMessage, GenerationOptions, TextDelta, TurnFinished


def run_turn(
    engine: LocalEngine, messages: list[ChatMessage], options: GenerationOptions, cancel_after: int | None = None
) -> tuple[str, TurnFinished]:
    """The reply's text and how the turn finished; ``cancel_after`` cancels once that many pieces arrived."""
    parts: list[str] = []
    finished = None
    for event in engine.generate(messages, options):
        if isinstance(event, TextDelta):
            parts.append(event.text)
            if cancel_after is not None and len(parts) == cancel_after:
                engine.cancel()
        else:
            finished = event
    assert finished is not None
    return "".join(parts), finished
