"""Tools (function calling): rendering them into the prompt, constraining or parsing the model's calls.

The model's own chat template renders the tools where it takes them (og's renderer passes ``tools`` to the
template, as Qwen's ``<tool_call>{...}</tool_call>`` and Llama 3.x's JSON templates expect); assistant turns that
called tools and ``tool`` turns with their results go to the template in the Hugging Face form (``tool_calls`` with
``function.name`` and ``function.arguments`` as an object). A template that never mentions tools gets a generic
instruction in the system turn instead, and the calls and results as text it can render.

A call the model must make (``tool_choice`` "required" or a named function) is constrained decoding: the reply is
a JSON object ``{"name": ..., "arguments": ...}`` valid against the function's parameters (og's llguidance).
With "auto" the model writes what it wants and :func:`parse_tool_calls` reads calls out of it, tolerantly.
"""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

from localmind.engine.types import (
    ChatMessage,
    EngineError,
    GenerationOptions,
    StreamEvent,
    TextDelta,
    ToolCall,
)

MAX_TOOLS = 128
# Where a reply starts calling tools, in the forms the supported templates teach (Qwen/Hermes, Llama 3.x).
CALL_MARKERS = ("<tool_call>", "<|python_tag|>", "<function=")
_CALL_BLOCK = re.compile(r"<tool_call>(.*?)(?:</tool_call>|$)", re.S)


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    parameters: dict[str, Any]

    def as_openai(self) -> dict[str, Any]:
        function: dict[str, Any] = {"name": self.name, "parameters": self.parameters}
        if self.description:
            function["description"] = self.description
        return {"type": "function", "function": function}


def _bad_tools(detail: str) -> EngineError:
    return EngineError.say(
        "The tools are not valid: {detail}", "Send tools as OpenAI's API describes them.", detail=detail
    )


def parse_tools(tools_json: str) -> list[ToolSpec]:
    """OpenAI's ``tools`` list (JSON text) as specs; an EngineError naming ``tools`` when it is not one."""
    try:
        tools = json.loads(tools_json)
    except ValueError as exc:
        raise _bad_tools(f"not JSON ({exc})") from exc
    if not isinstance(tools, list) or not tools:
        raise _bad_tools("tools must be a non-empty list")
    if len(tools) > MAX_TOOLS:
        raise _bad_tools(f"at most {MAX_TOOLS} tools")
    specs: list[ToolSpec] = []
    for i, tool in enumerate(tools):
        function = tool.get("function") if isinstance(tool, dict) else None
        if not isinstance(tool, dict) or tool.get("type", "function") != "function" or not isinstance(function, dict):
            raise _bad_tools(f"tools[{i}] must be {{'type': 'function', 'function': {{...}}}}")
        name = function.get("name")
        if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9_.:-]{1,64}", name):
            raise _bad_tools(f"tools[{i}].function.name must be 1-64 letters, digits, _ . : or -")
        parameters = function.get("parameters", {"type": "object", "properties": {}})
        if not isinstance(parameters, dict):
            raise _bad_tools(f"tools[{i}].function.parameters must be a JSON schema object")
        description = function.get("description") or ""
        specs.append(ToolSpec(name, str(description), parameters))
    if len({s.name for s in specs}) != len(specs):
        raise _bad_tools("two tools have the same name")
    return specs


def template_takes_tools(template: str) -> bool:
    """Whether a chat template renders tools itself (it reads ``tools``)."""
    return re.search(r"\btools\b", template) is not None


def tools_instruction(specs: Sequence[ToolSpec]) -> str:
    """The generic instruction for templates that do not render tools: the tools and how to call them."""
    listed = "\n".join(json.dumps(s.as_openai(), ensure_ascii=False) for s in specs)
    return (
        "You can call these tools (functions):\n"
        f"{listed}\n"
        'To call one, answer with only <tool_call>{"name": <function name>, "arguments": <arguments as a JSON '
        "object>}</tool_call>, one block per call. Results come back in <tool_response> blocks."
    )


def _arguments_object(arguments: str) -> Any:
    try:
        return json.loads(arguments)
    except ValueError:
        return arguments


def _call_text(call: ToolCall) -> str:
    body = {"name": call.name, "arguments": _arguments_object(call.arguments)}
    return "<tool_call>\n" + json.dumps(body, ensure_ascii=False) + "\n</tool_call>"


def message_payload(
    messages: Sequence[ChatMessage], specs: Sequence[ToolSpec] | None, takes_tools: bool, clean: Callable[[str], str]
) -> list[dict[str, Any]]:
    """The messages as the template reads them (``clean`` is applied to assistant text: old thinking stripped).

    A template that takes tools gets tool calls and ``tool`` turns in the Hugging Face form; any other gets them
    as text (calls in ``<tool_call>`` blocks, results as a user turn in ``<tool_response>`` blocks) and, when the
    turn offers tools, the generic instruction in its system turn.
    """
    out: list[dict[str, Any]] = []
    for m in messages:
        content = clean(m.content) if m.role == "assistant" else m.content
        if takes_tools:
            item: dict[str, Any] = {"role": m.role, "content": content}
            if m.tool_calls:
                item["tool_calls"] = [
                    {
                        "id": c.id,
                        "type": "function",
                        "function": {"name": c.name, "arguments": _arguments_object(c.arguments)},
                    }
                    for c in m.tool_calls
                ]
            if m.tool_call_id is not None:
                item["tool_call_id"] = m.tool_call_id
            if m.name is not None:
                item["name"] = m.name
            out.append(item)
        elif m.role == "tool":
            out.append({"role": "user", "content": f"<tool_response>\n{content}\n</tool_response>"})
        elif m.tool_calls:
            calls = "\n".join(_call_text(c) for c in m.tool_calls)
            out.append({"role": m.role, "content": f"{content}\n{calls}" if content else calls})
        else:
            out.append({"role": m.role, "content": content})
    if specs and not takes_tools:
        instruction = tools_instruction(specs)
        if out and out[0]["role"] == "system":
            out[0] = {**out[0], "content": f"{out[0]['content']}\n\n{instruction}"}
        else:
            out.insert(0, {"role": "system", "content": instruction})
    return out


def call_schema(specs: Sequence[ToolSpec], name: str | None = None) -> str:
    """The JSON schema of one call (of ``name``, or of any of the tools) for constrained decoding."""
    chosen = [s for s in specs if name is None or s.name == name]
    if not chosen:
        raise EngineError.say(
            "tool_choice names the function {name}, which is not among the tools.",
            "Name one of the tools sent with the request.",
            name=name,
        )
    options = [
        {
            "type": "object",
            "properties": {"name": {"const": s.name}, "arguments": s.parameters},
            "required": ["name", "arguments"],
            "additionalProperties": False,
        }
        for s in chosen
    ]
    return json.dumps(options[0] if len(options) == 1 else {"anyOf": options})


def new_call_id() -> str:
    return "call_" + secrets.token_hex(12)


def _calls_in(value: Any, new_id: Callable[[], str]) -> list[ToolCall] | None:
    """Calls in a decoded JSON value: one call object or a list of them; None when it is not that."""
    items = value if isinstance(value, list) else [value]
    calls: list[ToolCall] = []
    for item in items:
        if isinstance(item, dict) and isinstance(item.get("function"), dict):
            item = item["function"]  # OpenAI's own form, some models copy it
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            return None
        arguments = item.get("arguments", item.get("parameters", {}))
        if isinstance(arguments, str):
            try:
                json.loads(arguments)
            except ValueError:
                arguments = json.dumps(arguments)
        else:
            arguments = json.dumps(arguments, ensure_ascii=False)
        calls.append(ToolCall(str(item.get("id") or new_id()), item["name"], arguments))
    return calls or None


def _json_values(text: str) -> Iterator[tuple[int, int, Any]]:
    """(start, end, value) of each JSON object or array in ``text``, left to right, not nested in one another."""
    decoder = json.JSONDecoder()
    i = 0
    while True:
        starts = [p for p in (text.find("{", i), text.find("[", i)) if p >= 0]
        if not starts:
            return
        start = min(starts)
        try:
            value, end = decoder.raw_decode(text, start)
        except ValueError:
            i = start + 1
            continue
        yield start, end, value
        i = end


def parse_tool_calls(text: str, new_id: Callable[[], str] = new_call_id) -> tuple[str, list[ToolCall]]:
    """(the reply's content without its calls, the calls) read tolerantly out of a model's reply.

    Reads ``<tool_call>{...}</tool_call>`` blocks (the closing tag may be missing at the end), Llama 3.x's
    ``<|python_tag|>`` and bare JSON (``{"name", "arguments" | "parameters"}`` or a list of them) when the reply is
    nothing else. Text that is not a call stays content; a reply without calls is all content.
    """
    calls: list[ToolCall] = []
    if "<tool_call>" in text:
        content_parts: list[str] = []
        last = 0
        for block in _CALL_BLOCK.finditer(text):
            found = [c for _, _, v in _json_values(block.group(1)) for c in (_calls_in(v, new_id) or [])]
            if found:
                calls.extend(found)
                content_parts.append(text[last : block.start()])
                last = block.end()
        if calls:
            return "".join([*content_parts, text[last:]]).strip(), calls
    head, tag, tail = text.partition("<|python_tag|>")
    body = tail if tag else text
    stripped = body.strip().removeprefix("```json").removeprefix("```").removesuffix("```").strip()
    values = list(_json_values(stripped))
    if not values:
        return text, []
    # Only JSON, perhaps separated by ; or , (Llama 3.x writes calls one after another): otherwise it is prose.
    bounds = [0, *(b for start, end, _ in values for b in (start, end)), len(stripped)]
    if any(stripped[a:b].strip(" \n\t;,") for a, b in zip(bounds[::2], bounds[1::2], strict=True)):
        return text, []
    for _, _, value in values:
        parsed = _calls_in(value, new_id)
        if parsed is None:
            return text, []
        calls.extend(parsed)
    return (head.strip() if tag else ""), calls


class ToolStream:
    """The text of an "auto" tool turn as it streams: content goes out at once, until something that may start a
    call (a marker, or a reply that starts with JSON): from there it is held, and parsed when the turn ends."""

    def __init__(self) -> None:
        self.text = ""
        self.sent = 0
        self.holding = False

    def feed(self, piece: str) -> str:
        """The part of ``piece`` (with what was held) that is surely content."""
        self.text += piece
        if self.holding:
            return ""
        if not self.text.strip():
            return ""  # leading space: wait to see whether JSON follows
        if self.text.lstrip()[:1] in "{[" or any(m in self.text for m in CALL_MARKERS):
            self.holding = True
            return ""
        # Hold back a tail that may be the start of a marker.
        keep = max((k for m in CALL_MARKERS for k in range(1, len(m)) if self.text.endswith(m[:k])), default=0)
        out = self.text[self.sent : len(self.text) - keep]
        self.sent += len(out)
        return out

    def finish(self) -> tuple[str, list[ToolCall]]:
        """(content not yet sent, the calls): what the turn's end gives."""
        content, calls = parse_tool_calls(self.text)
        if not calls:
            return self.text[self.sent :], []
        # Content written before the calls that was already sent is not sent twice.
        rest = content[self.sent :] if content.startswith(self.text[: self.sent]) else ""
        return rest, calls


def tool_turn_options(options: GenerationOptions, specs: Sequence[ToolSpec]) -> GenerationOptions:
    """The turn's options with the call's schema when a call is required (named or any)."""
    if options.tool_choice == "required":
        return replace(options, json_schema=call_schema(specs))
    if options.tool_choice == "function":
        return replace(options, json_schema=call_schema(specs, options.tool_name))
    return options


def required_call_events(events: Iterator[StreamEvent]) -> Iterator[StreamEvent]:
    """A constrained call turn's events: its JSON is not content but a call, given with TurnFinished. A turn that
    stopped before the call was whole (length, cancel) gives its text as content instead."""
    text: list[str] = []
    for event in events:
        if isinstance(event, TextDelta):
            text.append(event.text)
            continue
        whole = "".join(text)
        _, calls = parse_tool_calls(whole)
        if calls:
            yield replace(event, tool_calls=tuple(calls))
            return
        if whole:
            yield TextDelta(whole)
        yield event


def auto_call_events(events: Iterator[StreamEvent]) -> Iterator[StreamEvent]:
    """An "auto" tool turn's events: content streams, calls the model wrote come with TurnFinished."""
    stream = ToolStream()
    for event in events:
        if isinstance(event, TextDelta):
            out = stream.feed(event.text)
            if out or event.logprobs:
                yield replace(event, text=out)
            continue
        rest, calls = stream.finish()
        if rest:
            yield TextDelta(rest)
        yield replace(event, tool_calls=tuple(calls)) if calls else event


__all__ = [
    "ToolSpec",
    "ToolStream",
    "auto_call_events",
    "call_schema",
    "message_payload",
    "new_call_id",
    "parse_tool_calls",
    "parse_tools",
    "required_call_events",
    "template_takes_tools",
    "tool_turn_options",
    "tools_instruction",
]
