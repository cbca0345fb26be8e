"""The engine service's vocabulary: priorities, jobs and the events a job reports (see engine/service.py)."""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from localmind.engine.types import ChatMessage, GenerationOptions, LoadOptions, StreamEvent, TurnFinished


class Priority(enum.IntEnum):
    """Lower runs first."""

    WINDOW = 0  # the person at the window is waiting
    API = 1  # a program is waiting
    BACKGROUND = 2  # speculative: type-ahead, documents read-ahead, warm reopen


# -- jobs ------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Turn:
    messages: list[ChatMessage]
    options: GenerationOptions = field(default_factory=GenerationOptions)


@dataclass(frozen=True)
class Read:
    """Read ``messages`` (then ``draft``: up to a safe point, or all of it and the reply header with ``whole``)
    into the engine's cache ahead of a turn. Result: the tokens now in the cache.

    ``supersede``: a newer read of the same client with the same key replaces this one (waiting: dropped;
    running: stopped at its next chunk). Type-ahead and documents read-ahead each use their own key.

    ``compose``: run first on the service's thread; the text it returns is read in place of ``draft`` (documents
    read-ahead: the draft's passages, then the question; None: ``draft`` as it is). Slow work such as a search
    stays off the window's thread, and runs only when the read does (a superseded read never searches).
    """

    messages: list[ChatMessage]
    draft: str = ""
    whole: bool = False
    supersede: str | None = None
    compose: Callable[[], str | None] | None = None


@dataclass(frozen=True)
class CountTokens:
    messages: list[ChatMessage]


@dataclass(frozen=True)
class Load:
    model_dir: str
    options: LoadOptions = field(default_factory=LoadOptions)
    prepare: Callable[[], None] | None = None  # run first on the service's thread (a first-open rewrite)


@dataclass(frozen=True)
class Unload:
    pass


Job = Turn | Read | CountTokens | Load | Unload

# -- events ----------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Started:
    job_id: int


@dataclass(frozen=True)
class Result:
    value: Any  # Load: LoadInfo; Read: tokens in the cache; CountTokens: tokens; Unload: None


@dataclass(frozen=True)
class Failed:
    error: BaseException | None  # None: the engine ended a turn without saying why


@dataclass(frozen=True)
class Dropped:
    """The job ended without running: ``why`` is "cancelled", "superseded" or "closed"."""

    why: str


JobEvent = Started | StreamEvent | Result | Failed | Dropped


class QueueFull(Exception):
    def __init__(self, waiting: int, retry_after_s: int) -> None:
        super().__init__(f"{waiting} requests are already waiting")
        self.waiting = waiting
        self.retry_after_s = retry_after_s


def is_final(event: JobEvent) -> bool:
    """Whether ``event`` ends its job."""
    return isinstance(event, (TurnFinished, Result, Failed, Dropped))
