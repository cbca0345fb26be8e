"""``localmind serve`` on the tiny model, driven by the official ``openai`` package."""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import openai
import pytest

from localmind.engine.local import LocalEngine
from localmind.engine.types import ChatMessage, GenerationOptions, TextDelta
from tests.helpers.tiny_model import REPLIES
from tests.server.serving import Server, start_server

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def client(tiny_server: Server) -> Iterator[openai.OpenAI]:
    # Closed at the end: a client left to the garbage collector warns about its open connection in a later test.
    with openai.OpenAI(base_url=tiny_server.v1, api_key="unused", max_retries=0, timeout=30) as client:
        yield client


def window_reply(model: Path, messages: list[ChatMessage]) -> str:
    """What the window's engine answers for the same conversation (greedy)."""
    engine = LocalEngine()
    engine.load(str(model))
    events = engine.generate(messages, GenerationOptions(temperature=0))
    return "".join(e.text for e in events if isinstance(e, TextDelta))


def test_models_lists_the_served_model(client: openai.OpenAI) -> None:
    assert [m.id for m in client.models.list()] == ["tiny"]


def test_chat_answers_exactly_like_the_window(client: openai.OpenAI, tiny_model: Path) -> None:
    history = [ChatMessage("system", "Be brief."), ChatMessage("user", "你好 🙂")]
    reply = client.chat.completions.create(
        model="tiny", messages=[{"role": m.role, "content": m.content} for m in history], temperature=0
    )
    choice = reply.choices[0]
    assert choice.message.content == window_reply(tiny_model, history)
    assert choice.message.role == "assistant" and choice.finish_reason == "stop"
    assert reply.usage is not None and reply.usage.completion_tokens > 0 and reply.usage.prompt_tokens > 0
    assert reply.usage.total_tokens == reply.usage.prompt_tokens + reply.usage.completion_tokens


def test_stream_gives_the_same_text_and_usage_at_the_end(client: openai.OpenAI) -> None:
    messages = [{"role": "user", "content": "Tell me a story about a cat."}]
    plain = client.chat.completions.create(model="tiny", messages=messages, temperature=0)
    chunks = list(
        client.chat.completions.create(
            model="tiny", messages=messages, temperature=0, stream=True, stream_options={"include_usage": True}
        )
    )
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == plain.choices[0].message.content and text in REPLIES
    assert len([c for c in chunks if c.choices and c.choices[0].delta.content]) > 3  # really streamed
    assert chunks[0].choices[0].delta.role == "assistant"
    assert [c.choices[0].finish_reason for c in chunks if c.choices and c.choices[0].finish_reason] == ["stop"]
    assert chunks[-1].choices == [] and chunks[-1].usage is not None
    assert chunks[-1].usage.completion_tokens == plain.usage.completion_tokens  # type: ignore[union-attr]
    assert all(c.usage is None for c in chunks[:-1])


def test_stream_without_usage_has_none(client: openai.OpenAI) -> None:
    chunks = list(
        client.chat.completions.create(
            model="tiny", messages=[{"role": "user", "content": "hi"}], stream=True, temperature=0
        )
    )
    assert all(c.usage is None and c.choices for c in chunks)


def test_resent_conversation_reuses_the_cached_prefix(client: openai.OpenAI) -> None:
    messages: list[dict[str, str]] = [{"role": "system", "content": "You are terse."}]
    cached = []
    for turn in range(4):
        messages.append({"role": "user", "content": f"question number {turn}"})
        reply = client.chat.completions.create(model="tiny", messages=messages, temperature=0)  # type: ignore[arg-type]
        messages.append({"role": "assistant", "content": reply.choices[0].message.content or ""})
        details = reply.usage.prompt_tokens_details  # type: ignore[union-attr]
        usage = reply.usage
        assert usage is not None
        cached.append((details.cached_tokens if details else 0, usage.prompt_tokens, usage.completion_tokens))
    # The first request shares at most its opening tokens with the module's earlier conversations.
    assert cached[0][0] < cached[0][1] // 2
    # From turn 2 on, the whole previous turn (its prompt and the reply) was already in the cache.
    for (_, prompt, completion), (cached_now, _, _) in itertools.pairwise(cached):
        assert cached_now >= prompt + completion


def test_max_tokens_stops_with_length(client: openai.OpenAI) -> None:
    for field in ("max_tokens", "max_completion_tokens"):
        reply = client.chat.completions.create(
            model="tiny", messages=[{"role": "user", "content": "hi"}], temperature=0, **{field: 3}
        )
        assert reply.choices[0].finish_reason == "length" and reply.usage.completion_tokens == 3  # type: ignore[union-attr]


def test_stop_sequences_cut_the_reply(client: openai.OpenAI) -> None:
    messages = [{"role": "user", "content": "hi"}]
    full = client.chat.completions.create(model="tiny", messages=messages, temperature=0).choices[0].message.content
    assert full is not None and len(full) > 10
    stop = full[5:9]
    for stream in (False, True):
        if stream:
            chunks = client.chat.completions.create(
                model="tiny", messages=messages, temperature=0, stop=[stop, "zzz"], stream=True
            )
            got = "".join(c.choices[0].delta.content or "" for c in chunks)
        else:
            got = (
                client.chat.completions.create(model="tiny", messages=messages, temperature=0, stop=stop)
                .choices[0]
                .message.content
            )
        assert got == full[: full.index(stop)]


def test_seed_makes_sampling_repeatable(client: openai.OpenAI) -> None:
    ask = dict(model="tiny", messages=[{"role": "user", "content": "hi"}], temperature=1.5, seed=7)
    first = client.chat.completions.create(**ask).choices[0].message.content  # type: ignore[call-overload]
    assert client.chat.completions.create(**ask).choices[0].message.content == first  # type: ignore[call-overload]


def test_completions_endpoint(client: openai.OpenAI) -> None:
    reply = client.completions.create(model="tiny", prompt="hi", max_tokens=64, temperature=0)
    assert reply.choices[0].text in REPLIES and reply.choices[0].finish_reason == "stop"
    streamed = client.completions.create(model="tiny", prompt="hi", max_tokens=64, temperature=0, stream=True)
    assert "".join(c.choices[0].text for c in streamed) == reply.choices[0].text
    echoed = client.completions.create(model="tiny", prompt="hi", max_tokens=64, temperature=0, echo=True)
    assert echoed.choices[0].text == "hi" + reply.choices[0].text


@pytest.mark.parametrize(
    ("kwargs", "error", "needle"),
    [
        ({"model": "gpt-4o"}, openai.NotFoundError, "serves 'tiny'"),
        ({"n": 9}, openai.BadRequestError, "'n'"),
        ({"temperature": 3}, openai.BadRequestError, "temperature"),
        (
            {"response_format": {"type": "json_schema", "json_schema": {"type": "foo"}}},
            openai.BadRequestError,
            "schema",
        ),
        (
            {"tools": [{"type": "function", "function": {"name": "bad name", "parameters": {}}}]},
            openai.BadRequestError,
            "tools[0].function.name",
        ),
        ({"messages": []}, openai.BadRequestError, "messages"),
        ({"messages": [{"role": "tool", "content": "x"}]}, openai.BadRequestError, "tool_call_id"),
        (
            {"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "x"}}]}]},
            openai.BadRequestError,
            "text only",
        ),
        ({"max_tokens": 0}, openai.BadRequestError, "max_tokens"),
        ({"top_logprobs": 2}, openai.BadRequestError, "top_logprobs"),
    ],
)
def test_bad_requests_get_openai_errors(client: openai.OpenAI, kwargs: dict, error: type, needle: str) -> None:  # type: ignore[type-arg]
    ask = {"model": "tiny", "messages": [{"role": "user", "content": "hi"}], **kwargs}
    with pytest.raises(error) as info:
        client.chat.completions.create(**ask)
    assert needle in str(info.value)
    body = info.value.body  # type: ignore[attr-defined]
    assert set(body) >= {"message", "type", "param", "code"}


def test_four_concurrent_streams_all_complete(client: openai.OpenAI) -> None:
    results: dict[int, str] = {}

    def ask(i: int) -> None:
        chunks = client.chat.completions.create(
            model="tiny", messages=[{"role": "user", "content": f"client {i}"}], temperature=0, stream=True
        )
        results[i] = "".join(c.choices[0].delta.content or "" for c in chunks)

    threads = [threading.Thread(target=ask, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert sorted(results) == [0, 1, 2, 3]
    alone = {
        i: client.chat.completions.create(
            model="tiny", messages=[{"role": "user", "content": f"client {i}"}], temperature=0
        )
        .choices[0]
        .message.content
        for i in range(4)
    }
    assert results == alone and all(r in REPLIES for r in results.values())


def test_one_log_line_per_request(tiny_model: Path, tmp_path: Path) -> None:
    # Its own server: on a shared one, an earlier test's streamed request may still be logging when this one starts.
    server = start_server(tiny_model, tmp_path, env={"LOCALMIND_DATA_DIR": str(tmp_path / "data")})
    own = openai.OpenAI(base_url=server.v1, api_key="unused", max_retries=0, timeout=30)
    try:
        own.chat.completions.create(model="tiny", messages=[{"role": "user", "content": "log me"}], temperature=0)
        with pytest.raises(openai.NotFoundError):
            own.chat.completions.create(model="nope", messages=[{"role": "user", "content": "x"}])
        server.wait_for_log('"POST /v1/chat/completions" 200')
        text = server.wait_for_log('"POST /v1/chat/completions" 404')
        time.sleep(0.5)  # a second line for either request would come now: give it the chance to show
        lines = [line for line in server.log().splitlines() if '"POST /v1/chat/completions"' in line]
        assert len(lines) == 2, text
        [ok] = [line for line in lines if '" 200 ' in line]
        assert "completion" in ok and "stop" in ok
    finally:
        own.close()  # else its pooled connection is left to the garbage collector, which warns in a later test
        server.stop()


def test_min_tokens_extension_and_server_timings(client: openai.OpenAI) -> None:
    reply = client.chat.completions.create(
        model="tiny", messages=[{"role": "user", "content": "hi"}], max_tokens=30, extra_body={"min_tokens": 30}
    )
    assert reply.usage is not None and reply.usage.completion_tokens == 30
    timings = (reply.model_extra or {})["timings"]
    assert set(timings) == {"queued_ms", "ttft_ms", "engine_ms"} and timings["engine_ms"] >= timings["ttft_ms"] > 0
