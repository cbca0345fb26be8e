"""A Server-Sent Events response that notices a client hanging up even while no token is being sent.

Starlette notices a disconnect only when a write fails (ASGI spec 2.4) or by listening itself (2.3); listening
here in every case makes the cancel immediate: the generation stops within one decode step.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from typing import Any

import anyio
from starlette.responses import Response
from starlette.types import Receive, Scope, Send


def sse(data: dict[str, Any] | str) -> bytes:
    payload = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return f"data: {payload}\n\n".encode()


class EventStreamResponse(Response):
    media_type = "text/event-stream"

    def __init__(self, body: AsyncIterator[bytes], on_disconnect: Callable[[], None]) -> None:
        self._body = body
        self._on_disconnect = on_disconnect
        self.status_code = 200
        self.background = None
        # No caching, and tell reverse proxies (nginx) not to buffer the stream.
        self.init_headers({"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async with anyio.create_task_group() as group:

            async def stream() -> None:
                try:
                    await send({"type": "http.response.start", "status": self.status_code, "headers": self.raw_headers})
                    async for chunk in self._body:
                        await send({"type": "http.response.body", "body": chunk, "more_body": True})
                    await send({"type": "http.response.body", "body": b"", "more_body": False})
                except OSError:
                    self._on_disconnect()
                finally:
                    group.cancel_scope.cancel()
                    with anyio.CancelScope(shield=True):
                        await self._body.aclose()  # type: ignore[attr-defined]

            async def listen() -> None:
                while True:
                    message = await receive()
                    if message["type"] == "http.disconnect":
                        self._on_disconnect()
                        group.cancel_scope.cancel()
                        return

            group.start_soon(stream)
            group.start_soon(listen)
