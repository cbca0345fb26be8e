"""/openapi.json and /docs of a real ``localmind serve``, and the error messages for bodies that are not valid.

The server runs on plain Starlette (no FastAPI, for its cold start): these pin what FastAPI used to give for free.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import httpx2 as httpx
import jsonschema
import pytest

from tests.server.serving import Server, start_server

pytestmark = pytest.mark.slow

# Text that is not ours, shown on the page: the model's id is its folder's name, and a folder may be called this.
HOSTILE_ID = "tiny<img src=x onerror=alert(1)>\"'&amp;"


@pytest.fixture(scope="module")
def server(tiny_model: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    folder = tmp_path_factory.mktemp("models") / HOSTILE_ID
    shutil.copytree(tiny_model, folder)
    running = start_server(folder, tmp_path_factory.mktemp("described"), "--api-key", "k3y")
    yield running
    running.stop()


def _resolve(doc: dict[str, Any], ref: str) -> Any:
    assert ref.startswith("#/"), ref
    node: Any = doc
    for part in ref[2:].split("/"):
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return node


def _refs(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        if isinstance(node.get("$ref"), str):
            yield node["$ref"]
        for value in node.values():
            yield from _refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from _refs(value)


def _served_routes() -> set[tuple[str, str]]:
    """(method, path) of every route the app really serves (HEAD comes with GET)."""
    from localmind.server.app import create_app
    from localmind.server.context import ServerConfig
    from localmind.server.scheduler import Scheduler

    scheduler = Scheduler(lambda: None)  # type: ignore[arg-type,return-value]  # never asked for an engine here
    try:
        app = create_app(scheduler, lambda: None, ServerConfig())
        return {(m, r.path) for r in app.routes for m in (getattr(r, "methods", None) or ()) if m != "HEAD"}
    finally:
        scheduler.close()


def test_openapi_describes_every_route_with_resolvable_schemas(server: Server) -> None:
    r = httpx.get(server.url + "/openapi.json")  # no key needed, like /health and /docs
    assert r.status_code == 200 and r.headers["content-type"] == "application/json"
    doc = r.json()
    assert doc["openapi"].startswith("3.1.") and doc["info"]["title"] and doc["info"]["version"]
    described = {(method.upper(), path) for path, item in doc["paths"].items() for method in item}
    served = _served_routes()
    assert described == served and ("POST", "/v1/chat/completions") in served
    for ref in set(_refs(doc)):
        assert isinstance(_resolve(doc, ref), dict), ref  # every $ref points at something
    for schema in doc["components"]["schemas"].values():
        jsonschema.Draft202012Validator.check_schema(schema)  # each is a valid JSON schema (2020-12, as 3.1 says)

    scheme = doc["components"]["securitySchemes"]["bearerAuth"]
    assert scheme["type"] == "http" and scheme["scheme"] == "bearer"
    for method, path in described:
        op = doc["paths"][path][method.lower()]
        needs_key = path not in ("/", "/health", "/openapi.json", "/docs")
        assert (op.get("security") == [{"bearerAuth": []}]) is needs_key, path
        # What the document says of each route holds: without the key it is refused, never missing (404/405).
        answer = httpx.request(method, server.url + path, json={} if method == "POST" else None)
        assert answer.status_code == (401 if needs_key else 200), (path, answer.text)
        assert str(answer.status_code) in op["responses"], (path, answer.status_code)
        if answer.status_code == 200:  # the media type it is declared with (/docs is HTML, not JSON)
            assert answer.headers["content-type"].split(";")[0] in op["responses"]["200"]["content"], path
        if method != "POST":
            continue
        media = op["requestBody"]["content"]["application/json"]
        body_schema = {"$ref": media["schema"]["$ref"], "components": doc["components"]}
        jsonschema.validate(media["example"], body_schema)  # the docs' example is a valid request...
        example = {**media["example"], "model": HOSTILE_ID} if "model" in media["example"] else media["example"]
        answer = httpx.post(server.url + path, json=example, headers={"Authorization": "Bearer k3y"})
        if path == "/v1/embeddings":  # this server has no embedding model installed: the documented 404
            assert answer.status_code == 404 and answer.json()["error"]["code"] == "model_not_found", answer.text
            assert "404" in op["responses"], path
        else:
            assert answer.status_code == 200, answer.text  # ...that the server answers
            assert answer.headers["content-type"].split(";")[0] in op["responses"]["200"]["content"], path
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate({}, body_schema)  # and the schema does require something

    chat = _resolve(
        doc,
        doc["paths"]["/v1/chat/completions"]["post"]["requestBody"]["content"]["application/json"]["schema"]["$ref"],
    )
    assert {"model", "messages"} <= set(chat["required"])
    message = _resolve(doc, chat["properties"]["messages"]["items"]["$ref"])
    assert "role" in message["required"]
    generated = _resolve(
        doc, doc["paths"]["/generate"]["post"]["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
    )
    assert set(generated["properties"]) == {"generated_text", "tokens_generated", "finish_reason"}


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.links: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.links += [value or "" for name, value in attrs if name in ("src", "href", "action", "srcset", "data")]
        self.links += [value or "" for name, value in attrs if name.startswith("on")]  # handlers count as code

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def test_docs_page_is_self_contained_and_escapes_what_is_not_ours(server: Server) -> None:
    r = httpx.get(server.url + "/docs")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    assert "default-src 'none'" in r.headers["content-security-policy"]  # the browser loads nothing else either
    page = _Page()
    page.feed(r.text)
    assert "script" not in page.tags and "link" not in page.tags and "iframe" not in page.tags
    assert not any(tag == "img" for tag in page.tags)  # the model's id was text, not an element
    for link in page.links:
        # Only this page's anchors and this server's paths: nothing fetched from, or leading to, another host.
        assert link.startswith(("#", "/")) and not link.startswith("//"), link
    assert "@import" not in r.text and "url(" not in r.text
    text = "".join(page.text)
    doc = httpx.get(server.url + "/openapi.json").json()
    for path in doc["paths"]:
        assert path in text
    assert "/openapi.json" in page.links
    # The curl examples name this server and its model (quoted for the shell, escaped for the page).
    assert f"curl {server.url}/v1/models" in text and HOSTILE_ID in text
    chat_curl = text[text.index(f"curl {server.url}/v1/chat/completions") :]
    assert '"model": "tiny<img src=x onerror=alert(1)>' in chat_curl and "Authorization: Bearer" in chat_curl
    assert "max_new_tokens" in text and "length ≥ 1" in text  # the fields and their limits


_CHAT = b'{"model": "m", "messages": [{"role": "user", "content": "x"}]'


@pytest.mark.parametrize(
    ("content", "headers", "message", "param"),
    [
        (b"{not json", {"content-type": "application/json"}, "The request body is not valid JSON.", None),
        (b"\xff\xfe\x00", {"content-type": "application/json"}, "The request body is not valid JSON.", None),
        (b"", {}, "The request body is empty: send a JSON object.", None),
        (b'{"model": "m"}', {"content-type": "text/plain"}, "Send the request body as JSON", None),
        (
            b'{"model": "m"}',
            {"content-type": "application/json"},
            "Missing required parameter: 'messages'.",
            "messages",
        ),
        (
            b'{"model": "m", "messages": [{"content": "x"}]}',
            {},
            "Missing required parameter: 'messages.0.role'.",
            "messages.0.role",
        ),
        (
            b'{"model": "m", "messages": [{"role": "user", "content": "x"}], "temperature": "hot"}',
            {"content-type": "application/vnd.api+json"},
            "Invalid value for 'temperature': Input should be a valid number",
            "temperature",
        ),
        (b'{"model": "m", "messages": []}', {}, "Invalid value for 'messages': List should have at least 1 item", None),
        (b"[1, 2]", {}, "Invalid value for the request body: Input should be a valid dictionary", None),
        # Numbers are JSON numbers and booleans true/false (pydantic's lax mode took true, "0.7", 1 and "yes").
        (
            _CHAT + b', "temperature": true}',
            {},
            "Invalid value for 'temperature': Input should be a valid number.",
            None,
        ),
        (
            _CHAT + b', "temperature": "0.7"}',
            {},
            "Invalid value for 'temperature': Input should be a valid number.",
            None,
        ),
        (
            _CHAT + b', "temperature": NaN}',
            {},
            "Invalid value for 'temperature': Input should be a finite number.",
            None,
        ),
        (
            _CHAT + b', "temperature": 2.5}',
            {},
            "Invalid value for 'temperature': Input should be less than or equal to 2.",
            None,
        ),
        (_CHAT + b', "top_p": 0}', {}, "Invalid value for 'top_p': Input should be greater than 0.", "top_p"),
        (
            _CHAT + b', "seed": 1.5}',
            {},
            "Invalid value for 'seed': Input should be a valid integer, got a number",
            "seed",
        ),
        (
            _CHAT + b', "max_tokens": 0}',
            {},
            "Invalid value for 'max_tokens': Input should be greater than or equal to 1.",
            None,
        ),
        (_CHAT + b', "stream": 1}', {}, "Invalid value for 'stream': Input should be a valid boolean.", "stream"),
        (
            _CHAT + b', "stop": 5}',
            {},
            "Invalid value for 'stop': Input should be a string or a list of strings.",
            "stop",
        ),
        (_CHAT + b', "stop": ["a", 1]}', {}, "Invalid value for 'stop.1': Input should be a valid string.", "stop.1"),
        (
            _CHAT + b', "response_format": {"type": "xml"}}',
            {},
            "Invalid value for 'response_format.type': Input should be 'text', 'json_object' or 'json_schema'.",
            "response_format.type",
        ),
        (
            b'{"model": "m", "messages": [{"role": "user", "content": [{"type": "text", "text": 5}]}]}',
            {},
            "Invalid value for 'messages.0.content.0.text': Input should be a valid string.",
            "messages.0.content.0.text",
        ),
    ],
)
def test_bodies_that_are_not_valid_get_openai_shaped_400s(
    server: Server, content: bytes, headers: dict[str, str], message: str, param: str | None
) -> None:
    headers = {"content-type": "application/json", **headers}
    r = httpx.post(server.v1 + "/chat/completions", content=content, headers={**headers, "Authorization": "Bearer k3y"})
    assert r.status_code == 400, r.text
    error = r.json()["error"]
    assert set(error) == {"message", "type", "param", "code"} and error["type"] == "invalid_request_error"
    assert error["message"].startswith(message)
    if param is not None:
        assert error["param"] == param
    # The key is checked before the body is looked at.
    assert httpx.post(server.v1 + "/chat/completions", content=content, headers=headers).status_code == 401


def test_the_description_is_built_on_its_first_request_not_at_start_up() -> None:
    script = (
        "import sys\n"
        "from localmind.server.app import create_app\n"
        "from localmind.server.context import ServerConfig\n"
        "create_app(object(), lambda: None, ServerConfig())\n"
        "names = lambda: sorted(m for m in sys.modules if m.startswith(('fastapi', 'pydantic', 'localmind.server.')))\n"
        "print(json.dumps(names()))\n"
        "from localmind.server.openapi import build_openapi\n"
        "from localmind.server import generate_routes, openai_routes\n"
        "build_openapi(tuple(openai_routes.routes + generate_routes.routes))\n"
        "print(json.dumps(names()))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", "import json\n" + script], capture_output=True, text=True, timeout=60, check=True
    )
    loaded, described = (json.loads(line) for line in done.stdout.splitlines())
    assert "localmind.server.app" in loaded  # the list does see the server's modules...
    assert not any(m.startswith(("fastapi", "pydantic")) for m in loaded)
    assert "localmind.server.openapi" not in loaded and "localmind.server.docs_page" not in loaded
    # The description comes from the bodies' own declarations (server/fields.py): no pydantic for it either.
    assert "localmind.server.openapi" in described and not any(m.startswith("pydantic") for m in described)


@pytest.mark.parametrize(
    "body",
    [
        {"model": "m", "messages": [{"role": "user", "content": "x"}]},
        {"model": "m", "messages": [{"role": "user", "content": [{"type": "text", "text": "x"}]}], "stop": ["a"]},
        {"model": "m", "messages": [], "temperature": 1},
        {"model": "m", "messages": [{"content": "x"}]},
        {"model": "m", "messages": [{"role": "user"}], "temperature": True},
        {"model": "m", "messages": [{"role": "user"}], "temperature": 2.0, "top_p": 1, "n": 1, "seed": 3},
        {"model": "m", "messages": [{"role": "user"}], "top_p": 0},
        {"model": "m", "messages": [{"role": "user"}], "stop": 5},
        {"model": "m", "messages": [{"role": "user"}], "stream": "yes"},
        {"model": "m", "messages": [{"role": "user"}], "response_format": {"type": "json_schema", "json_schema": {}}},
        {"model": "m", "messages": [{"role": "user"}], "response_format": {"type": "yaml"}},
        {"model": "m", "messages": [{"role": "user"}], "stream_options": {"include_usage": 1}},
        {"model": "m", "messages": [{"role": "user"}], "tools": [{}], "tool_choice": {"any": ["thing"]}},
        {"model": 1, "messages": [{"role": "user"}]},
        {"model": "m", "messages": [{"role": "user"}], "max_tokens": 0},
        {"model": "m", "messages": [{"role": "user"}], "unknown": "refused"},
        [],
    ],
)
def test_the_description_and_the_checks_are_one_declaration(body: Any) -> None:
    """What /openapi.json documents is what the server accepts: the JSON schema and the check agree, body by body."""
    from localmind.server import fields, openai_routes
    from localmind.server.openapi import build_openapi
    from localmind.server.schemas import ChatCompletionRequest

    doc = build_openapi(tuple(openai_routes.routes))
    schema = {**doc["paths"]["/v1/chat/completions"]["post"]["requestBody"]["content"]["application/json"]["schema"]}
    schema["components"] = doc["components"]
    described = jsonschema.Draft202012Validator(schema).is_valid(body)
    try:
        fields.parse(ChatCompletionRequest, body)
        accepted = True
    except fields.Invalid:
        accepted = False
    assert described == accepted
