"""What the server answers, as JSON Schema for /openapi.json: the response objects, and each event of a stream as
the JSON object it carries (an SSE stream is ``data: <object>`` lines, then ``data: [DONE]``)."""

from __future__ import annotations

from typing import Any

_REF = "#/components/schemas/"


def ref(name: str) -> dict[str, Any]:
    return {"$ref": _REF + name}


def _object(properties: dict[str, Any], required: list[str] | None = None, **extra: Any) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties) if required is None else required,
        **extra,
    }


_STR, _INT, _NUM = {"type": "string"}, {"type": "integer"}, {"type": "number"}
_FINISH = {"type": ["string", "null"], "enum": ["stop", "length", None]}
_USAGE = _object(
    {
        "prompt_tokens": _INT,
        "completion_tokens": _INT,
        "total_tokens": _INT,
        "prompt_tokens_details": _object({"cached_tokens": _INT}),
    }
)
_TIMINGS = _object(
    {"queued_ms": _NUM, "ttft_ms": _NUM, "engine_ms": _NUM},
    description="LocalMind: where the request's time went on the server.",
)
_DROPPED = {
    "type": "integer",
    "description": "LocalMind, with drop_oldest_messages: how many of the oldest messages were left out.",
}


def _envelope(kind: str, choice: dict[str, Any], *, usage_nullable: bool) -> dict[str, Any]:
    usage = {"anyOf": [ref("Usage"), {"type": "null"}]} if usage_nullable else ref("Usage")
    return _object(
        {
            "id": _STR,
            "object": {"const": kind},
            "created": _INT,
            "model": _STR,
            "choices": {"type": "array", "items": choice},
            "usage": usage,
            "timings": ref("Timings"),
            "dropped_messages": _DROPPED,
        },
        ["id", "object", "created", "model", "choices"],
    )


_CALL = _object({"name": _STR, "arguments": {"type": "string", "description": "JSON text."}})
_TOOL_CALL = _object({"id": _STR, "type": {"const": "function"}, "function": _CALL})
_DELTA_CALL = _object({"index": _INT, "id": _STR, "type": {"const": "function"}, "function": _CALL})
_TOP = _object({"token": _STR, "logprob": _NUM, "bytes": {"type": "array", "items": _INT}})
_TOKEN_LOGPROB = _object({**_TOP["properties"], "top_logprobs": {"type": "array", "items": _TOP}})
_CHAT_LOGPROBS = {
    "anyOf": [
        _object({"content": {"type": "array", "items": _TOKEN_LOGPROB}, "refusal": {"type": "null"}}),
        {"type": "null"},
    ],
    "description": "With logprobs: each generated token's log-probability (docs/api.md says of which distribution).",
}
_CHAT_FINISH = ["stop", "length", "tool_calls", "function_call"]
_CHAT_CHOICE = _object(
    {
        "index": _INT,
        "message": _object(
            {
                "role": {"const": "assistant"},
                "content": {"type": ["string", "null"]},
                "tool_calls": {"type": "array", "items": _TOOL_CALL},
                "function_call": _CALL,
            },
            ["role", "content"],
        ),
        "logprobs": _CHAT_LOGPROBS,
        "finish_reason": {"enum": _CHAT_FINISH},
    }
)
_CHUNK_CHOICE = _object(
    {
        "index": _INT,
        "delta": _object(
            {
                "role": {"const": "assistant"},
                "content": _STR,
                "tool_calls": {"type": "array", "items": _DELTA_CALL},
                "function_call": _CALL,
            },
            [],
        ),
        "logprobs": _CHAT_LOGPROBS,
        "finish_reason": {"type": ["string", "null"], "enum": [*_CHAT_FINISH, None]},
    }
)
_TEXT_LOGPROBS = {
    "anyOf": [
        _object(
            {
                "tokens": {"type": "array", "items": _STR},
                "token_logprobs": {"type": "array", "items": _NUM},
                "top_logprobs": {"type": "array", "items": {"type": "object", "additionalProperties": _NUM}},
                "text_offset": {"type": "array", "items": _INT},
            }
        ),
        {"type": "null"},
    ]
}
_TEXT_CHOICE = _object({"index": _INT, "text": _STR, "logprobs": _TEXT_LOGPROBS, "finish_reason": _FINISH})
_MODEL = _object({"id": _STR, "object": {"const": "model"}, "created": _INT, "owned_by": _STR})

SCHEMAS: dict[str, dict[str, Any]] = {
    "Usage": _USAGE,
    "Timings": _TIMINGS,
    "ChatCompletion": _envelope("chat.completion", _CHAT_CHOICE, usage_nullable=False),
    "ChatCompletionChunk": _envelope("chat.completion.chunk", _CHUNK_CHOICE, usage_nullable=True),
    "Completion": _envelope("text_completion", _TEXT_CHOICE, usage_nullable=False),
    "CompletionChunk": _envelope("text_completion", _TEXT_CHOICE, usage_nullable=True),
    "Model": _MODEL,
    "ModelList": _object({"object": {"const": "list"}, "data": {"type": "array", "items": ref("Model")}}),
    "Health": _object(
        {
            "status": {"enum": ["ok", "no_model", "unavailable"]},
            "model": {"type": ["string", "null"]},
            "waiting": _INT,
            "busy": {"type": "boolean"},
            "reason": _STR,  # only while unavailable: the model failed to reload, or the engine is frozen
        },
        required=["status", "model", "waiting", "busy"],
    ),
    "Running": _object(
        {"status": {"const": "running"}, "message": _STR, "endpoints": {"type": "array", "items": _STR}}
    ),
    "GenerateStreamEvent": {
        "anyOf": [
            _object({"text": _STR}),
            _object({"finish_reason": {"enum": ["stop", "length"]}, "tokens_generated": _INT}),
        ]
    },
}


def json_content(name: str) -> dict[str, Any]:
    return {"application/json": {"schema": ref(name)}}


def sse_content(event: str) -> dict[str, Any]:
    """A Server-Sent Events stream whose every ``data:`` line is an ``event`` object (or an Error), then [DONE]."""
    return {
        "text/event-stream": {
            "schema": {
                "type": "string",
                "description": f"Server-Sent Events: one `data: <{event}>` line per piece (an error after the "
                "first piece comes as `data: <Error>`), then `data: [DONE]`. The JSON Schema of each event's data "
                "is in `x-event-schema`.",
            },
            "x-event-schema": {"anyOf": [ref(event), ref("Error")]},
        }
    }


PLAIN_TEXT = {
    "text/plain": {
        "schema": {
            "type": "string",
            "description": "UTF-8 text in chunks as it is generated; an error after the first chunk ends it with "
            "`\\n[ERROR: message]`.",
        }
    }
}
HTML = {"text/html": {"schema": {"type": "string", "description": "A web page (no scripts)."}}}
OPENAPI = {"application/json": {"schema": {"type": "object", "description": "This document."}}}
