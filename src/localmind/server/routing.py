"""Routes without a framework on top of Starlette: the key check, the JSON body read into a declared class, and
what /openapi.json says about each route, declared once beside the endpoint.

(LocalMind used FastAPI; importing it cost ~0.3–0.4 s of ``localmind serve``'s cold start on a quiet machine —
its OpenAPI models and route analysis — for what these few lines do; pydantic, which checked the bodies after it, went
the same way for ~0.13 s: ``fields`` does that now.)
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from localmind.server.auth import require_key
from localmind.server.errors import APIError, invalid_request
from localmind.server.fields import Invalid, parse

M = TypeVar("M")
Endpoint = Callable[[Request], Awaitable[Response]]


@dataclass(frozen=True)
class ApiRoute:
    """One endpoint and what the API description says about it."""

    path: str
    method: str  # "GET" | "POST"
    endpoint: Endpoint  # with the key check and body parsing in front
    summary: str
    body: type[Any] | None = None
    response: type[Any] | None = None  # the JSON reply's schema, where it has one
    response_description: str = "Successful response"
    streams: bool = False  # Server-Sent Events when the body asks for them (or always, for /generate/stream)
    needs_key: bool = True
    example: dict[str, Any] | None = None  # a request body for the docs ("MODEL" stands for the served model's id)
    content: dict[str, Any] | None = None  # the 200 answer's media types and schemas (response_schemas), if not JSON

    def route(self) -> Route:
        return Route(self.path, self.endpoint, methods=[self.method])


# How deep objects and lists may nest in a body: OpenAI's bodies need a handful; a JSON schema a few dozen.
MAX_DEPTH = 64


def _is_json(content_type: str | None) -> bool:
    if not content_type:
        return False  # a web page's no-cors fetch sends a Blob without a type: never read as JSON
    kind = content_type.split(";", 1)[0].strip().lower()
    return kind == "application/json" or (kind.startswith("application/") and kind.endswith("+json"))


async def read_body(request: Request, model: type[M]) -> M:
    """The request's JSON body as ``model``; an OpenAI-shaped 400 APIError when it is not one."""
    raw = await request.body()
    if not raw:
        raise APIError(400, "The request body is empty: send a JSON object.")
    # Only JSON bodies: a web page can post text/plain or a form to 127.0.0.1 without asking first (no CORS
    # preflight); it cannot send application/json that way.
    if not _is_json(request.headers.get("content-type")):
        raise APIError(400, "Send the request body as JSON (Content-Type: application/json).")
    try:
        data = json.loads(raw)
        deep = _too_deep(data)
    except ValueError:  # JSONDecodeError, and UnicodeDecodeError for bytes in no Unicode encoding
        raise APIError(400, "The request body is not valid JSON.") from None
    except RecursionError:  # nested deeper than the parser goes (about a thousand levels)
        deep = True
    if deep:
        raise APIError(
            400, f"The request body nests objects or lists more than {MAX_DEPTH} levels deep.", code="too_deep"
        )
    try:
        return parse(model, data)
    except Invalid as exc:
        raise invalid_request(exc.loc, exc.kind, exc.msg) from None


def _too_deep(data: Any) -> bool:
    """Whether ``data`` nests deeper than MAX_DEPTH (without recursion: every value once)."""
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else None
        if children is None:
            continue
        if depth > MAX_DEPTH:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


def get(
    routes: list[ApiRoute],
    path: str,
    *,
    summary: str,
    needs_key: bool = True,
    content: dict[str, Any] | None = None,
) -> Callable[[Endpoint], Endpoint]:
    """Declare a GET endpoint (``async def f(request) -> Response``) in ``routes``."""

    def declare(handler: Endpoint) -> Endpoint:
        async def endpoint(request: Request) -> Response:
            if needs_key:
                await require_key(request)
            return await handler(request)

        routes.append(ApiRoute(path, "GET", endpoint, summary, needs_key=needs_key, content=content))
        return handler

    return declare


def post(
    routes: list[ApiRoute],
    path: str,
    body: type[M],
    *,
    summary: str,
    response: type[Any] | None = None,
    response_description: str = "Successful response",
    streams: bool = False,
    example: dict[str, Any] | None = None,
    content: dict[str, Any] | None = None,
) -> Callable[[Callable[[Request, M], Awaitable[Response]]], Callable[[Request, M], Awaitable[Response]]]:
    """Declare a POST endpoint (``async def f(request, body) -> Response``) that needs the key and a ``body``."""

    def declare(handler: Callable[[Request, M], Awaitable[Response]]) -> Callable[[Request, M], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            await require_key(request)  # before the body is read: nothing about the request is looked at first
            return await handler(request, await read_body(request, body))

        routes.append(
            ApiRoute(
                path,
                "POST",
                endpoint,
                summary,
                body=body,
                response=response,
                response_description=response_description,
                streams=streams,
                example=example,
                content=content,
            )
        )
        return handler

    return declare
