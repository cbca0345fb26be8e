"""``response_format`` through the official ``openai`` client, on a random-weight model (no training says JSON):
whatever the weights prefer, the reply parses and validates, because og's constrained decoding masks every token
the schema does not allow. Plus the 400s for what cannot be enforced, and the cache of a conversation around it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import jsonschema
import openai
import pytest

from tests.server.serving import Server, start_server

pytestmark = pytest.mark.slow
community_model = pytest.importorskip("tests.helpers.community_model", reason="needs the random-weight fixture builder")

ORDER = {
    "type": "object",
    "properties": {
        "customer": {"type": "string", "minLength": 1, "maxLength": 16},
        "items": {
            "type": "array",
            "minItems": 1,
            "maxItems": 3,
            "items": {
                "type": "object",
                "properties": {
                    "sku": {"type": "string", "pattern": "^[A-Z]{3}-[0-9]{3}$"},
                    "quantity": {"type": "integer", "minimum": 1, "maximum": 99},
                },
                "required": ["sku", "quantity"],
                "additionalProperties": False,
            },
        },
        "express": {"type": "boolean"},
        "status": {"enum": ["new", "paid", "shipped"]},
    },
    "required": ["customer", "items", "express", "status"],
    "additionalProperties": False,
}
ASK = [{"role": "user", "content": "Write the order as JSON."}]


@pytest.fixture(scope="module")
def random_model() -> Path:
    return community_model.cached("smollm2-tiny")


@pytest.fixture(scope="module")
def server(random_model: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    data = tmp_path_factory.mktemp("serve-data")
    server = start_server(random_model, data, env={"LOCALMIND_DATA_DIR": str(data)})
    yield server
    server.stop()


@pytest.fixture(scope="module")
def client(server: Server) -> Iterator[openai.OpenAI]:
    with openai.OpenAI(base_url=server.v1, api_key="unused", max_retries=0, timeout=120) as client:
        yield client  # closed at the end (see test_openai_client.py)


def schema_format(schema: dict) -> dict:  # type: ignore[type-arg]
    return {"type": "json_schema", "json_schema": {"name": "order", "schema": schema, "strict": True}}


def test_without_a_format_the_random_model_writes_no_json(client: openai.OpenAI) -> None:
    # What the constraint works against: the weights alone do not write JSON.
    for seed in (1, 2):
        reply = client.chat.completions.create(model="smollm2-tiny", messages=ASK, seed=seed, max_tokens=60)  # type: ignore[arg-type]
        with pytest.raises(ValueError):
            json.loads(reply.choices[0].message.content or "")


@pytest.mark.parametrize(("temperature", "seed"), [(0.0, None), (0.7, 1), (1.0, 2)])
def test_json_schema_replies_parse_and_validate(client: openai.OpenAI, temperature: float, seed: int | None) -> None:
    reply = client.chat.completions.create(
        model="smollm2-tiny",
        messages=ASK,  # type: ignore[arg-type]
        response_format=schema_format(ORDER),  # type: ignore[arg-type]
        temperature=temperature,
        seed=seed,
        max_tokens=400,
    )
    choice = reply.choices[0]
    assert choice.finish_reason == "stop", choice.message.content
    order = json.loads(choice.message.content or "")
    jsonschema.validate(order, ORDER)
    # One line, as json.dumps writes it: the model does not get to loop on whitespace.
    assert choice.message.content == json.dumps(order, ensure_ascii=False)


def test_a_streamed_json_schema_reply_validates(client: openai.OpenAI) -> None:
    chunks = client.chat.completions.create(
        model="smollm2-tiny",
        messages=ASK,  # type: ignore[arg-type]
        response_format=schema_format(ORDER),  # type: ignore[arg-type]
        seed=5,
        max_tokens=400,
        stream=True,
    )
    parts = [c.choices[0].delta.content or "" for c in chunks if c.choices]
    assert len([p for p in parts if p]) > 5
    jsonschema.validate(json.loads("".join(parts)), ORDER)


def test_json_object_gives_json_objects(client: openai.OpenAI) -> None:
    # Any object is allowed, so random weights may write one long key until max_tokens: every reply that ends by
    # itself must be an object, and most do.
    finished = 0
    for seed in range(4):
        reply = client.chat.completions.create(
            model="smollm2-tiny",
            messages=[{"role": "user", "content": f"Anything as JSON ({seed})."}],
            response_format={"type": "json_object"},
            seed=seed,
            max_tokens=400,
        )
        text = reply.choices[0].message.content or ""
        assert text.startswith("{")
        if reply.choices[0].finish_reason == "stop":
            assert isinstance(json.loads(text), dict)
            finished += 1
    assert finished >= 2


def test_completions_take_a_response_format_too(client: openai.OpenAI) -> None:
    schema = {
        "type": "object",
        "properties": {"ok": {"type": "boolean"}},
        "required": ["ok"],
        "additionalProperties": False,
    }
    reply = client.completions.create(
        model="smollm2-tiny",
        prompt="Is it ok?",
        max_tokens=50,
        seed=3,
        extra_body={"response_format": schema_format(schema)},
    )
    assert reply.choices[0].finish_reason == "stop"
    jsonschema.validate(json.loads(reply.choices[0].text), schema)


@pytest.mark.parametrize(
    ("response_format", "extra", "needle"),
    [
        (schema_format({"type": "foo"}), {}, "Invalid type: foo"),
        (schema_format({"$ref": "#/definitions/missing"}), {}, "missing"),
        ({"type": "json_schema", "json_schema": {"name": "order"}}, {}, "response_format.json_schema.schema"),
        ({"type": "json_object"}, {"min_tokens": 10}, "min_tokens"),
        ({"type": "yaml"}, {}, "response_format"),
    ],
)
def test_what_cannot_be_enforced_is_a_400(
    client: openai.OpenAI,
    response_format: dict,  # type: ignore[type-arg]
    extra: dict,  # type: ignore[type-arg]
    needle: str,
) -> None:
    for stream in (False, True):
        with pytest.raises(openai.BadRequestError) as info:
            client.chat.completions.create(
                model="smollm2-tiny",
                messages=ASK,  # type: ignore[arg-type]
                response_format=response_format,  # type: ignore[arg-type]
                stream=stream,
                extra_body=extra,
            )
        assert needle in str(info.value)
        body = info.value.body
        assert isinstance(body, dict) and set(body) >= {"message", "type", "param", "code"}
        assert (body["param"] or "").startswith(("response_format", "min_tokens"))
    # The server keeps answering.
    assert client.chat.completions.create(model="smollm2-tiny", messages=ASK, max_tokens=5).choices  # type: ignore[arg-type]


def test_a_conversation_keeps_its_cache_across_a_json_request(client: openai.OpenAI) -> None:
    chat: list[dict[str, str]] = [{"role": "user", "content": "Tell me about the sea."}]
    first = client.chat.completions.create(model="smollm2-tiny", messages=chat, max_tokens=20, seed=1)  # type: ignore[arg-type]
    client.chat.completions.create(
        model="smollm2-tiny",
        messages=ASK,  # type: ignore[arg-type]
        response_format=schema_format(ORDER),  # type: ignore[arg-type]
        max_tokens=400,
    )
    chat += [
        {"role": "assistant", "content": first.choices[0].message.content or ""},
        {"role": "user", "content": "More."},
    ]
    second = client.chat.completions.create(model="smollm2-tiny", messages=chat, max_tokens=20, seed=1)  # type: ignore[arg-type]
    assert first.usage is not None and second.usage is not None and second.usage.prompt_tokens_details is not None
    assert second.usage.prompt_tokens_details.cached_tokens >= first.usage.prompt_tokens
