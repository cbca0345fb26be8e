"""What every route needs: the queue in front of the engine, the model being served, limits and defaults."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from starlette.requests import Request

from localmind.engine.types import GenerationOptions
from localmind.server.scheduler import Scheduler

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")


@dataclass(frozen=True)
class ServedModel:
    id: str  # what clients pass as "model"
    name: str
    context_budget: int
    created: int = field(default_factory=lambda: int(time.time()))


@dataclass(frozen=True)
class ServerConfig:
    api_key: str | None = None
    cors_origins: tuple[str, ...] = ()
    # Host header names accepted; empty accepts any. Loopback servers accept only loopback names, so a web page
    # that rebinds its DNS name to 127.0.0.1 cannot reach the API from the user's browser.
    allowed_hosts: tuple[str, ...] = LOOPBACK_HOSTS
    max_body_bytes: int = 1_000_000
    max_prompt_chars: int = 200_000
    body_timeout_s: float = 10.0
    # An API conversation longer than the context: 400 context_length_exceeded (False), or the window's policy of
    # leaving out the oldest turns and saying how many (True; a request's drop_oldest_messages overrides it).
    drop_oldest: bool = False  # the longest pause while a request's body arrives (then 408)
    defaults: GenerationOptions = field(default_factory=GenerationOptions)


@dataclass
class ServerContext:
    scheduler: Scheduler
    served: Callable[[], ServedModel | None]  # None while no model is loaded (the app between models)
    config: ServerConfig


def context_of(request: Request) -> ServerContext:
    ctx: ServerContext = request.app.state.ctx
    return ctx


def client_of(request: Request) -> str:
    """Who to be fair to: the peer address (behind a proxy all clients are one; the queue is still bounded)."""
    return request.client.host if request.client else "unknown"
