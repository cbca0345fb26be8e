"""Errors in OpenAI's JSON shape: ``{"error": {"message", "type", "param", "code"}}`` with a fitting status."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response


class APIError(Exception):
    """An error a client caused or should know about; becomes an OpenAI-shaped JSON response."""

    def __init__(
        self,
        status: int,
        message: str,
        *,
        type: str = "invalid_request_error",
        param: str | None = None,
        code: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.type = type
        self.param = param
        self.code = code
        self.headers = headers or {}

    def body(self) -> dict[str, Any]:
        return {"error": {"message": self.message, "type": self.type, "param": self.param, "code": self.code}}

    def response(self) -> JSONResponse:
        return JSONResponse(self.body(), status_code=self.status, headers=self.headers)


def bad_request(message: str, param: str | None = None, code: str | None = None) -> APIError:
    return APIError(400, message, param=param, code=code)


def unsupported(param: str, message: str) -> APIError:
    return APIError(400, message, param=param, code="unsupported_parameter")


def invalid_request(loc: Sequence[str | int], kind: str, msg: str) -> APIError:
    """A body that does not fit (``fields.Invalid``): which parameter, and why."""
    param = ".".join(str(p) for p in loc) or None
    if kind == "missing" and param:
        return APIError(400, f"Missing required parameter: '{param}'.", param=param)
    if kind == "unknown":  # OpenAI's words for a field it does not know
        return APIError(400, f"{msg}.", param=param, code="unknown_parameter")
    if kind == "unsupported":
        return APIError(400, msg, param=param, code="unsupported_parameter")
    where = f"'{param}'" if param else "the request body"
    return APIError(400, f"Invalid value for {where}: {msg}.", param=param)


NOT_FOUND = (
    "Not found. This server offers /v1/chat/completions, /v1/completions, /v1/embeddings, /v1/models, /generate, "
    "/stream_generate, "
    "/health and its description at /openapi.json and /docs."
)
_HTTP_CODES = {404: "not_found", 405: "method_not_allowed", 408: "request_timeout", 413: "request_too_large"}


async def _api_error(_: Request, exc: Exception) -> Response:
    assert isinstance(exc, APIError)
    return exc.response()


async def _http(_: Request, exc: Exception) -> Response:
    # Starlette's own refusals (no such path, wrong method) and the guard's body limit, in the same shape.
    assert isinstance(exc, HTTPException)
    message = exc.detail if isinstance(exc.detail, str) else "Request failed."
    if exc.status_code == 404:
        message = NOT_FOUND
    headers = {"Connection": "close"} if exc.status_code == 408 else None  # the rest of the body is not read
    return APIError(exc.status_code, message, code=_HTTP_CODES.get(exc.status_code), headers=headers).response()


async def _bug(_: Request, exc: Exception) -> Response:
    # A bug, not the client's fault: say so without internals; the server keeps running.
    return APIError(500, f"The server failed: {type(exc).__name__}.", type="server_error").response()


def exception_handlers() -> dict[Any, Any]:
    """For ``Starlette(exception_handlers=...)``: ``Exception`` goes to the outermost layer (any bug)."""
    return {APIError: _api_error, HTTPException: _http, Exception: _bug}
