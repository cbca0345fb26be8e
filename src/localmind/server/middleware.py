"""Plain ASGI layers around the API: Host check, body size limit, one log line per request."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from typing import Any

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from localmind.server.errors import APIError

log = logging.getLogger("localmind.server")


class _BodyTooLarge(HTTPException):
    """An HTTPException: raised while an endpoint reads the body, Starlette answers it with the 413 handler."""


class _BodySlow(HTTPException):
    """The body stopped arriving: answered 408, and the connection is closed."""


async def _send_error(send: Send, error: APIError, close: bool = False) -> None:
    body = json.dumps(error.body()).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if close:
        headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": error.status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def _host_name(host_header: str) -> str | None:
    """The name in a Host header (``name``, ``name:port``, ``[v6]``, ``[v6]:port``); None when it is not one of
    those (``localhost:evil.example`` is not a port)."""
    host = host_header.strip().lower()
    if host.startswith("["):
        end = host.find("]")
        name, rest = (host[1:end], host[end + 1 :]) if end > 0 else ("", "")
        port = rest[1:] if rest.startswith(":") else None if rest else ""
    elif host.count(":") == 1:
        name, port = host.split(":")
    elif ":" in host:
        return None  # an IPv6 address must be in brackets
    else:
        name, port = host, ""
    if not name or port is None or (port and not (port.isdigit() and port.isascii() and len(port) <= 5)):
        return None
    return name


class GuardMiddleware:
    """Refuses requests for other host names (DNS rebinding) and bodies over the limit, before any parsing."""

    def __init__(
        self,
        app: ASGIApp,
        allowed_hosts: tuple[str, ...],
        max_body_bytes: int,
        allowed_origins: tuple[str, ...] = (),
        body_timeout_s: float = 10.0,
    ) -> None:
        self.app = app
        self.allowed_hosts = {h.lower() for h in allowed_hosts}
        self.allowed_origins = {o.lower().rstrip("/") for o in allowed_origins}
        self.max_body_bytes = max_body_bytes
        self.body_timeout_s = body_timeout_s

    def _foreign_origin(self, headers: dict[str, str]) -> str | None:
        """The request's Origin when a browser sent it from a page this server does not allow; else None.

        A page may post to 127.0.0.1 without asking first (a "simple" request); its Origin says where it came from.
        Pages listed with --cors-origin, and this server's own pages (loopback names), are allowed."""
        origin = headers.get("origin")
        if origin is None or origin.lower().rstrip("/") in self.allowed_origins:
            return None
        scheme, sep, rest = origin.strip().lower().partition("://")
        if sep and scheme in ("http", "https") and rest == headers.get("host", "").strip().lower():
            return None  # this server's own page (same origin)
        return origin

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        host = _host_name(headers.get("host", ""))
        if self.allowed_hosts and host not in self.allowed_hosts:
            await _send_error(
                send,
                APIError(
                    400,
                    "This server answers only requests addressed to "
                    f"{', '.join(sorted(self.allowed_hosts))} (the Host header did not match).",
                    code="invalid_host",
                ),
            )
            return
        origin = self._foreign_origin(headers)
        if origin is not None and scope["method"] != "OPTIONS":  # a preflight is CORS's business: it refuses it
            await _send_error(
                send,
                APIError(
                    403,
                    f"Requests from web pages at {origin[:100]} are not allowed here "
                    "(the server can allow a page with --cors-origin).",
                    code="origin_not_allowed",
                ),
            )
            return
        limit = self.max_body_bytes
        too_large = APIError(
            413,
            f"The request body is too large: this server accepts at most {limit:,} bytes.",
            code="request_too_large",
        )
        length = headers.get("content-length")
        if length is not None and length.isdigit() and int(length) > limit:
            await _send_error(send, too_large)
            return
        received = 0
        started = False

        body_done = scope["method"] in ("GET", "HEAD", "OPTIONS") and "content-length" not in headers
        timeout = self.body_timeout_s

        async def counting_receive() -> Message:
            nonlocal received, body_done
            if body_done:  # after the body, a receive waits for the client to hang up: no deadline
                return await receive()
            try:
                message = await asyncio.wait_for(receive(), timeout)
            except asyncio.TimeoutError:
                raise _BodySlow(408, f"The request body stalled: nothing arrived for {timeout:g} s.") from None
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise _BodyTooLarge(413, too_large.message)
                body_done = not message.get("more_body", False)
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counting_receive, tracking_send)
        except _BodyTooLarge:
            if not started:
                await _send_error(send, too_large)
        except _BodySlow as exc:
            if not started:
                await _send_error(send, APIError(408, str(exc.detail), code="request_timeout"), close=True)


class RequestLogMiddleware:
    """One line per request, written when it ends: who, what, status, time, and for turns the tokens."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        state: dict[str, Any] = scope.setdefault("state", {})
        started = time.perf_counter()
        status = 500

        async def status_send(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        try:
            await self.app(scope, receive, status_send)
        finally:
            client = scope.get("client") or ("-", 0)
            line = f'{client[0]} "{scope["method"]} {scope["path"]}" {status} {time.perf_counter() - started:.3f}s'
            turn = state.get("turn")
            if turn is not None:
                line += _turn_summary(turn)
            log.info(line)


def _turn_summary(turn: Any) -> str:
    job = turn.job
    waited = (job.started_at or time.perf_counter()) - job.queued_at
    text = f" queued {waited:.3f}s"
    outcome = turn.outcome
    if outcome is not None:
        s = outcome.stats
        text += (
            f" ttft {s.time_to_first_token_s:.3f}s prompt {s.prompt_tokens} ({s.reused_tokens} cached)"
            f" completion {s.generated_tokens} {outcome.finish_reason}"
        )
    elif job.error is not None:  # the engine failed (a crash is not a cancel)
        text += f" failed: {job.error}"
    elif job.cancelled.is_set():
        text += f" cancelled: sent {len(turn.text_parts)} pieces"
        if turn.cancelled_stats is not None:
            text += f", generated {turn.cancelled_stats.generated_tokens} tokens"
    return text
