"""API keys: ``Authorization: Bearer KEY`` (what OpenAI's clients send), compared in constant time."""

from __future__ import annotations

import hmac

from starlette.requests import Request

from localmind.server.context import context_of
from localmind.server.errors import APIError


def key_matches(expected: str, given: str) -> bool:
    # compare_digest takes the same time wherever the first difference is, so timing reveals nothing of the key.
    return hmac.compare_digest(expected.encode("utf-8"), given.encode("utf-8"))


async def require_key(request: Request) -> None:
    expected = context_of(request).config.api_key
    if not expected:
        return
    header = request.headers.get("authorization", "")
    scheme, _, given = header.partition(" ")
    if not header:
        raise APIError(
            401,
            "This server needs an API key: send it as 'Authorization: Bearer KEY'.",
            code="missing_api_key",
            headers={"WWW-Authenticate": "Bearer"},
        )
    if scheme.lower() != "bearer" or not key_matches(expected, given.strip()):
        raise APIError(
            401, "The API key is not correct.", code="invalid_api_key", headers={"WWW-Authenticate": "Bearer"}
        )
