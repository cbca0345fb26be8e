"""One validator for the three kinds of JSON LocalMind did not write (localmind/schema.py): the API's request bodies,
the settings file and the conversation import format. Each user words a problem for its own audience; the checking
itself is shared, and the shared module stays cheap enough for ``localmind serve``'s cold start."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from localmind import schema
from localmind.core import chat_files
from localmind.schema import ABSENT, Invalid, parse, parse_each, spec
from localmind.server import fields
from localmind.server.schemas import ChatCompletionRequest
from localmind.settings import settings_from_dict

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def seen(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Invalid]]:
    """Every problem the shared validator finds in a field, whoever asked."""
    found: list[Invalid] = []
    real = schema._field_value

    def spy(*args: Any) -> Any:
        try:
            return real(*args)
        except Invalid as exc:
            found.append(exc)
            raise

    monkeypatch.setattr(schema, "_field_value", spy)
    yield found


def test_the_api_the_settings_and_the_import_share_one_validator(seen: list[Invalid]) -> None:
    assert fields.parse is parse and fields.Invalid is Invalid  # the server's name for it

    with pytest.raises(Invalid):
        fields.parse(ChatCompletionRequest, {"model": "m", "messages": [{"role": "user"}], "stream": "yes"})
    assert [(p.loc, p.kind) for p in seen] == [(("stream",), "bool_type")]

    seen.clear()
    assert settings_from_dict({"api_server_port": "8000"}).api_server_port == 8000  # the default, not the text
    assert [(p.loc, p.kind, p.value) for p in seen] == [(("api_server_port",), "int_type", "8000")]

    seen.clear()
    export = {"format": "localmind-conversations", "version": 1, "conversations": [{"title": 7, "messages": []}]}
    with pytest.raises(chat_files.ImportFileError, match=r"conversations\[0\]\.title should be text, not a number"):
        chat_files.parse_json(json.dumps(export))
    assert [(p.loc, p.kind) for p in seen][-1] == (("conversations", 0, "title"), "string_type")


@dataclass(frozen=True, kw_only=True)
class Inner:
    name: str


@dataclass(frozen=True, kw_only=True)
class Outer:
    when: float = spec(ABSENT, ge=0)
    url: str | None = spec(None, pattern="https?://")
    items: list[Inner] = field(default_factory=list)
    size: int | None = spec(None, le=10)


def test_unknown_keys_are_refused_or_ignored_at_every_level() -> None:
    data = {"items": [{"name": "a", "later": 1}], "newer": True}
    with pytest.raises(Invalid) as refused:
        parse(Outer, data)
    assert refused.value.loc == ("items", 0, "later") and refused.value.kind == "unknown"
    kept = parse(Outer, data, extra="ignore")
    assert kept.items == [Inner(name="a")] and kept.when is ABSENT  # left out: the caller fills it in


def test_each_field_on_its_own_keeps_the_good_ones() -> None:
    values, problems = parse_each(Outer, {"when": -1, "url": "ftp://x", "size": 3, "other": 1})
    assert values == {"size": 3}
    assert [(p.loc, p.kind) for p in problems] == [
        (("when",), "greater_than_equal"),
        (("url",), "string_pattern_mismatch"),
    ]


def test_a_problem_names_the_value_and_the_whole_declared_type() -> None:
    with pytest.raises(Invalid) as info:
        parse(Outer, {"size": "big"})
    assert info.value.value == "big" and info.value.expected == (int | None)


def test_the_description_has_the_pattern_and_no_made_up_default() -> None:
    _, defs = schema.json_schema([Outer], "#/{model}")
    props = defs["Outer"]["properties"]
    assert props["url"]["anyOf"][0]["pattern"] == "https?://" and props["url"]["default"] is None
    assert "default" not in props["when"] and props["items"]["default"] == []


def test_a_bad_settings_value_resets_that_field_only_and_says_why(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        s = settings_from_dict({"remote_url": "ftp://host", "remote_models": True, "threads": 4.0}, "here")
    assert (s.remote_url, s.remote_models, s.threads) == (None, True, 4)
    assert "here: remote_url = 'ftp://host' is not valid (String should match pattern" in caplog.text


def test_an_import_ignores_fields_from_a_newer_export_and_refuses_an_endless_time() -> None:
    conversation = {"title": "t", "messages": [{"role": "user", "content": "hi", "reactions": ["+1"]}], "pinned": 1}
    export = {"format": "localmind-conversations", "version": 1, "conversations": [conversation], "extra": {}}
    [(read, messages)] = chat_files.parse_json(json.dumps(export))
    assert read.title == "t" and [m.content for m in messages] == ["hi"]
    conversation["created_at"] = 10**400  # a whole number no float holds
    with pytest.raises(chat_files.ImportFileError, match=r"created_at is not a time between 1970 and 9999"):
        chat_files.parse_json(json.dumps(export))


def test_serve_imports_the_shared_validator_and_no_schema_library() -> None:
    code = (
        "import sys, localmind.commands.serve, localmind.server.app, localmind.server.openapi\n"
        "print(','.join(m for m in ('localmind.schema', 'msgspec', 'pydantic', 'fastapi') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO).stdout
    assert out.strip() == "localmind.schema"
