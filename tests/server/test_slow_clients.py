"""A client hanging up mid-stream, and more clients than the queue holds, on a slow never-ending model."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx2 as httpx
import openai
import pytest

from tests.server.serving import Server, start_server

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def slow_server(slow_model: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    server = start_server(slow_model, tmp_path_factory.mktemp("slow"), "--max-queue", "1")
    yield server
    server.stop()


def _cancelled_line(server: Server, path: str) -> tuple[int, int]:
    text = server.wait_for_log(f'"POST {path}" ', timeout=15)
    for line in text.splitlines():
        if f'"POST {path}"' in line and "cancelled" in line:
            found = re.search(r"sent (\d+) pieces, generated (\d+) tokens", line)
            assert found, line
            return int(found[1]), int(found[2])
    raise AssertionError(text)


def test_hanging_up_mid_stream_stops_the_generation(slow_server: Server) -> None:
    client = openai.OpenAI(base_url=slow_server.v1, api_key="x", max_retries=0)
    stream = client.chat.completions.create(
        model="slow", messages=[{"role": "user", "content": "go on forever"}], max_tokens=3000, stream=True
    )
    received = 0
    for chunk in stream:
        received += bool(chunk.choices and chunk.choices[0].delta.content)
        if received >= 5:
            break
    stream.close()  # the client hangs up
    sent, generated = _cancelled_line(slow_server, "/v1/chat/completions")
    # Stopped within a step or two of the last piece sent (one may be in flight), not 3,000 tokens later.
    assert sent >= 5 and generated - sent <= 3, (sent, generated)
    # And the engine is free again at once.
    started = time.monotonic()
    reply = client.chat.completions.create(model="slow", messages=[{"role": "user", "content": "x"}], max_tokens=2)
    assert reply.usage.completion_tokens == 2 and time.monotonic() - started < 10  # type: ignore[union-attr]


@pytest.mark.parametrize("path", ["/generate/stream", "/stream_generate"])
def test_hanging_up_the_generate_streams_stops_the_generation(slow_server: Server, path: str) -> None:
    """The SSE and the plain-text forms of /generate share one body (generate_routes._relay): a client that reads a
    few pieces and goes away stops the engine, which is free again at once."""
    with httpx.stream(
        "POST", slow_server.url + path, json={"prompt": "go on forever", "max_new_tokens": 3000}, timeout=30
    ) as response:
        assert response.status_code == 200
        pieces = 0
        for chunk in response.iter_raw():
            pieces += bool(chunk)
            if pieces >= 5:
                break
    sent, generated = _cancelled_line(slow_server, path)
    assert sent >= 5 and generated - sent <= 3, (sent, generated)
    started = time.monotonic()
    done = httpx.post(slow_server.url + "/generate", json={"prompt": "x", "max_new_tokens": 2}, timeout=30)
    assert done.status_code == 200 and done.json()["tokens_generated"] == 2 and time.monotonic() - started < 10


def test_hanging_up_a_plain_request_stops_it_too(slow_server: Server) -> None:
    before = slow_server.log()
    with pytest.raises(httpx.ReadTimeout):
        httpx.post(slow_server.url + "/generate", json={"prompt": "long", "max_new_tokens": 3000}, timeout=1.0)
    text = slow_server.wait_for_log('"POST /generate" 499', timeout=15)
    line = next(ln for ln in text[len(before) :].splitlines() if '"POST /generate" 499' in ln)
    generated = int(re.search(r"generated (\d+) tokens", line)[1])  # type: ignore[index]
    assert generated < 200, line  # ~1 s of a model that makes ~30 tokens/s, not 3,000


def test_beyond_the_queue_is_429_with_retry_after(slow_server: Server) -> None:
    body = {"prompt": "busy", "max_new_tokens": 60}
    results: dict[str, int] = {}

    def ask(name: str) -> None:
        results[name] = httpx.post(slow_server.url + "/generate", json=body, timeout=60).status_code

    running = threading.Thread(target=ask, args=("running",))
    running.start()
    deadline = time.monotonic() + 10
    while not httpx.get(slow_server.url + "/health").json()["busy"] and time.monotonic() < deadline:
        time.sleep(0.02)
    waiting = threading.Thread(target=ask, args=("waiting",))
    waiting.start()
    while httpx.get(slow_server.url + "/health").json()["waiting"] < 1 and time.monotonic() < deadline:
        time.sleep(0.02)
    refused = httpx.post(slow_server.url + "/generate", json=body)
    assert refused.status_code == 429
    assert int(refused.headers["retry-after"]) >= 1
    assert refused.json()["error"]["code"] == "rate_limit_exceeded" and "busy" in refused.json()["error"]["message"]
    running.join(60)
    waiting.join(60)
    assert results == {"running": 200, "waiting": 200}
