"""``/v1/chat/completions``, ``/v1/completions`` and ``/v1/models`` as OpenAI's clients expect them."""

from __future__ import annotations

import contextlib
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from localmind.engine.types import ChatMessage, GenerationOptions, choice_options
from localmind.server import abilities
from localmind.server import requests as conv
from localmind.server import response_schemas as rs
from localmind.server.context import ServedModel, client_of, context_of
from localmind.server.errors import APIError
from localmind.server.routing import ApiRoute, get, post
from localmind.server.schemas import ChatCompletionRequest, CompletionRequest
from localmind.server.sse import EventStreamResponse, sse
from localmind.server.turns import Turn, unless_disconnected

routes: list[ApiRoute] = []

_Chunk = Callable[[str | None, str | None], dict[str, Any]]  # (text, finish_reason) -> chunk


async def _first(pieces: AsyncIterator[str]) -> str | None:
    try:
        return await pieces.__anext__()
    except StopAsyncIteration:
        return None


async def _stream_body(
    turn: Turn,
    first: str | None,
    pieces: AsyncIterator[str],
    chunk: _Chunk,
    usage_chunk: Callable[[], dict[str, Any]] | None,
) -> AsyncIterator[bytes]:
    try:
        if first is not None:
            yield sse(chunk(first, None))
        async for text in pieces:
            yield sse(chunk(text, None))
        assert turn.outcome is not None
        yield sse(chunk(None, turn.outcome.finish_reason))
        if usage_chunk is not None:
            yield sse(usage_chunk())
    except APIError as exc:
        # Too late for a status code: OpenAI's clients raise on an "error" event.
        yield sse(exc.body())
    finally:
        if turn.outcome is None:  # the client went away: stop the engine and note how far it got
            turn.cancel()
            await turn.settle()
    yield b"data: [DONE]\n\n"


async def _run(
    request: Request, turn: Turn, stream: bool, chunk: _Chunk, usage_chunk: Callable[[], dict[str, Any]] | None
) -> Response | None:
    """Streams (returns the response), or runs to the end (returns None: read ``turn``)."""
    pieces = turn.pieces()
    if stream:
        # Wait for the first piece before answering, so queue and prompt errors still get their status code.
        first = await unless_disconnected(request, _first(pieces), turn)
        return EventStreamResponse(_stream_body(turn, first, pieces, chunk, usage_chunk), on_disconnect=turn.cancel)

    async def collect() -> None:
        async for _ in pieces:
            pass

    await unless_disconnected(request, collect(), turn)
    return None


@get(routes, "/v1/models", summary="The model this server serves", content=rs.json_content("ModelList"))
async def list_models(request: Request) -> Response:
    served = context_of(request).served()
    data = [] if served is None else [_model_card(served)]
    return JSONResponse({"object": "list", "data": data})


@get(
    routes,
    "/v1/models/{model_id}",
    summary="The served model, by its id (404 for any other)",
    content=rs.json_content("Model"),
)
async def retrieve_model(request: Request) -> Response:
    ctx = context_of(request)
    served = conv.require_model(ctx, request.path_params["model_id"])
    return JSONResponse(_model_card(served))


def _model_card(served: ServedModel) -> dict[str, Any]:
    return {"id": served.id, "object": "model", "created": served.created, "owned_by": "localmind"}


def _choices(n: int | None, stream: bool | None) -> int:
    """How many choices to answer; several are read one after the other, so they cannot stream."""
    if (n or 1) > 1 and stream:
        raise APIError(
            400,
            "'n' above 1 cannot be combined with stream=true: stream one choice per request.",
            param="n",
            code="invalid_value",
        )
    return n or 1


@post(
    routes,
    "/v1/chat/completions",
    ChatCompletionRequest,
    summary="Chat (OpenAI-compatible; streams with SSE when stream=true)",
    streams=True,
    example={"model": "MODEL", "messages": [{"role": "user", "content": "Hello!"}], "max_tokens": 64},
    content={**rs.json_content("ChatCompletion"), **rs.sse_content("ChatCompletionChunk")},
)
async def chat_completions(request: Request, body: ChatCompletionRequest) -> Response:
    ctx = context_of(request)
    served = conv.require_model(ctx, body.model)
    messages = conv.chat_messages(ctx, body)
    options, tools = conv.chat_options(ctx, body)
    n = _choices(body.n, body.stream)
    cid, created = f"chatcmpl-{uuid.uuid4().hex}", int(time.time())
    if n > 1:
        return await _chat_choices(request, body, served, messages, options, tools, cid, created, n)
    turn = Turn(ctx.scheduler, messages, options, conv.stop_sequences(body), client_of(request))
    request.state.turn = turn
    include_usage = bool(body.stream_options and body.stream_options.include_usage)
    sent_role = False
    sent_logprobs = 0

    def chunk(text: str | None, finish: str | None) -> dict[str, Any]:
        nonlocal sent_role, sent_logprobs
        delta: dict[str, Any] = {}
        if not sent_role:
            delta["role"], sent_role = "assistant", True
        if text is not None:
            delta["content"] = text
        if finish is not None and turn.tool_calls:
            delta.update(abilities.delta_calls(turn.tool_calls, tools.legacy))
            finish = abilities.finish_reason_for_calls(tools.legacy)
        logprobs = None
        if options.logprobs:
            logprobs = abilities.chat_logprobs(turn.logprobs[sent_logprobs:])
            sent_logprobs = len(turn.logprobs)
        choice = {"index": 0, "delta": delta, "logprobs": logprobs, "finish_reason": finish}
        out = _envelope(cid, "chat.completion.chunk", created, served.id, [choice], streamed_usage=include_usage)
        return _with_dropped(out, turn) if finish is not None and options.drop_oldest else out

    def usage_chunk() -> dict[str, Any]:
        return _envelope(cid, "chat.completion.chunk", created, served.id, [], turn=turn)

    with _schema_of_tools(tools):
        response = await _run(request, turn, body.stream, chunk, usage_chunk if include_usage else None)
    if response is not None:
        return response
    out = _envelope(cid, "chat.completion", created, served.id, [_chat_choice(turn, 0, options, tools)], turn=turn)
    return JSONResponse(_with_dropped(out, turn) if options.drop_oldest else out)


@contextlib.contextmanager
def _schema_of_tools(tools: abilities.ToolRequest) -> Iterator[None]:
    """A required call's schema is the function's parameters: a schema the engine cannot follow names ``tools``."""
    try:
        yield
    except APIError as exc:
        if exc.code == "invalid_json_schema" and tools.tool_choice in ("required", "function"):
            exc.param = "tools"
        raise


def _chat_choice(turn: Turn, index: int, options: GenerationOptions, tools: abilities.ToolRequest) -> dict[str, Any]:
    assert turn.outcome is not None
    message: dict[str, Any] = {"role": "assistant", "content": turn.text}
    finish = turn.outcome.finish_reason
    if turn.tool_calls:
        message["content"] = turn.text or None
        message.update(abilities.message_calls(turn.tool_calls, tools.legacy))
        finish = abilities.finish_reason_for_calls(tools.legacy)
    logprobs = abilities.chat_logprobs(turn.logprobs) if options.logprobs else None
    return {"index": index, "message": message, "logprobs": logprobs, "finish_reason": finish}


async def _chat_choices(
    request: Request,
    body: ChatCompletionRequest,
    served: ServedModel,
    messages: list[ChatMessage],
    options: GenerationOptions,
    tools: abilities.ToolRequest,
    cid: str,
    created: int,
    n: int,
) -> Response:
    """n choices, one turn after another on the same prompt (the KV cache reads the prompt once)."""
    ctx = context_of(request)
    choices: list[dict[str, Any]] = []
    turns: list[Turn] = []
    for index in range(n):
        turn = Turn(
            ctx.scheduler, messages, choice_options(options, index), conv.stop_sequences(body), client_of(request)
        )
        request.state.turn = turn
        with _schema_of_tools(tools):
            await _run(request, turn, False, lambda _t, _f: {}, None)
        choices.append(_chat_choice(turn, index, options, tools))
        turns.append(turn)
    out = _envelope(cid, "chat.completion", created, served.id, choices, turn=turns[0])
    completion = sum(t.outcome.stats.generated_tokens for t in turns if t.outcome is not None)
    out["usage"]["completion_tokens"] = completion
    out["usage"]["total_tokens"] = out["usage"]["prompt_tokens"] + completion
    return JSONResponse(_with_dropped(out, turns[0]) if options.drop_oldest else out)


def _with_dropped(out: dict[str, Any], turn: Turn) -> dict[str, Any]:
    """With drop_oldest_messages: how many of the oldest messages were left out to fit the context."""
    out["dropped_messages"] = turn.outcome.stats.dropped_messages if turn.outcome is not None else 0
    return out


@post(
    routes,
    "/v1/completions",
    CompletionRequest,
    summary="Text completion (the prompt is read as one user message)",
    streams=True,
    example={"model": "MODEL", "prompt": "Write a haiku about tea.", "max_tokens": 64},
    content={**rs.json_content("Completion"), **rs.sse_content("CompletionChunk")},
)
async def completions(request: Request, body: CompletionRequest) -> Response:
    ctx = context_of(request)
    served = conv.require_model(ctx, body.model)
    messages, options = conv.completion_request(ctx, body)
    n = _choices(body.n, body.stream)
    cid, created = f"cmpl-{uuid.uuid4().hex}", int(time.time())
    include_usage = bool(body.stream_options and body.stream_options.include_usage)
    echoed = messages[0].content if body.echo and messages else ""
    turns: list[Turn] = []
    for index in range(n):
        turn = Turn(
            ctx.scheduler, messages, choice_options(options, index), conv.stop_sequences(body), client_of(request)
        )
        request.state.turn = turn
        turns.append(turn)
        prefix, sent = echoed, 0

        def chunk(text: str | None, finish: str | None, turn: Turn = turn) -> dict[str, Any]:
            nonlocal prefix, sent
            text, at, prefix = prefix + (text or ""), len(prefix), ""
            logprobs = None
            if options.logprobs:
                logprobs = abilities.completion_logprobs(turn.logprobs[sent:], at)
                sent = len(turn.logprobs)
            choice = {"index": 0, "text": text, "logprobs": logprobs, "finish_reason": finish}
            return _envelope(cid, "text_completion", created, served.id, [choice], streamed_usage=include_usage)

        def usage_chunk(turn: Turn = turn) -> dict[str, Any]:
            return _envelope(cid, "text_completion", created, served.id, [], turn=turn)

        response = await _run(request, turn, body.stream, chunk, usage_chunk if include_usage else None)
        if response is not None:
            return response
    choices = []
    for index, turn in enumerate(turns):
        assert turn.outcome is not None
        logprobs = abilities.completion_logprobs(turn.logprobs, len(echoed)) if options.logprobs else None
        text = echoed + turn.text
        choices.append(
            {"index": index, "text": text, "logprobs": logprobs, "finish_reason": turn.outcome.finish_reason}
        )
    out = _envelope(cid, "text_completion", created, served.id, choices, turn=turns[0])
    completion = sum(t.outcome.stats.generated_tokens for t in turns if t.outcome is not None)
    out["usage"]["completion_tokens"] = completion
    out["usage"]["total_tokens"] = out["usage"]["prompt_tokens"] + completion
    return JSONResponse(out)


def _envelope(
    cid: str,
    kind: str,
    created: int,
    model: str,
    choices: list[dict[str, Any]],
    *,
    turn: Turn | None = None,
    streamed_usage: bool = False,
) -> dict[str, Any]:
    """One OpenAI response object or stream chunk; with ``turn`` (finished), its usage and timings."""
    out: dict[str, Any] = {"id": cid, "object": kind, "created": created, "model": model, "choices": choices}
    if turn is not None:
        assert turn.outcome is not None
        out["usage"] = turn.outcome.usage()
        out["timings"] = turn.outcome.timings(turn.job)
    elif streamed_usage:
        out["usage"] = None  # every chunk carries the key once include_usage is asked for; the last one fills it
    return out
