"""Property-based fuzzing of ``localmind serve`` from its own /openapi.json (issue 20): bodies generated from each
POST route's request schema (Hypothesis; ``schema_strategies``) are sent to the real server on the tiny model; none may get a
5xx, a 400 the description does not explain, or an answer that does not match the described response.

Bounded: a fixed number of examples per route, derandomized (the same bodies every run), and generation lengths
capped at 8 tokens in the test's copy of the schema (the server's own limits are larger)."""

from __future__ import annotations

import copy
import json
from typing import Any

import httpx2 as httpx
import jsonschema
import pytest

from tests.server.serving import Server

hypothesis = pytest.importorskip("hypothesis")
from tests.server.schema_strategies import from_schema  # noqa: E402 - needs hypothesis

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]

EXAMPLES = 30
_LENGTHS = ("max_tokens", "max_completion_tokens", "max_new_tokens", "min_tokens")
# Refusals the description gives for bodies its schema cannot tell apart (they depend on the content, or on two
# fields together), each said in the 400's description: code, or the param for those without one.
_CONTENT_REFUSALS = {"invalid_json_schema", "context_length_exceeded", "prompt_too_long", "invalid_value"}
_CROSS_FIELD_PARAMS = {"stream_options", "min_tokens", "response_format.json_schema.schema"}


def _inline(node: Any, components: dict[str, Any]) -> Any:
    if isinstance(node, dict):
        if "$ref" in node:
            return _inline(components[node["$ref"].rsplit("/", 1)[1]], components)
        return {k: _inline(v, components) for k, v in node.items()}
    if isinstance(node, list):
        return [_inline(v, components) for v in node]
    return node


def _bounded(schema: dict[str, Any], model: str) -> dict[str, Any]:
    """The test's copy: the served model's id, short replies, short conversations."""
    schema = copy.deepcopy(schema)
    props = schema["properties"]
    if "model" in props:
        props["model"] = {"const": model}
    for name in _LENGTHS:
        if name in props:
            for member in props[name].get("anyOf", [props[name]]):
                if member.get("type") == "integer":
                    member["maximum"] = 8
    if "messages" in props:
        props["messages"]["maxItems"] = 4
    return schema


def _check_answer(route: str, op: dict[str, Any], body: dict[str, Any], r: httpx.Response, components: Any) -> None:
    assert r.status_code < 500, (route, body, r.text)
    if r.status_code == 400:
        error = r.json()["error"]
        explained = error["code"] in _CONTENT_REFUSALS or error["param"] in _CROSS_FIELD_PARAMS
        assert explained, f"{route}: the description calls this body valid, the server refused it: {body} -> {error}"
        return
    assert r.status_code == 200, (route, body, r.status_code, r.text)
    kind = r.headers["content-type"].split(";")[0]
    content = op["responses"]["200"]["content"]
    assert kind in content, (route, kind)
    if kind == "application/json":
        jsonschema.validate(r.json(), {**content[kind]["schema"], "components": components})
    elif kind == "text/event-stream":
        event_schema = {**content[kind]["x-event-schema"], "components": components}
        lines = [line[6:] for line in r.text.split("\n") if line.startswith("data: ")]
        assert lines[-1] == "[DONE]", (route, body, r.text[-500:])
        for data in lines[:-1]:
            event = json.loads(data)
            assert "error" not in event, (route, body, event)
            jsonschema.validate(event, event_schema)
    else:
        r.content.decode("utf-8")  # plain text is UTF-8 text


@pytest.mark.parametrize("route", ["/v1/chat/completions", "/v1/completions", "/generate", "/stream_generate"])
def test_bodies_from_the_description_get_the_described_answers(tiny_server: Server, route: str) -> None:
    doc = httpx.get(tiny_server.url + "/openapi.json").json()
    components = doc["components"]
    op = doc["paths"][route]["post"]
    schema = _inline(op["requestBody"]["content"]["application/json"]["schema"], components["schemas"])
    strategy = from_schema(_bounded(schema, "tiny"))
    seen = {"ok": 0}

    @hypothesis.settings(
        max_examples=EXAMPLES,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(hypothesis.HealthCheck),
    )
    @hypothesis.given(strategy)
    def check(body: dict[str, Any]) -> None:
        jsonschema.validate(body, schema)  # what was generated is valid by the server's own description
        with httpx.Client(timeout=60) as client:
            r = client.post(tiny_server.url + route, json=body)
        _check_answer(route, op, body, r, components)
        seen["ok"] += r.status_code == 200

    check()
    assert seen["ok"] > 0  # the fuzzing did reach the model, not only refusals
