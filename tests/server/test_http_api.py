"""``/generate``, auth, limits, CORS and start-up checks, over raw HTTP (httpx) against ``localmind serve``."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx2 as httpx
import openai
import pytest

from tests.helpers.tiny_model import REPLIES
from tests.server.serving import Server, start_server

pytestmark = pytest.mark.slow


def sse_events(response: httpx.Response) -> list[object]:
    events: list[object] = []
    for line in response.iter_lines():
        if line.startswith("data: "):
            payload = line[len("data: ") :]
            events.append(payload if payload == "[DONE]" else json.loads(payload))
    return events


def test_generate_answers_the_articles_shape(tiny_server: Server) -> None:
    r = httpx.post(
        tiny_server.url + "/generate", json={"prompt": "hi", "max_new_tokens": 64, "temperature": 0, "top_p": 1.0}
    )
    assert r.status_code == 200, r.text
    body = r.json()
    assert set(body) == {"generated_text", "tokens_generated", "finish_reason"}
    assert body["generated_text"] in REPLIES and body["finish_reason"] == "stop" and body["tokens_generated"] > 3
    short = httpx.post(tiny_server.url + "/generate", json={"prompt": "hi", "max_new_tokens": 2, "temperature": 0})
    assert short.json()["finish_reason"] == "length" and short.json()["tokens_generated"] == 2


def test_generate_stream(tiny_server: Server) -> None:
    plain = httpx.post(tiny_server.url + "/generate", json={"prompt": "hi", "temperature": 0}).json()
    with httpx.stream("POST", tiny_server.url + "/generate/stream", json={"prompt": "hi", "temperature": 0}) as r:
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
        events = sse_events(r)
    assert events[-1] == "[DONE]"
    assert events[-2] == {"finish_reason": "stop", "tokens_generated": plain["tokens_generated"]}
    assert "".join(e["text"] for e in events[:-2]) == plain["generated_text"]  # type: ignore[index]


@pytest.mark.parametrize(
    ("body", "status", "needle"),
    [
        ({}, 400, "Missing required parameter: 'prompt'"),
        ({"prompt": "hi", "max_new_tokens": 0}, 400, "max_new_tokens"),
        ({"prompt": "hi", "top_p": -0.1}, 400, "top_p"),
        ({"prompt": "hi", "temperature": 2.5}, 400, "temperature"),
        ({"prompt": ["a"]}, 400, "prompt"),
        ({"prompt": "hi", "temperature": "hot"}, 400, "temperature"),
    ],
)
def test_generate_rejects_bad_input(tiny_server: Server, body: dict, status: int, needle: str) -> None:  # type: ignore[type-arg]
    r = httpx.post(tiny_server.url + "/generate", json=body)
    assert r.status_code == status
    assert needle in r.json()["error"]["message"] or needle == r.json()["error"]["param"]


def test_the_server_survives_garbage(tiny_server: Server) -> None:
    url = tiny_server.url
    bad = [
        httpx.post(url + "/v1/chat/completions", content=b"{not json"),
        httpx.post(url + "/v1/chat/completions", content=b"\xff\xfe\x00", headers={"content-type": "application/json"}),
        httpx.post(url + "/v1/chat/completions", json=[1, 2, 3]),
        httpx.post(url + "/v1/chat/completions", json={"model": "tiny", "messages": "hi"}),
        httpx.post(url + "/v1/chat/completions", json={"model": "tiny", "messages": [{"content": "no role"}]}),
        httpx.post(
            url + "/v1/chat/completions",
            json={"model": "tiny", "messages": [{"role": "user", "content": "x"}], "stop": 5},
        ),
        httpx.get(url + "/v1/chat/completions"),
        httpx.post(url + "/admin"),
        httpx.get(url + "/nothing-here"),
    ]
    assert [r.status_code for r in bad] == [400, 400, 400, 400, 400, 400, 405, 404, 404]
    assert all(set(r.json()["error"]) == {"message", "type", "param", "code"} for r in bad)
    ok = httpx.post(url + "/generate", json={"prompt": "still there?", "temperature": 0})
    assert ok.status_code == 200 and ok.json()["generated_text"] in REPLIES


def test_limits_on_body_prompt_and_host(tiny_model: Path, tmp_path: Path) -> None:
    server = start_server(tiny_model, tmp_path, "--max-body-bytes", "2000", "--max-prompt-chars", "100")
    try:
        r = httpx.post(server.url + "/generate", json={"prompt": "x" * 5000})
        assert r.status_code == 413 and "at most 2,000 bytes" in r.json()["error"]["message"]
        # Chunked, without a Content-Length: counted as it arrives.
        r = httpx.post(server.url + "/generate", content=iter([b'{"prompt": "', b"x" * 3000, b'"}']))
        assert r.status_code == 413
        r = httpx.post(server.url + "/generate", json={"prompt": "y" * 150})
        assert r.status_code == 400 and r.json()["error"]["code"] == "prompt_too_long"
        assert "150 characters" in r.json()["error"]["message"]
        r = httpx.post(
            server.url + "/v1/chat/completions",
            json={
                "model": "tiny",
                "messages": [{"role": "user", "content": "z" * 60}, {"role": "user", "content": "z" * 60}],
            },
        )
        assert r.status_code == 400 and r.json()["error"]["code"] == "prompt_too_long"
        # A page whose DNS name was rebound to 127.0.0.1 still says its own name in Host.
        r = httpx.get(server.url + "/v1/models", headers={"Host": "attacker.example:8000"})
        assert r.status_code == 400 and r.json()["error"]["code"] == "invalid_host"
        assert httpx.get(server.url.replace("127.0.0.1", "localhost") + "/v1/models").status_code == 200
    finally:
        server.stop()


@pytest.fixture(scope="module")
def keyed_server(tiny_model: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    server = start_server(
        tiny_model, tmp_path_factory.mktemp("keyed"), "--api-key", "s3cret-key", "--cors-origin", "https://app.example"
    )
    yield server
    server.stop()


def test_api_key_is_required_and_checked(keyed_server: Server) -> None:
    url = keyed_server.url + "/generate"
    body = {"prompt": "hi", "temperature": 0}
    missing = httpx.post(url, json=body)
    assert missing.status_code == 401 and missing.json()["error"]["code"] == "missing_api_key"
    assert missing.headers["www-authenticate"] == "Bearer"
    for header in ("Bearer wrong", "Bearer s3cret-ke", "Bearer s3cret-key2", "Basic s3cret-key", "s3cret-key"):
        r = httpx.post(url, json=body, headers={"Authorization": header})
        assert r.status_code == 401 and r.json()["error"]["code"] == "invalid_api_key", header
    assert httpx.post(url, json=body, headers={"Authorization": "Bearer s3cret-key"}).status_code == 200
    assert httpx.get(keyed_server.v1 + "/models").status_code == 401
    assert httpx.get(keyed_server.url + "/health").status_code == 200  # health checks need no key
    with (
        openai.OpenAI(base_url=keyed_server.v1, api_key="nope", max_retries=0) as bad,
        pytest.raises(openai.AuthenticationError),
    ):
        bad.models.list()
    with openai.OpenAI(base_url=keyed_server.v1, api_key="s3cret-key", max_retries=0) as good:
        assert good.chat.completions.create(model="tiny", messages=[{"role": "user", "content": "hi"}]).choices


def test_cors_only_for_listed_origins(keyed_server: Server, tiny_server: Server) -> None:
    preflight = {
        "Origin": "https://app.example",
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization,content-type",
    }
    r = httpx.options(keyed_server.v1 + "/chat/completions", headers=preflight)
    assert r.status_code == 200 and r.headers["access-control-allow-origin"] == "https://app.example"
    other = httpx.options(
        keyed_server.v1 + "/chat/completions", headers={**preflight, "Origin": "https://evil.example"}
    )
    assert "access-control-allow-origin" not in other.headers
    off = httpx.options(tiny_server.v1 + "/chat/completions", headers=preflight)
    assert off.status_code == 405 and "access-control-allow-origin" not in off.headers


# What the official JS SDK (openai 4.x/5.x) asks a browser to send with every request.
_JS_SDK_HEADERS = (
    "authorization,content-type,accept,openai-organization,openai-project,x-stainless-arch,x-stainless-lang,"
    "x-stainless-os,x-stainless-package-version,x-stainless-retry-count,x-stainless-runtime,"
    "x-stainless-runtime-version,x-stainless-timeout,x-stainless-helper-method"
)


def test_cors_lets_a_listed_page_use_the_js_sdk(keyed_server: Server) -> None:
    preflight = {
        "Origin": "https://app.example",
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": _JS_SDK_HEADERS,
    }
    r = httpx.options(keyed_server.v1 + "/chat/completions", headers=preflight)
    assert r.status_code == 200, r.text
    allowed = {h.strip().lower() for h in r.headers["access-control-allow-headers"].split(",")}
    assert set(_JS_SDK_HEADERS.split(",")) <= allowed
    # The request itself, as the browser then sends it: answered, with the page allowed to read the answer.
    body = {"model": "tiny", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 4}
    headers = {"Origin": "https://app.example", "Authorization": "Bearer s3cret-key", "x-stainless-os": "Linux"}
    r = httpx.post(keyed_server.v1 + "/chat/completions", json=body, headers=headers)
    assert r.status_code == 200 and r.headers["access-control-allow-origin"] == "https://app.example"
    other = httpx.options(
        keyed_server.v1 + "/chat/completions", headers={**preflight, "Origin": "https://evil.example"}
    )
    assert other.status_code == 400 and "access-control-allow-origin" not in other.headers


def test_refuses_to_listen_beyond_loopback_without_a_key(tiny_model: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "localmind", "serve", "--model", str(tiny_model), "--host", "0.0.0.0"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 1
    assert "needs an API key" in proc.stderr and "--api-key" in proc.stderr and "--host 127.0.0.1" in proc.stderr


def test_serve_is_headless(tiny_model: Path, tmp_path: Path) -> None:
    """No Qt module is ever imported by ``localmind serve`` (-X importtime lists every import)."""
    server = start_server(tiny_model, tmp_path, python_flags=("-X", "importtime"))
    try:
        assert httpx.post(server.url + "/generate", json={"prompt": "hi"}).status_code == 200
    finally:
        server.stop()
    log = server.log()
    assert "uvicorn" in log and "localmind.server.app" in log  # the import list is there...
    assert "PySide6" not in log and "shiboken" not in log  # ...and has no Qt in it
    for module in ("pypdf", "docx", "tokenizers"):  # nor the documents feature's (the image leaves them out)
        assert not re.search(rf"\|\s+{module}(\.\S+)?$", log, re.M), module
    assert re.search(r"\|\s+uvicorn(\.\S+)?$", log, re.M)  # the pattern does match an imported module
