"""Tools, logprobs, n and logit_bias on ``localmind serve`` (the tiny model) through the official ``openai`` client:
an agent-style round trip (tools → tool_calls → a tool result fed back → a final answer), streamed calls, the legacy
functions, and each refusal naming its field."""

from __future__ import annotations

import json
from collections.abc import Iterator

import jsonschema
import openai
import pytest

from tests.helpers.tiny_model import REPLIES
from tests.server.serving import Server

pytestmark = pytest.mark.slow

WEATHER = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "maxLength": 20},
        "days": {"type": "integer", "minimum": 1, "maximum": 7},
    },
    "required": ["city", "days"],
    "additionalProperties": False,
}
TOOLS = [{"type": "function", "function": {"name": "get_weather", "description": "Forecast.", "parameters": WEATHER}}]
ASK = [{"role": "user", "content": "Weather in Paris for 2 days?"}]


@pytest.fixture(scope="module")
def client(tiny_server: Server) -> Iterator[openai.OpenAI]:
    with openai.OpenAI(base_url=tiny_server.v1, api_key="unused", max_retries=0, timeout=60) as client:
        yield client


def test_an_agent_round_trip(client: openai.OpenAI) -> None:
    first = client.chat.completions.create(
        model="tiny",
        messages=ASK,  # type: ignore[arg-type]
        tools=TOOLS,  # type: ignore[arg-type]
        tool_choice={"type": "function", "function": {"name": "get_weather"}},
        temperature=0,
    )
    choice = first.choices[0]
    assert choice.finish_reason == "tool_calls" and choice.message.content is None
    (call,) = choice.message.tool_calls or []
    assert call.type == "function" and call.function.name == "get_weather" and call.id.startswith("call_")
    jsonschema.validate(json.loads(call.function.arguments), WEATHER)
    history = [
        *ASK,
        choice.message.model_dump(exclude_none=True),
        {"role": "tool", "tool_call_id": call.id, "content": json.dumps({"forecast": ["sun", "rain"]})},
    ]
    final = client.chat.completions.create(model="tiny", messages=history, tools=TOOLS, temperature=0)  # type: ignore[arg-type]
    assert final.choices[0].finish_reason == "stop" and final.choices[0].message.content in REPLIES
    assert not final.choices[0].message.tool_calls


def test_a_required_call_streams_as_tool_call_deltas(client: openai.OpenAI) -> None:
    chunks = list(
        client.chat.completions.create(
            model="tiny",
            messages=ASK,
            tools=TOOLS,
            tool_choice="required",
            temperature=0.8,
            seed=3,
            stream=True,  # type: ignore[arg-type]
        )
    )
    calls = [c for chunk in chunks for choice in chunk.choices for c in choice.delta.tool_calls or []]
    assert len(calls) == 1 and calls[0].index == 0 and calls[0].function is not None
    jsonschema.validate(json.loads(calls[0].function.arguments or ""), WEATHER)
    assert chunks[-1].choices[0].finish_reason == "tool_calls"
    assert not "".join(choice.delta.content or "" for chunk in chunks for choice in chunk.choices)


def test_legacy_functions_answer_with_function_call(client: openai.OpenAI) -> None:
    reply = client.chat.completions.create(
        model="tiny",
        messages=ASK,  # type: ignore[arg-type]
        functions=[TOOLS[0]["function"]],  # type: ignore[list-item]
        function_call={"name": "get_weather"},
        temperature=0,
    )
    choice = reply.choices[0]
    assert choice.finish_reason == "function_call" and choice.message.function_call is not None
    assert choice.message.function_call.name == "get_weather"


def test_auto_and_none_answer_in_text(client: openai.OpenAI) -> None:
    for choice in ("auto", "none"):
        reply = client.chat.completions.create(
            model="tiny", messages=ASK, tools=TOOLS, tool_choice=choice, temperature=0
        )  # type: ignore[arg-type]
        assert reply.choices[0].message.content in REPLIES and reply.choices[0].finish_reason == "stop"


def test_logprobs_and_top_logprobs(client: openai.OpenAI) -> None:
    reply = client.chat.completions.create(
        model="tiny",
        messages=ASK,
        temperature=0,
        logprobs=True,
        top_logprobs=2,  # type: ignore[arg-type]
    )
    content = reply.choices[0].logprobs.content if reply.choices[0].logprobs else None
    assert content is not None and reply.usage is not None and len(content) == reply.usage.completion_tokens
    assert all(t.logprob <= 0 and len(t.top_logprobs) == 2 for t in content)
    streamed = list(
        client.chat.completions.create(model="tiny", messages=ASK, temperature=0, logprobs=True, stream=True)  # type: ignore[arg-type]
    )
    tokens = [
        t for c in streamed for ch in c.choices if ch.logprobs and ch.logprobs.content for t in ch.logprobs.content
    ]
    assert [t.token for t in tokens] == [t.token for t in content]


def test_n_choices(client: openai.OpenAI) -> None:
    reply = client.chat.completions.create(model="tiny", messages=ASK, n=2, temperature=0.9, seed=5)  # type: ignore[arg-type]
    assert [c.index for c in reply.choices] == [0, 1]
    assert all(c.message.content in REPLIES for c in reply.choices)
    with pytest.raises(openai.BadRequestError, match="'n'"):
        client.chat.completions.create(model="tiny", messages=ASK, n=2, stream=True)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("fields", "param"),
    [
        ({"tools": TOOLS, "tool_choice": {"type": "function", "function": {"name": "nope"}}}, "tool_choice"),
        ({"tools": [{"type": "function", "function": {"name": "bad name"}}]}, "tools"),
        ({"tool_choice": "required"}, "tool_choice"),
        ({"logit_bias": {"x": 1}}, "logit_bias"),
        (  # parameters the engine's constrained decoding cannot follow
            {
                "tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "foo"}}}],
                "tool_choice": "required",
            },
            "tools",
        ),
        ({"top_logprobs": 2}, "top_logprobs"),
        ({"messages": [{"role": "tool", "content": "3"}]}, "messages.0"),
    ],
)
def test_refusals_name_the_field(client: openai.OpenAI, fields: dict[str, object], param: str) -> None:
    body = {"model": "tiny", "messages": ASK, **fields}
    with pytest.raises(openai.BadRequestError) as caught:
        client.chat.completions.create(**body)  # type: ignore[call-overload]
    assert isinstance(caught.value.body, dict) and caught.value.body.get("param") == param
