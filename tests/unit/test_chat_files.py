"""Export to Markdown and JSON, import JSON back: exact, never overwriting, with clear errors."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from localmind.core import chat_files
from localmind.core.chat_files import FORMAT, ImportFileError
from localmind.core.store import ConversationStore
from localmind.errors import UserFacingError


@pytest.fixture
def store(data_dir: Path) -> Iterator[ConversationStore]:
    s = ConversationStore()
    yield s
    s.close()


def fill(store: ConversationStore) -> list[str]:
    a = store.create_conversation(
        "Trip to 北京 🚄",
        system_prompt="Answer briefly.\n\nUse metric units.",
        settings={"preset": "precise", "top_k": 7},
        model="phi-3",
    )
    store.append_message(a.id, "user", "What should I see? 我想去看长城。")
    store.append_message(
        a.id,
        "assistant",
        "# Plan\n\n| day | place |\n|---|---|\n| 1 | 长城 |\n\n```python\nprint('hi')\n```\n",
        stats={"tokens_per_second": 12.25, "generated_tokens": 40},
    )
    store.append_message(a.id, "user", "And food?")
    store.append_message(a.id, "assistant", "Peking duck, then", status="stopped")
    b = store.create_conversation("Empty one")
    c = store.create_conversation("Failed")
    store.append_message(c.id, "user", "  leading and trailing spaces  \n")
    store.append_message(c.id, "assistant", "", status="error", stats={"error": "out of memory"})
    return [a.id, b.id, c.id]


def comparable(data: dict[str, Any]) -> list[dict[str, Any]]:
    """Everything an export says, less what must differ between stores (ids, the export time)."""
    return [{k: v for k, v in c.items() if k != "id"} for c in data["conversations"]]


def test_json_round_trip_is_exact_and_keeps_ids(store: ConversationStore, tmp_path: Path) -> None:
    ids = fill(store)
    first = json.loads(chat_files.to_json(chat_files.collect(store)))
    assert first["format"] == FORMAT and first["version"] == 1
    assert [c["id"] for c in first["conversations"]] == ids[::-1]  # newest activity first

    with ConversationStore(tmp_path / "other.sqlite3") as other:
        imported = chat_files.import_json(other, chat_files.to_json(chat_files.collect(store)))
        assert {c.id for c in imported} == set(ids)
        second = json.loads(chat_files.to_json(chat_files.collect(other)))
    assert comparable(second) == comparable(first)

    # Into the same store: everything is already there, so nothing changes (it used to be there twice).
    result = chat_files.merge_json(store, json.dumps(first))
    assert (len(result.added), len(result.updated), len(result.copied), len(result.skipped)) == (0, 0, 0, 3)
    assert len(store.list_conversations()) == 3
    assert len(store.messages(ids[0])) == 4 and len(store.search("长城")) == 1  # one chat, its messages once


def test_export_one_conversation_and_markdown(store: ConversationStore) -> None:
    ids = fill(store)
    items = chat_files.collect(store, [ids[0]])
    md = chat_files.to_markdown(items)
    assert md.startswith("# Trip to 北京 🚄\n")
    assert "model phi-3" in md
    assert "> Answer briefly.\n>\n> Use metric units." in md
    assert "## You\n\nWhat should I see? 我想去看长城。" in md
    assert "```python\nprint('hi')\n```" in md and "| 1 | 长城 |" in md
    assert "## Assistant (stopped before the end)\n\nPeking duck, then" in md
    everything = chat_files.to_markdown(chat_files.collect(store))
    assert everything.count("\n---\n") == 2 and "# Failed" in everything and "(generation failed)" in everything


def test_deleted_conversations_are_left_out_of_export_all(store: ConversationStore) -> None:
    ids = fill(store)
    store.delete_conversation(ids[1])
    assert [c.id for c, _ in chat_files.collect(store)] == [ids[2], ids[0]]
    assert [c.id for c, _ in chat_files.collect(store, [ids[1]])] == [ids[1]]  # asked for by id


def test_import_fills_optional_fields_and_stops_streaming(store: ConversationStore) -> None:
    data = {
        "format": FORMAT,
        "version": 1,
        "conversations": [
            {
                "title": "Minimal",
                "messages": [
                    {"role": "user", "content": "hi"},
                    {"role": "assistant", "content": "he", "status": "streaming"},
                ],
            }
        ],
    }
    [c] = chat_files.import_json(store, json.dumps(data))
    assert (c.title, c.system_prompt, c.settings, c.model, c.message_count) == ("Minimal", "", {}, None, 2)
    assert [(m.role, m.content, m.status) for m in store.messages(c.id)] == [
        ("user", "hi", "complete"),
        ("assistant", "he", "stopped"),
    ]


def good() -> dict[str, Any]:
    return {
        "format": FORMAT,
        "version": 1,
        "conversations": [{"title": "t", "created_at": 1.0, "messages": [{"role": "user", "content": "x"}]}],
    }


def broken(change: str) -> bytes:
    data = good()
    conv = data["conversations"][0]
    message = conv["messages"][0]
    if change == "not json":
        return b"{nope"
    if change == "markdown":
        return b"# A conversation\n\nhello"
    if change == "not utf-8":
        conv["title"] = "café"
        return json.dumps(data, ensure_ascii=False).encode("latin-1")
    if change == "nan":
        return json.dumps(data).replace("1.0", "NaN").encode()
    if change == "no header":
        del data["format"]
    elif change == "newer":
        data["version"] = 2
    elif change == "bad version":
        data["version"] = "1"
    elif change == "no conversations":
        del data["conversations"]
    elif change == "conversation not object":
        data["conversations"] = ["x"]
    elif change == "no title":
        del conv["title"]
    elif change == "title number":
        conv["title"] = 3
    elif change == "bad time":
        conv["created_at"] = -5
    elif change == "bool time":
        conv["created_at"] = True
    elif change == "bad role":
        message["role"] = "bot"
    elif change == "bad status":
        message["status"] = "done"
    elif change == "no content":
        del message["content"]
    elif change == "settings list":
        conv["settings"] = []
    elif change == "stats text":
        message["stats"] = "fast"
    return json.dumps(data).encode()


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ("not json", "is not JSON"),
        ("markdown", "Markdown exports cannot be imported"),
        ("not utf-8", "not UTF-8"),
        ("nan", "is not JSON"),
        ("no header", "not a LocalMind conversation export"),
        ("newer", "newer LocalMind"),
        ("bad version", "version"),
        ("no conversations", '"conversations" is missing'),
        ("conversation not object", "conversations[0] should be an object, not text"),
        ("no title", "conversations[0].title is missing"),
        ("title number", "conversations[0].title should be text, not a number"),
        ("bad time", "conversations[0].created_at is not a time between 1970 and 9999"),
        ("bool time", "conversations[0].created_at should be a number"),
        ("bad role", "conversations[0].messages[0].role is 'bot'"),
        ("bad status", "conversations[0].messages[0].status is 'done'"),
        ("no content", "conversations[0].messages[0].content is missing"),
        ("settings list", "conversations[0].settings should be an object, not a list"),
        ("stats text", "conversations[0].messages[0].stats should be an object or null, not text"),
    ],
)
def test_bad_files_are_refused_with_a_clear_message(store: ConversationStore, change: str, says: str) -> None:
    chat_files.import_json(store, json.dumps(good()))  # the baseline is fine
    before = len(store.list_conversations())
    with pytest.raises(ImportFileError) as info:
        chat_files.import_json(store, broken(change), "backup.json")
    assert says in str(info.value)
    assert isinstance(info.value, UserFacingError) and info.value.hint
    assert len(store.list_conversations()) == before


def test_a_bad_conversation_late_in_the_file_imports_nothing(store: ConversationStore) -> None:
    data = good()
    data["conversations"].append({"title": "second", "messages": [{"role": "robot", "content": ""}]})
    with pytest.raises(ImportFileError, match=r"conversations\[1\]"):
        chat_files.import_json(store, json.dumps(data))
    assert store.list_conversations() == []


def test_import_file_that_does_not_exist(store: ConversationStore, tmp_path: Path) -> None:
    with pytest.raises(UserFacingError, match="Cannot read"):
        chat_files.import_file(store, tmp_path / "missing.json")
