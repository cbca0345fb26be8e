"""What crosses the pipe between the engine process and its parent: commands, replies and errors, as dataclasses.

The parent sends one command at a time; the child answers with zero or more :class:`Event` (a turn's stream)
and then one :class:`Done` or :class:`Failed`. All of it is plain picklable data.

A user-facing error crosses as :class:`Failed`: its kind (which exception class to rebuild), its English
message and hint, and the source texts and values ``UserFacingError.say`` kept, so the window shows it in the
user's language exactly as if it had been raised in the window's own process.
"""

from __future__ import annotations

import enum
import traceback
from dataclasses import dataclass, field
from typing import Any

from localmind.engine.types import (
    ChatMessage,
    ContextLengthExceededError,
    EngineError,
    GenerationOptions,
    GrammarError,
    LoadOptions,
    ModelLoadError,
    PromptTooLongError,
    StreamEvent,
)
from localmind.errors import UserFacingError

# -- commands (parent -> child) ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Load:
    model_dir: str
    options: LoadOptions


@dataclass(frozen=True)
class Unload:
    pass


@dataclass(frozen=True)
class Prefill:
    """Read ``messages`` (and ``draft``: all of it and the reply header with ``whole``) ahead of a turn; stops when
    the shared read epoch moves past ``epoch``."""

    messages: list[ChatMessage]
    draft: str
    epoch: int
    whole: bool = False


@dataclass(frozen=True)
class CountTokens:
    messages: list[ChatMessage]


@dataclass(frozen=True)
class Generate:
    messages: list[ChatMessage]
    options: GenerationOptions = field(default_factory=GenerationOptions)


@dataclass(frozen=True)
class Quit:
    pass


Command = Load | Unload | Prefill | CountTokens | Generate | Quit

# -- replies (child -> parent) -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Event:
    """One piece of a turn's stream (a ``TextDelta`` or the ``TurnFinished`` that ends it)."""

    event: StreamEvent


@dataclass(frozen=True)
class Done:
    """The command is over; ``value`` is its result (LoadInfo, a token count, None…)."""

    value: Any = None


class ErrorKind(enum.Enum):
    """Which exception the parent raises for a :class:`Failed`."""

    ENGINE = "engine"
    MODEL_LOAD = "model_load"
    CONTEXT_LENGTH_EXCEEDED = "context_length_exceeded"
    PROMPT_TOO_LONG = "prompt_too_long"
    GRAMMAR = "grammar"
    USER = "user"  # a plain UserFacingError


_CLASSES: tuple[tuple[ErrorKind, type[UserFacingError]], ...] = (
    # Most specific first: ContextLengthExceededError is a PromptTooLongError; it and GrammarError are EngineErrors.
    (ErrorKind.CONTEXT_LENGTH_EXCEEDED, ContextLengthExceededError),
    (ErrorKind.PROMPT_TOO_LONG, PromptTooLongError),
    (ErrorKind.GRAMMAR, GrammarError),
    (ErrorKind.MODEL_LOAD, ModelLoadError),
    (ErrorKind.ENGINE, EngineError),
    (ErrorKind.USER, UserFacingError),
)
# Numbers an error carries besides its words (the API answers with them), by kind.
_DETAILS: dict[ErrorKind, tuple[str, ...]] = {
    ErrorKind.CONTEXT_LENGTH_EXCEEDED: ("prompt_tokens", "max_context", "max_tokens", "reply_reserve"),
}


@dataclass(frozen=True)
class Failed:
    """The command failed with a user-facing error (or a bug, worded as an engine error)."""

    kind: ErrorKind
    message: str
    hint: str | None = None
    sources: Any = None  # UserFacingError.sources(): the English texts and values, for the window's translation
    details: dict[str, int] = field(default_factory=dict)  # see _DETAILS

    @classmethod
    def of(cls, exc: BaseException) -> Failed:
        if isinstance(exc, UserFacingError):
            kind = next(k for k, c in _CLASSES if isinstance(exc, c))
            details = {name: int(getattr(exc, name)) for name in _DETAILS.get(kind, ())}
            return cls(kind, exc.message, exc.hint, exc.sources(), details)
        detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        return cls(ErrorKind.ENGINE, f"The engine failed: {detail}")

    def error(self) -> UserFacingError:
        """The exception to raise in the parent."""
        cls = dict(_CLASSES)[self.kind]
        error = cls(self.message, hint=self.hint)
        error.set_sources(self.sources)
        for name, value in self.details.items():
            setattr(error, name, value)
        return error


Reply = Event | Done | Failed


__all__ = [
    "Command",
    "CountTokens",
    "Done",
    "ErrorKind",
    "Event",
    "Failed",
    "Generate",
    "Load",
    "Prefill",
    "Quit",
    "Reply",
    "Unload",
]
