"""Every OpenAI field honoured or refused with a 400 naming it, and conversations longer than the context told, never
cut silently (issue 20) — with the official ``openai`` client against ``localmind serve`` on the tiny model."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2 as httpx
import openai
import pytest

from tests.helpers.tiny_model import REPLIES
from tests.server.serving import Server, start_server

pytestmark = pytest.mark.slow

HI = [{"role": "user", "content": "hi"}]


@pytest.fixture(scope="module")
def client(tiny_server: Server) -> Iterator[openai.OpenAI]:
    with openai.OpenAI(base_url=tiny_server.v1, api_key="unused", max_retries=0, timeout=30) as client:
        yield client


@pytest.fixture(scope="module")
def small_context(tiny_model: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[openai.OpenAI]:
    server = start_server(tiny_model, tmp_path_factory.mktemp("small"), "--context", "256")
    with openai.OpenAI(base_url=server.v1, api_key="unused", max_retries=0, timeout=30) as client:
        yield client
    server.stop()


def _long_chat(turns: int = 200) -> list[dict[str, Any]]:
    chat: list[dict[str, Any]] = [{"role": "system", "content": "Be brief."}]
    for i in range(turns):
        chat.append({"role": "user" if i % 2 == 0 else "assistant", "content": f"message number {i} of many"})
    return chat


@pytest.mark.parametrize("stream", [False, True])
def test_a_conversation_longer_than_the_context_is_a_400_with_the_counts(
    small_context: openai.OpenAI, stream: bool
) -> None:
    with pytest.raises(openai.BadRequestError) as info:
        small_context.chat.completions.create(model="tiny", messages=_long_chat(), max_tokens=20, stream=stream)
    error = info.value.body  # type: ignore[attr-defined]
    assert error["code"] == "context_length_exceeded" and error["param"] == "messages"
    message = error["message"]
    assert message.startswith("This model's maximum context length is 256 tokens. However, you requested ")
    assert "in the messages, 32 in the completion). Please reduce the length of the messages or completion" in message


def test_dropping_the_oldest_turns_is_asked_for_and_reported(small_context: openai.OpenAI) -> None:
    reply = small_context.chat.completions.create(
        model="tiny", messages=_long_chat(), max_tokens=20, temperature=0, extra_body={"drop_oldest_messages": True}
    )
    dropped = (reply.model_extra or {})["dropped_messages"]
    assert dropped > 150 and reply.usage is not None and reply.usage.prompt_tokens <= 256 - 32
    chunks = list(
        small_context.chat.completions.create(
            model="tiny",
            messages=_long_chat(),
            max_tokens=20,
            temperature=0,
            stream=True,
            extra_body={"drop_oldest_messages": True},
        )
    )
    last = next(c for c in chunks if c.choices and c.choices[0].finish_reason)
    assert (last.model_extra or {})["dropped_messages"] == dropped
    # A conversation that fits loses nothing, and says so when asked.
    short = small_context.chat.completions.create(
        model="tiny", messages=HI, temperature=0, extra_body={"drop_oldest_messages": True}
    )
    assert (short.model_extra or {})["dropped_messages"] == 0 and short.choices[0].message.content in REPLIES


def test_drop_oldest_as_the_servers_default(tiny_model: Path, tmp_path: Path) -> None:
    server = start_server(tiny_model, tmp_path, "--context", "256", "--drop-oldest")
    try:
        with openai.OpenAI(base_url=server.v1, api_key="unused", max_retries=0) as client:
            reply = client.chat.completions.create(model="tiny", messages=_long_chat(), max_tokens=20)
            assert (reply.model_extra or {})["dropped_messages"] > 150
            with pytest.raises(openai.BadRequestError, match="context length"):
                client.chat.completions.create(
                    model="tiny", messages=_long_chat(), max_tokens=20, extra_body={"drop_oldest_messages": False}
                )
    finally:
        server.stop()


@pytest.mark.parametrize(
    ("fields", "param"),
    [
        ({"logit_bias": {"50256": -101}}, "logit_bias"),
        ({"reasoning_effort": "low"}, "reasoning_effort"),
        ({"functions": [{"name": "bad name", "parameters": {}}]}, "functions"),
        ({"function_call": {"name": "f"}}, "function_call"),
        ({"tools": [{"type": "function", "function": {"name": "f"}}], "functions": [{"name": "g"}]}, "functions"),
        ({"tool_choice": "required"}, "tool_choice"),
        ({"logprobs": True, "top_logprobs": 21}, "top_logprobs"),
        ({"top_logprobs": 2}, "top_logprobs"),
        ({"n": 2, "stream": True}, "n"),
        ({"frequency_penalty": 0.5}, "frequency_penalty"),
        ({"presence_penalty": -1}, "presence_penalty"),
        ({"store": True}, "store"),
        ({"modalities": ["text", "audio"]}, "modalities"),
        ({"audio": {"voice": "alloy", "format": "wav"}}, "audio"),
        ({"prediction": {"type": "content", "content": "x"}}, "prediction"),
        ({"web_search_options": {}}, "web_search_options"),
        ({"service_tier": "flex"}, "service_tier"),
        ({"stream_options": {"include_usage": True}}, "stream_options"),  # without stream
        ({"stop": ["a", "b", "c", "d", "e"]}, "stop"),
        ({"messages": [{"role": "tool", "content": "x"}]}, "messages.0"),
        ({"messages": [{"role": "assistant", "content": None, "tool_calls": [{"id": "1"}]}]}, "messages.0.tool_calls"),
        ({"frobnicate": 1}, "frobnicate"),
    ],
)
def test_every_field_it_cannot_honour_is_a_400_naming_it(
    client: openai.OpenAI, fields: dict[str, Any], param: str
) -> None:
    ask: dict[str, Any] = {"model": "tiny", "messages": HI}
    extra = {k: v for k, v in fields.items() if k in ("frobnicate",)}
    ask.update({k: v for k, v in fields.items() if k not in extra})
    with pytest.raises(openai.BadRequestError) as info:
        client.chat.completions.create(**ask, extra_body=extra or None)
    error = info.value.body  # type: ignore[attr-defined]
    assert error["param"] == param, error
    assert param.split(".")[-1] in error["message"] or error["code"] in ("unsupported_parameter", "unknown_parameter")


@pytest.mark.parametrize(
    ("fields", "param"),
    [
        ({"suffix": "end"}, "suffix"),  # the tiny model's tokenizer has no fill-in-the-middle tokens
        ({"prompt": [1, 2], "echo": True}, "prompt"),
        ({"prompt": [[1, 2], [3]]}, "prompt"),
        ({"prompt": ["one", "two"]}, "prompt"),
        ({"best_of": 3}, "best_of"),
        ({"logit_bias": {"one": 5}}, "logit_bias"),
    ],
)
def test_completions_fields_it_cannot_honour_are_400s_naming_them(
    client: openai.OpenAI, fields: dict[str, Any], param: str
) -> None:
    ask: dict[str, Any] = {"model": "tiny", "prompt": "hi", **fields}
    with pytest.raises(openai.BadRequestError) as info:
        client.completions.create(**ask)
    error = info.value.body  # type: ignore[attr-defined]
    assert error["param"] == param and error["code"] in ("unsupported_parameter", "invalid_value"), error
    assert "should be a valid boolean" not in error["message"]


def test_what_it_can_honour_it_accepts(client: openai.OpenAI) -> None:
    """Bodies OpenAI's clients send that cost nothing to honour: other spellings of the same thing, and no-ops."""
    reply = client.chat.completions.create(
        model="tiny",
        messages=[
            {"role": "developer", "content": "Be brief."},
            {"role": "user", "content": "hi", "name": "ann"},
            {"role": "assistant", "content": None, "refusal": None},
            {"role": "user", "content": [{"type": "text", "text": "and again"}]},
        ],
        temperature=0,
        n=1,
        frequency_penalty=0,
        presence_penalty=0,
        logprobs=False,
        store=False,
        user="u-1",
        metadata={"k": "v"},
        service_tier="auto",
        tool_choice="none",
        parallel_tool_calls=False,
        modalities=["text"],
        stream=True,
        stream_options={"include_usage": True, "include_obfuscation": False},
        extra_body={"prompt_cache_key": "c", "safety_identifier": "s"},
    )
    text = "".join(c.choices[0].delta.content or "" for c in reply if c.choices)
    assert text in REPLIES


def test_a_tiny_positive_temperature_is_not_a_server_error(client: openai.OpenAI, tiny_server: Server) -> None:
    reply = client.chat.completions.create(model="tiny", messages=HI, temperature=5e-324, max_tokens=8)
    assert reply.choices[0].finish_reason in ("stop", "length")
    r = httpx.post(tiny_server.url + "/generate", json={"prompt": "hi", "temperature": 5e-324, "max_new_tokens": 8})
    assert r.status_code == 200, r.text
