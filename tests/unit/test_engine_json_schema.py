"""Turns whose reply must follow a JSON schema (og's constrained decoding) on the tiny model: the reply validates,
Stop works, the conversation's KV cache comes back afterwards, and a schema og cannot follow is a GrammarError."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from tokenizers import Tokenizer

from localmind.engine.local import LocalEngine
from localmind.engine.process import EngineProcess
from localmind.engine.types import (
    ChatMessage,
    FinishReason,
    GenerationOptions,
    GrammarError,
    LoadOptions,
    TextDelta,
    TurnFinished,
)
from tests.helpers.engine_turns import run_turn
from tests.helpers.tiny_model import REPLIES, expected_reply
from tests.unit.test_engine_generate import chatml

PERSON = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "maxLength": 12},
        "age": {"type": "integer", "minimum": 0, "maximum": 120},
        "pets": {"type": "array", "items": {"enum": ["cat", "dog", "fish"]}, "maxItems": 3},
        "admin": {"type": "boolean"},
    },
    "required": ["name", "age", "pets", "admin"],
    "additionalProperties": False,
}


def run(
    engine: LocalEngine | EngineProcess, messages: list[ChatMessage], **options: object
) -> tuple[str, TurnFinished]:
    return run_turn(engine, messages, GenerationOptions(**options))  # type: ignore[arg-type]


@pytest.fixture
def engine(tiny_model: Path) -> LocalEngine:
    e = LocalEngine()
    e.load(str(tiny_model), LoadOptions(device="cpu"))
    return e


@pytest.mark.parametrize(("temperature", "seed"), [(0.0, None), (0.8, 1), (0.8, 2), (1.2, 3)])
def test_the_reply_is_json_that_validates(engine: LocalEngine, temperature: float, seed: int | None) -> None:
    ask = [ChatMessage("user", "Describe a person.")]
    plain, _ = run(engine, ask, temperature=temperature, seed=seed, max_new_tokens=200)
    with pytest.raises(ValueError):
        json.loads(plain)  # without a schema the tiny model says one of its sentences
    text, finished = run(
        engine, ask, temperature=temperature, seed=seed, max_new_tokens=200, json_schema=json.dumps(PERSON)
    )
    assert finished.reason is FinishReason.END_OF_TURN, text
    jsonschema.validate(json.loads(text), PERSON)
    assert finished.stats.generated_tokens > 5


def test_the_conversation_cache_comes_back_after_a_schema_turn(engine: LocalEngine, tiny_model: Path) -> None:
    tok = Tokenizer.from_file(str(tiny_model / "tokenizer.json"))
    chat = [ChatMessage("system", "Be kind."), ChatMessage("user", "Hello!")]
    first, done = run(engine, chat, temperature=0)
    assert first in REPLIES
    context = done.stats.context_tokens
    run(engine, [ChatMessage("user", "A person, please.")], temperature=0, json_schema=json.dumps(PERSON))
    chat += [ChatMessage("assistant", first), ChatMessage("user", "And then?")]
    second, done = run(engine, chat, temperature=0)
    # The whole first turn is reused, and the reply is the one the full history gives (the tiny model's reply
    # depends on every token in its cache: a cache mixed with the schema turn's tokens would answer otherwise).
    assert done.stats.reused_tokens == context
    assert second == expected_reply(tok.encode(chatml(chat)).ids)


def test_stop_ends_a_schema_turn_and_the_next_turn_is_exact(engine: LocalEngine, tiny_model: Path) -> None:
    tok = Tokenizer.from_file(str(tiny_model / "tokenizer.json"))
    schema = {"type": "object", "properties": {"story": {"type": "string"}}, "required": ["story"]}
    pieces = []
    finished = None
    for event in engine.generate(
        [ChatMessage("user", "A long story")],
        GenerationOptions(temperature=0.8, seed=4, json_schema=json.dumps(schema)),
    ):
        if isinstance(event, TextDelta):
            pieces.append(event.text)
            if len(pieces) == 3:
                engine.cancel()
        else:
            finished = event
    assert finished is not None and finished.reason is FinishReason.CANCELLED
    assert len(pieces) == 3 and finished.stats.generated_tokens <= 4
    chat = [ChatMessage("user", "Hi")]
    assert run(engine, chat, temperature=0)[0] == expected_reply(tok.encode(chatml(chat)).ids)


def test_a_schema_og_cannot_follow_is_a_grammar_error(engine: LocalEngine) -> None:
    with pytest.raises(GrammarError, match=r"cannot be enforced.*foo"):
        run(engine, [ChatMessage("user", "x")], json_schema=json.dumps({"type": "foo"}))
    assert run(engine, [ChatMessage("user", "x")], temperature=0)[1].reason is FinishReason.END_OF_TURN


def test_the_schema_crosses_to_the_engine_child(tiny_model: Path) -> None:
    engine = EngineProcess()
    try:
        engine.load(str(tiny_model), LoadOptions(device="cpu"))
        text, _ = run(engine, [ChatMessage("user", "x")], temperature=0, json_schema=json.dumps(PERSON))
        jsonschema.validate(json.loads(text), PERSON)
        with pytest.raises(GrammarError, match="Pointer"):
            run(engine, [ChatMessage("user", "x")], json_schema=json.dumps({"$ref": "#/nowhere"}))
        assert run(engine, [ChatMessage("user", "x")], temperature=0)[0] in REPLIES
    finally:
        engine.close()
