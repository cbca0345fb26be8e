"""The reference article's API: ``POST /generate`` and its streaming form ``POST /generate/stream``."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import asdict, replace

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from localmind.engine.types import ChatMessage
from localmind.server import requests as conv
from localmind.server.context import ServerContext, client_of, context_of
from localmind.server.errors import APIError, bad_request
from localmind.server.routing import ApiRoute, post
from localmind.server.schemas import GenerateRequest, GenerateResponse
from localmind.server.sse import EventStreamResponse, sse
from localmind.server.turns import Turn, unless_disconnected

routes: list[ApiRoute] = []


def _turn(request: Request, body: GenerateRequest) -> Turn:
    ctx: ServerContext = context_of(request)
    if ctx.served() is None:
        raise APIError(
            503,
            "No model is loaded. Load one in LocalMind, then try again.",
            type="server_error",
            code="model_not_loaded",
        )
    if not body.prompt.strip():
        raise bad_request("The prompt is empty.", param="prompt")
    conv.check_prompt_size(ctx, len(body.prompt), "prompt")
    options = replace(
        ctx.config.defaults,
        temperature=conv.greedy_floor(body.temperature),
        top_p=body.top_p,
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
)
async def generate_stream(request: Request, body: GenerateRequest) -> Response:
    turn = _turn(request, body)
    pieces = turn.pieces()

    async def first() -> str | None:
        try:
            return await pieces.__anext__()
        except StopAsyncIteration:
            return None

    head = await unless_disconnected(request, first(), turn)

    async def events() -> AsyncIterator[bytes]:
        try:
            if head is not None:
                yield sse({"text": head})
            async for text in pieces:
                yield sse({"text": text})
            assert turn.outcome is not None
            yield sse(
                {"finish_reason": turn.outcome.finish_reason, "tokens_generated": turn.outcome.stats.generated_tokens}
            )
        except APIError as exc:
            yield sse(exc.body())
        finally:
            if turn.outcome is None:  # the client went away: stop the engine and note how far it got
                turn.cancel()
                await turn.settle()
        yield b"data: [DONE]\n\n"

    return EventStreamResponse(events(), on_disconnect=turn.cancel)
