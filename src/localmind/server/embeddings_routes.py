"""``/v1/embeddings`` (OpenAI's) with the embedding model Documents uses; the work is in ``server/embeddings.py``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from localmind.errors import UserFacingError
from localmind.server.embeddings import EmbeddingRequestError, EmbeddingService, embed, texts_of
from localmind.server.errors import APIError
from localmind.server.fields import spec
from localmind.server.routing import ApiRoute, post

# ruff: noqa: RUF009 -- ``spec()`` is ``dataclasses.field()`` with the limits in its metadata.

routes: list[ApiRoute] = []


@dataclass(frozen=True, kw_only=True)
class EmbeddingRequest:
    model: str = spec(description="The installed embedding model's name (GET /v1/models does not list it).")
    input: str | list[str] = spec(
        description="A text or a list of up to 2,048 texts (token arrays are refused: the model has its own tokenizer)."
    )
    encoding_format: Literal["float", "base64"] = spec(
        "float", description="float lists, or base64 of little-endian float32."
    )
    dimensions: int | None = spec(None, ge=1, description="Only the model's own width (it cannot shorten vectors).")
    user: str | None = spec(None, description="Accepted; not stored.")


_INT = {"type": "integer"}
EMBEDDINGS_SCHEMA = {
    "type": "object",
    "properties": {
        "object": {"const": "list"},
        "data": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "object": {"const": "embedding"},
                    "index": _INT,
                    "embedding": {
                        "anyOf": [
                            {"type": "array", "items": {"type": "number"}},
                            {"type": "string", "description": "base64 of little-endian float32"},
                        ]
                    },
                },
                "required": ["object", "index", "embedding"],
            },
        },
        "model": {"type": "string"},
        "usage": {
            "type": "object",
            "properties": {"prompt_tokens": _INT, "total_tokens": _INT},
            "required": ["prompt_tokens", "total_tokens"],
        },
    },
    "required": ["object", "data", "model", "usage"],
}


def _service(request: Request) -> EmbeddingService:
    state = request.app.state
    service: EmbeddingService | None = getattr(state, "embeddings", None)
    if service is None:
        from localmind.documents.embed import installed_embedding_model

        service = state.embeddings = EmbeddingService(installed_embedding_model)
    return service


@post(
    routes,
    "/v1/embeddings",
    EmbeddingRequest,
    summary="Embeddings (OpenAI-compatible) with the installed embedding model (404 when none is installed)",
    example={"model": "multilingual-e5-small", "input": ["A first text.", "A second one."]},
    content={"application/json": {"schema": EMBEDDINGS_SCHEMA}},
)
async def embeddings(request: Request, body: EmbeddingRequest) -> Response:
    try:
        texts = texts_of(body.input)
        service = _service(request)
        embedder = await run_in_threadpool(service.embedder, body.model)  # loads the model on the first request
        out = await run_in_threadpool(embed, embedder, body.model, texts, body.encoding_format, body.dimensions)
    except EmbeddingRequestError as exc:
        raise APIError(exc.status, exc.message, param=exc.param, code=exc.code) from None
    except UserFacingError as exc:  # the installed model does not load or run: say so, not a bare 500
        raise APIError(500, f"The embedding model failed: {exc.message}", type="server_error") from None
    return JSONResponse(out)


__all__ = ["EmbeddingRequest", "routes"]
