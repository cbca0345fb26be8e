"""A conversation that does not fit the context is refused (OpenAI's 400 ``context_length_exceeded``) unless the
request asked for the window's policy of leaving out its oldest turns (``GenerationOptions.drop_oldest``).

The engine drops the oldest turns by itself; this wraps it for the server, counting the prompt's tokens with the
engine's own ``count_tokens`` and the same room for a reply the engine keeps, so a refused request is exactly one the
engine would have cut. (Once the engine refuses by itself when ``drop_oldest`` is False, this becomes a no-op.)
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from localmind.engine.types import ChatEngine, ChatMessage, ContextLengthExceededError, GenerationOptions, StreamEvent
from localmind.server.scheduler import EngineLease

# The engine's least room for a reply (engine.local.MIN_REPLY_RESERVE; not imported: it loads numpy and og).
MIN_REPLY_RESERVE = 32


def reply_reserve(budget: int, max_new_tokens: int) -> int:
    """The room the engine keeps for the reply when it fits a conversation into ``budget`` tokens."""
    return max(MIN_REPLY_RESERVE, min(max_new_tokens, budget // 4))


def context_exceeded(prompt_tokens: int, reserve: int, budget: int) -> ContextLengthExceededError:
    # OpenAI's own words, in English whatever the user's language: API clients and their users know them.
    error = ContextLengthExceededError(
        f"This model's maximum context length is {budget} tokens. However, you requested "
        f"{prompt_tokens + reserve} tokens ({prompt_tokens} in the messages, {reserve} in the completion). "
        "Please reduce the length of the messages or completion.",
        hint="Send a shorter conversation, a smaller max_tokens, or drop_oldest_messages: true to leave out its "
        "oldest turns.",
    )
    error.values = {"prompt_tokens": str(prompt_tokens), "max_context": str(budget)}
    return error


class _Checked:
    """The engine, with ``generate`` refusing what does not fit when dropping is not allowed."""

    def __init__(self, engine: ChatEngine, budget: int) -> None:
        self._engine = engine
        self._budget = budget

    def generate(self, messages: Sequence[ChatMessage], options: GenerationOptions) -> Iterator[StreamEvent]:
        if not options.drop_oldest and self._budget > 0:
            count = self._engine.count_tokens(messages)
            reserve = reply_reserve(self._budget, options.max_new_tokens)
            if count + reserve > self._budget:
                raise context_exceeded(count, reserve, self._budget)
        return self._engine.generate(messages, options)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._engine, name)


def checked_lease(lease: EngineLease, budget: Callable[[], int]) -> EngineLease:
    """``lease`` whose engine refuses conversations that do not fit ``budget()`` tokens (see the module)."""

    @contextlib.contextmanager
    def checked() -> Iterator[ChatEngine]:
        with lease() as engine:
            yield _Checked(engine, budget())

    return checked
