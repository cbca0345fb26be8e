"""The reference article's project's HTTP contract, endpoint by endpoint, as a client written for it uses it:
``GET /``, ``POST /generate`` (its defaults and ranges) and ``POST /stream_generate`` (plain text chunks); and
``GET /v1/models/{id}`` with the official ``openai`` client."""

from __future__ import annotations

import httpx2 as httpx
import openai
import pytest

from tests.helpers.tiny_model import REPLIES
from tests.server.serving import Server

pytestmark = pytest.mark.slow


def test_root_says_running(tiny_server: Server) -> None:
    r = httpx.get(tiny_server.url + "/")
    assert r.status_code == 200 and r.json()["status"] == "running"
    assert {"/generate", "/stream_generate"} <= set(r.json()["endpoints"])


def test_generate_takes_the_references_fields_and_ranges(tiny_server: Server) -> None:
    url = tiny_server.url + "/generate"
    body = httpx.post(url, json={"prompt": "hi"}).json()  # every other field has the reference's default
    assert set(body) == {"generated_text", "finish_reason", "tokens_generated"} and body["finish_reason"] in (
        "stop",
        "length",
    )
    assert body["tokens_generated"] <= 50  # the reference's default max_new_tokens
    greedy = httpx.post(url, json={"prompt": "hi", "temperature": 0}).json()
    assert greedy["generated_text"] in REPLIES
    # top_p 0 is valid there (only the most likely token): the same as greedy.
    assert httpx.post(url, json={"prompt": "hi", "top_p": 0.0}).json() == greedy
    assert httpx.post(url, json={"prompt": "", "max_new_tokens": 4}).status_code == 200  # an empty prompt is valid
    for bad in ({"max_new_tokens": 0}, {"temperature": 2.01}, {"top_p": 1.5}, {"temperature": -1}):
        r = httpx.post(url, json={"prompt": "hi", **bad})
        assert r.status_code == 400 and r.json()["error"]["param"] == next(iter(bad)), bad
    described = httpx.get(tiny_server.url + "/openapi.json").json()["components"]["schemas"]["GenerateRequest"]
    defaults = {k: v.get("default") for k, v in described["properties"].items()}
    assert defaults == {"prompt": None, "max_new_tokens": 50, "temperature": 0.7, "top_p": 0.9}


def test_stream_generate_streams_plain_text_chunks(tiny_server: Server) -> None:
    ask = {"prompt": "Tell me a story.", "temperature": 0, "max_new_tokens": 64}
    plain = httpx.post(tiny_server.url + "/generate", json=ask).json()
    chunks = []
    with httpx.stream("POST", tiny_server.url + "/stream_generate", json=ask) as r:
        assert r.status_code == 200 and r.headers["content-type"] == "text/plain; charset=utf-8"
        chunks = [chunk for chunk in r.iter_bytes() if chunk]
    assert b"".join(chunks).decode() == plain["generated_text"]
    assert len(chunks) > 1  # streamed as it came, not in one piece
    refused = httpx.post(tiny_server.url + "/stream_generate", json={"prompt": "hi", "max_new_tokens": 0})
    assert refused.status_code == 400


def test_a_model_by_its_id(tiny_server: Server) -> None:
    with openai.OpenAI(base_url=tiny_server.v1, api_key="unused", max_retries=0) as client:
        model = client.models.retrieve("tiny")
        assert model.id == "tiny" and model.object == "model" and model.owned_by == "localmind"
        with pytest.raises(openai.NotFoundError, match="serves 'tiny'"):
            client.models.retrieve("gpt-4o")
