"""Reading tool calls out of a model's reply (tool_choice "auto"), the tools list, and the streaming hold-back."""

from __future__ import annotations

import itertools
import json

import pytest

from localmind.engine.tools import ToolStream, call_schema, parse_tool_calls, parse_tools
from localmind.engine.types import EngineError, ToolCall

TOOLS = json.dumps(
    [
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "description": "The weather in a city.",
                "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
            },
        },
        {"type": "function", "function": {"name": "now"}},
    ]
)


def ids() -> itertools.count[int]:
    return itertools.count(1)


def parse(text: str) -> tuple[str, list[ToolCall]]:
    counter = ids()
    return parse_tool_calls(text, lambda: f"call_{next(counter)}")


def test_qwen_style_blocks_with_content_before_them() -> None:
    text = (
        'Let me check.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>\n'
        '<tool_call>{"name": "now", "arguments": {}}</tool_call>'
    )
    content, calls = parse(text)
    assert content == "Let me check."
    assert calls == [
        ToolCall("call_1", "get_weather", '{"city": "Paris"}'),
        ToolCall("call_2", "now", "{}"),
    ]


def test_a_block_left_open_at_the_end_still_counts() -> None:
    _, calls = parse('<tool_call>{"name": "get_weather", "arguments": {"city": "北京"}}')
    assert calls == [ToolCall("call_1", "get_weather", '{"city": "北京"}')]


@pytest.mark.parametrize(
    "text",
    [
        '{"name": "get_weather", "parameters": {"city": "Oslo"}}',  # Llama 3.x
        '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Oslo"}}',
        '```json\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n```',
        '[{"name": "get_weather", "arguments": "{\\"city\\": \\"Oslo\\"}"}]',  # arguments as a JSON string
        '{"type": "function", "function": {"name": "get_weather", "arguments": {"city": "Oslo"}}}',
    ],
)
def test_bare_json_forms(text: str) -> None:
    content, calls = parse(text)
    assert content == ""
    assert [(c.name, json.loads(c.arguments)) for c in calls] == [("get_weather", {"city": "Oslo"})]


def test_several_llama_calls_separated_by_semicolons() -> None:
    _, calls = parse('{"name": "now", "parameters": {}}; {"name": "get_weather", "parameters": {"city": "Rome"}}')
    assert [c.name for c in calls] == ["now", "get_weather"]


@pytest.mark.parametrize(
    "text",
    [
        "Hello! No tools today.",
        'The JSON {"name": "x"} is an example, not a call.',
        '{"answer": 42}',  # JSON, but no name
        "<tool_call>not json</tool_call>",
        '{"name": "get_weather"',  # cut short
    ],
)
def test_text_that_is_not_a_call_stays_content(text: str) -> None:
    assert parse(text) == (text, [])


def test_an_id_the_model_wrote_is_kept_and_missing_ones_are_made() -> None:
    _, calls = parse('[{"id": "mine", "name": "now", "arguments": {}}, {"name": "now", "arguments": {}}]')
    assert [c.id for c in calls] == ["mine", "call_1"]
    _, made = parse_tool_calls('{"name": "now", "arguments": {}}')
    assert made[0].id.startswith("call_") and len(made[0].id) == 29


@pytest.mark.parametrize(
    ("tools", "words"),
    [
        ("[]", "non-empty"),
        ("{}", "non-empty"),
        ('[{"type": "retrieval"}]', "tools[0]"),
        ('[{"type": "function", "function": {"name": "bad name"}}]', "tools[0].function.name"),
        ('[{"function": {"name": "a"}}, {"function": {"name": "a"}}]', "same name"),
        ("nope", "not JSON"),
    ],
)
def test_invalid_tools_are_refused_naming_what(tools: str, words: str) -> None:
    with pytest.raises(EngineError, match="tools are not valid") as caught:
        parse_tools(tools)
    assert words in str(caught.value)


def test_call_schema_requires_the_function_and_its_parameters() -> None:
    specs = parse_tools(TOOLS)
    one = json.loads(call_schema(specs, "get_weather"))
    assert one["properties"]["name"] == {"const": "get_weather"}
    assert one["properties"]["arguments"]["required"] == ["city"]
    both = json.loads(call_schema(specs))
    assert [o["properties"]["name"]["const"] for o in both["anyOf"]] == ["get_weather", "now"]
    with pytest.raises(EngineError, match="missing"):
        call_schema(specs, "missing")


def feed_all(pieces: list[str]) -> tuple[str, str, list[ToolCall]]:
    stream = ToolStream()
    sent = "".join(stream.feed(p) for p in pieces)
    rest, calls = stream.finish()
    return sent, rest, calls


def test_content_streams_until_a_call_starts() -> None:
    sent, rest, calls = feed_all(["I will ", "look it up.", " <tool", '_call>{"name": "now", ', '"arguments": {}}'])
    assert sent == "I will look it up. "  # "<tool" was held back: it might have been (and was) a marker
    assert rest == ""
    assert [c.name for c in calls] == ["now"]


def test_held_text_that_was_no_call_comes_out_at_the_end() -> None:
    sent, rest, calls = feed_all(["a <", "tool is what I use"])
    assert sent + rest == "a <tool is what I use" and calls == []
    sent, rest, calls = feed_all(['{"score": ', "3}"])
    assert sent == "" and rest == '{"score": 3}' and calls == []
