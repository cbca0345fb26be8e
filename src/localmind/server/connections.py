"""Connections under faults: a deadline for each request's headers, a cap on open connections, a raised
file-descriptor limit and a log that cannot flood.

Without these, 400 connections that send their headers a byte at a time were held forever (before the key is even
looked at), and at the file-descriptor limit every request timed out while asyncio logged a traceback for every
failed ``accept()`` (~4 MB/s). Imported only by whoever runs uvicorn (``localmind serve``, the app's API server).
"""

from __future__ import annotations

import asyncio
import json
import logging
import resource
import time
from typing import Any

import uvicorn

# Descriptors kept free for what is not a client connection: the model's files, the engine's pipes, logs, imports.
FD_RESERVE = 64
# The most ``raise_fd_limit`` asks for when the hard limit is unlimited.
FD_CEILING = 65536


def raise_fd_limit() -> int:
    """Raise this process's open-file limit (soft) to its hard limit; the soft limit now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = FD_CEILING if hard == resource.RLIM_INFINITY else hard
    if soft == resource.RLIM_INFINITY or soft >= target:
        return FD_CEILING if soft == resource.RLIM_INFINITY else soft
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    except (ValueError, OSError):
        return soft
    return target


def connection_cap(wanted: int, fd_limit: int) -> int:
    """``wanted`` connections, or fewer where the descriptor limit would be reached first."""
    return max(1, min(wanted, fd_limit - FD_RESERVE))


_TIMEOUT_RESPONSE = (
    b"HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\nconnection: close\r\ncontent-length: %d\r\n\r\n"
)
_BUSY_RESPONSE = (
    b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\nconnection: close\r\n"
    b"retry-after: 1\r\ncontent-length: %d\r\n\r\n"
)


def _error(head: bytes, message: str, code: str) -> bytes:
    error = {"message": message, "type": "invalid_request_error", "param": None, "code": code}
    body = json.dumps({"error": error}).encode()
    return head % len(body) + body


def guarded_protocol(header_timeout: float, max_connections: int) -> type[asyncio.Protocol]:
    """uvicorn's HTTP protocol with a deadline for each request's headers and a cap on connections.

    A connection must send a whole request head within ``header_timeout`` seconds of opening, and of the end of its
    previous response; otherwise it gets 408 and is closed. Past ``max_connections``, the connection that has waited
    longest for its headers is closed to make room (so slow clients cannot lock out others); when every
    connection is busy with a request, the new one gets 503.
    """
    from uvicorn.protocols.http.auto import AutoHTTPProtocol

    base: Any = AutoHTTPProtocol

    class GuardedProtocol(base):  # type: ignore[misc]
        def connection_made(self, transport: asyncio.Transport) -> None:
            super().connection_made(transport)
            self._waiting_since = time.monotonic()
            self._head_timer: asyncio.TimerHandle | None = None
            if len(self.connections) > max_connections and not self._make_room():
                transport.write(_error(_BUSY_RESPONSE, "Too many connections: try again in a moment.", "overloaded"))
                transport.close()
                return
            self._arm()

        def _waiting_for_head(self) -> bool:
            return self.cycle is None or bool(self.cycle.response_complete)

        def _make_room(self) -> bool:
            idle = [c for c in self.connections if c is not self and getattr(c, "_waiting_for_head", lambda: False)()]
            if not idle:
                return False
            oldest = min(idle, key=lambda c: c._waiting_since)
            oldest._expire()
            self.connections.discard(oldest)
            return True

        def _arm(self) -> None:
            if self._head_timer is not None:
                self._head_timer.cancel()
            self._waiting_since = time.monotonic()
            self._head_timer = self.loop.call_later(header_timeout, self._on_deadline)

        def _on_deadline(self) -> None:
            self._head_timer = None
            if self._waiting_for_head():
                self._expire()

        def _expire(self) -> None:
            if self._head_timer is not None:
                self._head_timer.cancel()
                self._head_timer = None
            if not self.transport.is_closing():
                message = f"The request's headers did not arrive within {header_timeout:g} s."
                self.transport.write(_error(_TIMEOUT_RESPONSE, message, "request_timeout"))
                self.transport.close()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            if self._head_timer is not None:
                self._head_timer.cancel()
                self._head_timer = None
            super().connection_lost(exc)

    return GuardedProtocol


class RateLimitFilter(logging.Filter):
    """Lets the same kind of record (logger, level, message template) through at most once per ``interval`` s, and
    says how many were held back when the next one passes. Tracebacks go out only with the first of a kind."""

    def __init__(self, interval: float = 10.0, max_kinds: int = 256) -> None:
        super().__init__()
        self.interval = interval
        self.max_kinds = max_kinds
        self._last: dict[tuple[str, int, str], float] = {}
        self._held: dict[tuple[str, int, str], int] = {}
        self._traced: set[tuple[str, int, str]] = set()

    def filter(self, record: logging.LogRecord) -> bool:
        key = (record.name, record.levelno, str(record.msg).split("\n", 1)[0][:200])
        now = time.monotonic()
        last = self._last.get(key)
        if last is not None and now - last < self.interval:
            self._held[key] = self._held.get(key, 0) + 1
            return False
        if len(self._last) >= self.max_kinds and key not in self._last:
            self._last.clear()  # bounded memory: forget old kinds rather than grow
            self._held.clear()
        self._last[key] = now
        held = self._held.pop(key, 0)
        if held:
            record.msg = f"{record.msg} ({held} more like this in the last {self.interval:g} s were not logged)"
        if record.exc_info and key in self._traced:
            record.exc_info = None
            record.exc_text = None
        self._traced.add(key)
        return True


def limit_log_rate(names: tuple[str, ...] = ("asyncio", "uvicorn", "uvicorn.error")) -> None:
    """Rate-limit the loggers that repeat themselves under a flood (accept errors, refused requests)."""
    shared = RateLimitFilter()
    for name in names:
        logger = logging.getLogger(name)
        if not any(isinstance(f, RateLimitFilter) for f in logger.filters):
            logger.addFilter(shared)


def uvicorn_server(
    app: Any,
    host: str,
    port: int,
    *,
    header_timeout: float = 10.0,
    max_connections: int = 512,
    graceful_shutdown_s: int = 5,
) -> Any:
    """A ``uvicorn.Server`` for ``app`` with the guards above: fd limit raised, connections capped, headers timed,
    and the loggers that repeat themselves under a flood rate-limited."""
    cap = connection_cap(max_connections, raise_fd_limit())
    limit_log_rate()
    return uvicorn.Server(
        uvicorn.Config(
            app,
            host=host,
            port=port,
            access_log=False,
            log_level="warning",
            timeout_graceful_shutdown=graceful_shutdown_s,
            http=guarded_protocol(header_timeout, cap),
        )
    )
