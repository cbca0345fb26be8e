"""Plain ASGI layers around the API: Host check, body size limit, one log line per request."""

from __future__ import annotations

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


async def _send_error(send: Send, error: APIError) -> None:
    body = json.dumps(error.body()).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": error.status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def _host_name(host_header: str) -> str:
    host = host_header.strip().lower()
    if host.startswith("["):  # [::1]:8000
        return host[1 : host.find("]")] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


class GuardMiddleware:
    """Refuses requests for other host names (DNS rebinding) and bodies over the limit, before any parsing."""

    def __init__(self, app: ASGIApp, allowed_hosts: tuple[str, ...], max_body_bytes: int) -> None:
        self.app = app
        self.allowed_hosts = {h.lower() for h in allowed_hosts}
        self.max_body_bytes = max_body_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        if self.allowed_hosts and _host_name(headers.get("host", "")) not in self.allowed_hosts:
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

        async def counting_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise _BodyTooLarge(413, too_large.message)
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
    elif job.cancelled.is_set():
        text += f" cancelled: sent {len(turn.text_parts)} pieces"
        if turn.cancelled_stats is not None:
            text += f", generated {turn.cancelled_stats.generated_tokens} tokens"
    return text
