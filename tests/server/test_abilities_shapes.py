"""OpenAI's shapes for tools, legacy functions, logprobs and logit_bias (server/abilities.py), read by the official
``openai`` package's own types: what the server sends parses as the client expects."""

from __future__ import annotations

import json

import pytest
from openai.types import Completion
from openai.types.chat import ChatCompletion, ChatCompletionChunk

from localmind.engine.types import ChatMessage, TokenLogprob, ToolCall
from localmind.server.abilities import (
    FieldError,
    chat_logprobs,
    chat_message,
    completion_logprobs,
    delta_calls,
    logit_bias,
    message_calls,
    tool_request,
)

FN = {"name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}
TOOLS = [{"type": "function", "function": FN}]
CALLS = (ToolCall("call_1", "get_weather", '{"city": "Paris"}'),)


def test_tools_and_choices() -> None:
    auto = tool_request(TOOLS, None, None, None)
    assert auto.tool_choice == "auto" and json.loads(auto.tools or "") == TOOLS and not auto.legacy
    named = tool_request(TOOLS, {"type": "function", "function": {"name": "get_weather"}}, None, None)
    assert (named.tool_choice, named.tool_name) == ("function", "get_weather")
    assert tool_request(TOOLS, "required", None, None).tool_choice == "required"
    assert tool_request(None, "none", None, None).tools is None


def test_legacy_functions_map_to_tools() -> None:
    legacy = tool_request(None, None, [FN], {"name": "get_weather"})
    assert legacy.legacy and json.loads(legacy.tools or "") == TOOLS
    assert (legacy.tool_choice, legacy.tool_name) == ("function", "get_weather")


@pytest.mark.parametrize(
    ("args", "param"),
    [
        ((TOOLS, "sometimes", None, None), "tool_choice"),
        ((TOOLS, {"type": "function", "function": {"name": "other"}}, None, None), "tool_choice"),
        ((None, "required", None, None), "tool_choice"),
        ((TOOLS, None, [FN], None), "functions"),
        (([{"type": "web"}], None, None, None), "tools"),
        ((None, None, [FN], {"name": "x"}), "function_call"),
    ],
)
def test_refusals_name_the_field(args: tuple[object, object, object, object], param: str) -> None:
    with pytest.raises(FieldError) as caught:
        tool_request(*args)  # type: ignore[arg-type]
    assert caught.value.param == param


def test_tool_messages_in_the_history() -> None:
    assistant = chat_message(
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "c9", "type": "function", "function": FN | {"arguments": '{"city": "Oslo"}'}}],
        },
        1,
    )
    assert assistant == ChatMessage("assistant", "", tool_calls=(ToolCall("c9", "get_weather", '{"city": "Oslo"}'),))
    assert chat_message({"role": "tool", "tool_call_id": "c9", "content": "5 C"}, 2) == ChatMessage(
        "tool", "5 C", tool_call_id="c9"
    )
    with pytest.raises(FieldError, match="tool_call_id"):
        chat_message({"role": "tool", "content": "5 C"}, 2)


def test_calls_parse_as_the_openai_client_reads_them() -> None:
    completion = ChatCompletion.model_validate(
        {
            "id": "x",
            "object": "chat.completion",
            "created": 0,
            "model": "m",
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "tool_calls",
                    "message": {"role": "assistant", "content": None, **message_calls(CALLS, False)},
                    "logprobs": None,
                }
            ],
        }
    )
    call = completion.choices[0].message.tool_calls[0]  # type: ignore[index]
    assert call.function.name == "get_weather" and json.loads(call.function.arguments) == {"city": "Paris"}  # type: ignore[union-attr]
    chunk = ChatCompletionChunk.model_validate(
        {
            "id": "x",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": "m",
            "choices": [{"index": 0, "delta": delta_calls(CALLS, False), "finish_reason": None}],
        }
    )
    assert chunk.choices[0].delta.tool_calls[0].index == 0  # type: ignore[index]
    assert message_calls(CALLS, True) == {"function_call": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}


def test_logprobs_shapes() -> None:
    tokens = [
        TokenLogprob("Hi", -0.1, (72, 105), (("Hi", -0.1, (72, 105)), ("Yo", -2.5, (89, 111)))),
        TokenLogprob("!", -0.2, (33,)),
    ]
    completion = ChatCompletion.model_validate(
        {
            "id": "x",
            "object": "chat.completion",
            "created": 0,
            "model": "m",
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "stop",
                    "message": {"role": "assistant", "content": "Hi!"},
                    "logprobs": chat_logprobs(tokens),
                }
            ],
        }
    )
    content = completion.choices[0].logprobs.content  # type: ignore[union-attr]
    assert content is not None and content[0].top_logprobs[1].token == "Yo"
    legacy = Completion.model_validate(
        {
            "id": "x",
            "object": "text_completion",
            "created": 0,
            "model": "m",
            "choices": [{"index": 0, "text": "Hi!", "finish_reason": "stop", "logprobs": completion_logprobs(tokens)}],
        }
    )
    assert legacy.choices[0].logprobs.text_offset == [0, 2]  # type: ignore[union-attr]


def test_logit_bias() -> None:
    assert logit_bias({"5": -100, "17": 2.5}) == ((5, -100.0), (17, 2.5))
    for bad in ({"a": 1}, {"5": 101}, {"5": True}):
        with pytest.raises(FieldError, match="logit_bias"):
            logit_bias(bad)
