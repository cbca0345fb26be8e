"""OpenAI's shapes for the engine's abilities (issue 20), apart from the routes: tools and the legacy
``functions``/``function_call`` mapped to the engine's options, tool messages to ChatMessages, calls and
log-probabilities to OpenAI's response and stream shapes, ``logit_bias`` checked.

Pure functions of plain data: the routes call them; tests check them without a server.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from localmind.engine.types import ChatMessage, TokenLogprob, ToolCall


class FieldError(Exception):
    """A request field the server refuses: a 400 naming ``param``."""

    def __init__(self, message: str, param: str) -> None:
        super().__init__(message)
        self.message, self.param = message, param


@dataclass(frozen=True)
class ToolRequest:
    """What a request asks about tools, as GenerationOptions takes it."""

    tools: str | None = None  # OpenAI's tools list, JSON text
    tool_choice: str = "auto"  # "auto" | "none" | "required" | "function"
    tool_name: str | None = None
    legacy: bool = False  # asked with functions/function_call: answer with function_call, not tool_calls


def _choice(value: Any, param: str) -> tuple[str, str | None]:
    if value is None or value == "auto":
        return "auto", None
    if value in ("none", "required"):
        return str(value), None
    if isinstance(value, dict):
        named = value.get("function") if param == "tool_choice" else value
        name = named.get("name") if isinstance(named, dict) else None
        if isinstance(name, str) and name:
            return "function", name
    words = "'auto', 'none', 'required' or {'type': 'function', 'function': {'name': ...}}"
    if param == "function_call":
        words = "'auto', 'none' or {'name': ...}"
    raise FieldError(f"'{param}' must be {words}.", param)


def tool_request(
    tools: list[Any] | None, tool_choice: Any, functions: list[Any] | None, function_call: Any
) -> ToolRequest:
    """The request's tools (or legacy functions, mapped to the same) and choice; FieldError naming the field."""
    if functions is not None and tools is not None:
        raise FieldError("Send either 'tools' or the older 'functions', not both.", "functions")
    legacy = functions is not None or (tools is None and function_call is not None)
    listed = [{"type": "function", "function": f} for f in functions] if functions is not None else tools
    choice, name = _choice(function_call if legacy else tool_choice, "function_call" if legacy else "tool_choice")
    if not listed:
        if choice in ("required", "function"):
            param = "function_call" if legacy else "tool_choice"
            raise FieldError(f"'{param}' asks for a call, but no tools were sent.", param)
        return ToolRequest(tool_choice=choice)
    from localmind.engine.tools import parse_tools
    from localmind.engine.types import EngineError

    text = json.dumps(listed, ensure_ascii=False)
    try:
        specs = parse_tools(text)
    except EngineError as exc:
        message = exc.message.replace("tools", "functions") if legacy else exc.message
        raise FieldError(message, "functions" if legacy else "tools") from None
    if name is not None and name not in {s.name for s in specs}:
        param = "function_call" if legacy else "tool_choice"
        raise FieldError(f"'{param}' names the function '{name}', which is not among the tools.", param)
    return ToolRequest(text, choice, name, legacy)


def chat_message(message: dict[str, Any], index: int) -> ChatMessage:
    """One OpenAI message (already checked for shape) as a ChatMessage, tool calls and tool results included."""
    role = message.get("role")
    content = message.get("content")
    text = content if isinstance(content, str) else "".join(p.get("text", "") for p in content or [])
    if role == "developer":
        role = "system"
    if role == "function":  # the legacy form of a tool result
        return ChatMessage("tool", text, tool_call_id=message.get("name"), name=message.get("name"))
    if role == "tool":
        call_id = message.get("tool_call_id")
        if not isinstance(call_id, str) or not call_id:
            raise FieldError(f"messages[{index}] has role 'tool' without a 'tool_call_id'.", f"messages.{index}")
        return ChatMessage("tool", text, tool_call_id=call_id)
    calls: list[ToolCall] = []
    for k, call in enumerate(message.get("tool_calls") or []):
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict) or not isinstance(function.get("name"), str):
            raise FieldError(f"messages[{index}].tool_calls[{k}] needs function.name.", f"messages.{index}.tool_calls")
        arguments = function.get("arguments", "{}")
        arguments = arguments if isinstance(arguments, str) else json.dumps(arguments)
        calls.append(ToolCall(str(call.get("id") or f"call_{index}_{k}"), function["name"], arguments))
    legacy_call = message.get("function_call")
    if isinstance(legacy_call, dict) and isinstance(legacy_call.get("name"), str):
        calls.append(ToolCall(legacy_call["name"], legacy_call["name"], str(legacy_call.get("arguments", "{}"))))
    if role not in ("system", "user", "assistant"):
        raise FieldError(f"messages[{index}] has role '{role}'.", f"messages.{index}.role")
    return ChatMessage(role, text, tool_calls=tuple(calls))


def message_calls(calls: Sequence[ToolCall], legacy: bool) -> dict[str, Any]:
    """The assistant message's fields for its calls: ``tool_calls`` (or the legacy ``function_call``)."""
    if legacy:
        first = calls[0]
        return {"function_call": {"name": first.name, "arguments": first.arguments}}
    return {
        "tool_calls": [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}} for c in calls
        ]
    }


def delta_calls(calls: Sequence[ToolCall], legacy: bool) -> dict[str, Any]:
    """A stream chunk's delta with the calls whole (each with its index, as OpenAI's deltas carry)."""
    if legacy:
        return message_calls(calls, legacy)
    return {
        "tool_calls": [
            {"index": i, "id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
            for i, c in enumerate(calls)
        ]
    }


def finish_reason_for_calls(legacy: bool) -> str:
    return "function_call" if legacy else "tool_calls"


def chat_logprobs(tokens: Sequence[TokenLogprob]) -> dict[str, Any]:
    """Chat's ``logprobs`` object: ``content`` with each token, its logprob, bytes and top alternatives."""
    return {
        "content": [
            {
                "token": t.token,
                "logprob": t.logprob,
                "bytes": list(t.bytes),
                "top_logprobs": [{"token": a, "logprob": v, "bytes": list(b)} for a, v, b in t.top],
            }
            for t in tokens
        ],
        "refusal": None,
    }


def completion_logprobs(tokens: Sequence[TokenLogprob], start: int = 0) -> dict[str, Any]:
    """/v1/completions' legacy ``logprobs`` object; ``start`` is the text offset of the first token."""
    offsets: list[int] = []
    at = start
    for t in tokens:
        offsets.append(at)
        at += len(t.token)
    return {
        "tokens": [t.token for t in tokens],
        "token_logprobs": [t.logprob for t in tokens],
        "top_logprobs": [{a: v for a, v, _ in t.top} for t in tokens],
        "text_offset": offsets,
    }


# The engine's refusals of a request's field (they cross the engine's process as EngineError with these words).
_ENGINE_FIELDS = (
    ("suffix", "suffix"),
    ("logit_bias", "logit_bias"),
    ("The prompt's token ids", "prompt"),
    ("The tools are not valid", "tools"),
    ("tool_choice names", "tool_choice"),
    ("top_logprobs must", "top_logprobs"),
)


def engine_field(message: str) -> str | None:
    """The request field an engine error is about (a 400 naming it), or None for a failure of the engine."""
    return next((param for start, param in _ENGINE_FIELDS if message.startswith(start)), None)


def logit_bias(value: dict[str, Any] | None) -> tuple[tuple[int, float], ...]:
    """OpenAI's ``logit_bias`` (token id as a string → -100..100) as the engine takes it."""
    if not value:
        return ()
    if len(value) > 1024:
        raise FieldError("'logit_bias' may list at most 1024 tokens.", "logit_bias")
    out: list[tuple[int, float]] = []
    for key, bias in value.items():
        if not str(key).isdigit():
            raise FieldError(f"'logit_bias' keys are token ids (got '{key}').", "logit_bias")
        if isinstance(bias, bool) or not isinstance(bias, int | float) or not -100 <= bias <= 100:
            raise FieldError(f"'logit_bias' values are numbers from -100 to 100 (got {bias!r}).", "logit_bias")
        out.append((int(key), float(bias)))
    return tuple(out)


__all__ = [
    "FieldError",
    "ToolRequest",
    "chat_logprobs",
    "chat_message",
    "completion_logprobs",
    "delta_calls",
    "engine_field",
    "finish_reason_for_calls",
    "logit_bias",
    "message_calls",
    "tool_request",
]
