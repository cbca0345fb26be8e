"""The reference article's API, as its project serves it: ``GET /``, ``POST /generate`` and ``POST /stream_generate``
(plain text chunks); and LocalMind's Server-Sent Events form of the same, ``POST /generate/stream``."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import asdict, replace

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from localmind.engine.types import ChatMessage
from localmind.server import requests as conv
from localmind.server import response_schemas as rs
from localmind.server.context import ServerContext, client_of, context_of
from localmind.server.errors import APIError
from localmind.server.routing import ApiRoute, get, post
from localmind.server.schemas import GenerateRequest, GenerateResponse
from localmind.server.sse import EventStreamResponse, sse
from localmind.server.turns import Turn, unless_disconnected

routes: list[ApiRoute] = []


async def _first(pieces: AsyncIterator[str]) -> str | None:
    """The first piece of text, or None for a reply with none (errors before it keep their status)."""
    try:
        return await pieces.__anext__()
    except StopAsyncIteration:
        return None


async def _relay(
    turn: Turn,
    head: str | None,
    pieces: AsyncIterator[str],
    encode: Callable[[str], bytes],
    failed: Callable[[APIError], bytes],
    finish: Callable[[Turn], bytes] | None = None,
    tail: bytes = b"",
) -> AsyncIterator[bytes]:
    """A streamed reply's body: each piece of text ``encode``d as it comes, then ``finish(turn)``; an error after
    the first piece ends it with ``failed(error)``; a client that went away stops the engine. ``tail`` comes last."""
    try:
        if head is not None:
            yield encode(head)
        async for text in pieces:
            yield encode(text)
        if finish is not None:
            yield finish(turn)
    except APIError as exc:
        yield failed(exc)
    finally:
        if turn.outcome is None:  # the client went away: stop the engine and note how far it got
            turn.cancel()
            await turn.settle()
    if tail:
        yield tail


def _finished(turn: Turn) -> bytes:
    assert turn.outcome is not None
    return sse({"finish_reason": turn.outcome.finish_reason, "tokens_generated": turn.outcome.stats.generated_tokens})


def _turn(request: Request, body: GenerateRequest) -> Turn:
    ctx: ServerContext = context_of(request)
    if ctx.served() is None:
        raise APIError(
            503,
            "No model is loaded. Load one in LocalMind, then try again.",
            type="server_error",
            code="model_not_loaded",
        )
    conv.check_prompt_size(ctx, len(body.prompt), "prompt")
    greedy = body.top_p == 0  # the reference's top_p 0: only the most likely token is left
    options = replace(
        ctx.config.defaults,
        temperature=0.0 if greedy else conv.greedy_floor(body.temperature),
        top_p=1.0 if greedy else body.top_p,
        max_new_tokens=body.max_new_tokens,
        seed=None,
        min_new_tokens=0,
        drop_oldest=False,
    )
    turn = Turn(ctx.scheduler, [ChatMessage("user", body.prompt)], options, [], client_of(request))
    request.state.turn = turn
    return turn


@post(
    routes,
    "/generate",
    GenerateRequest,
    summary="Generate a reply to one prompt",
    response=GenerateResponse,
    example={"prompt": "What is the capital of France?", "max_new_tokens": 64},
)
async def generate(request: Request, body: GenerateRequest) -> Response:
    turn = _turn(request, body)

    async def collect() -> None:
        async for _ in turn.pieces():
            pass

    await unless_disconnected(request, collect(), turn)
    assert turn.outcome is not None
    reply = GenerateResponse(
        generated_text=turn.text,
        tokens_generated=turn.outcome.stats.generated_tokens,
        finish_reason="length" if turn.outcome.finish_reason == "length" else "stop",
    )
    return JSONResponse(asdict(reply))


@post(
    routes,
    "/generate/stream",
    GenerateRequest,
    summary="The same, streamed",
    streams=True,
    example={"prompt": "Tell me a short story.", "max_new_tokens": 128},
    response_description='Server-Sent Events: `data: {"text": "..."}` per piece, then '
    '`data: {"finish_reason": ..., "tokens_generated": N}`, then `data: [DONE]`.',
    content=rs.sse_content("GenerateStreamEvent"),
)
async def generate_stream(request: Request, body: GenerateRequest) -> Response:
    turn = _turn(request, body)
    pieces = turn.pieces()
    head = await unless_disconnected(request, _first(pieces), turn)
    events = _relay(
        turn,
        head,
        pieces,
        lambda text: sse({"text": text}),
        lambda exc: sse(exc.body()),
        _finished,
        b"data: [DONE]\n\n",
    )
    return EventStreamResponse(events, on_disconnect=turn.cancel)


@get(
    routes, "/", summary="Whether the server is running (the reference's health check; no key needed)", needs_key=False
)
async def root(request: Request) -> Response:
    return JSONResponse(
        {"status": "running", "message": "LocalMind API is running", "endpoints": ["/generate", "/stream_generate"]}
    )


class PlainTextStreamResponse(EventStreamResponse):
    media_type = "text/plain"  # "; charset=utf-8" is added


@post(
    routes,
    "/stream_generate",
    GenerateRequest,
    summary="The same, streamed as plain text (the reference's form)",
    streams=True,
    example={"prompt": "Tell me a short story.", "max_new_tokens": 128},
    response_description="The generated text in UTF-8 chunks as they come; an error after the first chunk ends the "
    "text with `\\n[ERROR: message]` (as the reference does).",
    content=rs.PLAIN_TEXT,
)
async def stream_generate(request: Request, body: GenerateRequest) -> Response:
    turn = _turn(request, body)
    pieces = turn.pieces()
    head = await unless_disconnected(request, _first(pieces), turn)  # errors before the first piece keep their status
    chunks = _relay(turn, head, pieces, str.encode, lambda exc: f"\n[ERROR: {exc.message}]".encode())
    return PlainTextStreamResponse(chunks, on_disconnect=turn.cancel)
