"""ConversationStore: conversations, messages, search, migrations, and surviving a kill -9."""

from __future__ import annotations

import json
import random
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from localmind import paths
from localmind.core import store as store_module
from localmind.core import store_core, store_schema
from localmind.core.store import (
    MIGRATIONS,
    SCHEMA_VERSION,
    ConversationNotFoundError,
    ConversationStore,
    MessageNotFoundError,
    StoreError,
)
from localmind.errors import UserFacingError


@pytest.fixture
def store(data_dir: Path) -> Iterator[ConversationStore]:
    s = ConversationStore()
    yield s
    s.close()


def fts_ok(store: ConversationStore) -> None:
    """FTS5's own check that the index matches the text it indexes (raises if not)."""
    store._db.execute("INSERT INTO message_search (message_search) VALUES ('integrity-check')")
    store._db.execute("INSERT INTO title_search (title_search) VALUES ('integrity-check')")


def test_default_path_pragmas_and_schema(store: ConversationStore, data_dir: Path) -> None:
    assert store.path == paths.database_path() == data_dir / "conversations.sqlite3"
    db = store._db
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    assert db.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert db.execute("PRAGMA busy_timeout").fetchone()[0] == store_module.BUSY_TIMEOUT_MS
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == len(MIGRATIONS)
    assert store.has_search_index


def test_conversations_newest_activity_first(store: ConversationStore) -> None:
    a = store.create_conversation("First", system_prompt="Be brief.", settings={"temperature": 0.2}, model="m1")
    b = store.create_conversation()
    assert b.title == "New chat"
    assert [c.id for c in store.list_conversations()] == [b.id, a.id]
    store.append_message(a.id, "user", "hello")
    listed = store.list_conversations()
    assert [c.id for c in listed] == [a.id, b.id]
    assert listed[0].message_count == 1 and listed[0].updated_at > a.updated_at
    got = store.get_conversation(a.id)
    assert (got.title, got.system_prompt, got.settings, got.model) == ("First", "Be brief.", {"temperature": 0.2}, "m1")
    assert len(got.id) == 32 and got.deleted_at is None


def test_rename_and_update(store: ConversationStore) -> None:
    c = store.create_conversation("Old", settings={"top_k": 5})
    store.rename_conversation(c.id, "  New title  ")
    store.update_conversation(c.id, system_prompt="Speak French.")
    got = store.get_conversation(c.id)
    assert (got.title, got.system_prompt, got.settings, got.model) == ("New title", "Speak French.", {"top_k": 5}, None)
    store.update_conversation(c.id, settings={"preset": "creative"}, model="phi")
    got = store.get_conversation(c.id)
    assert (got.system_prompt, got.settings, got.model) == ("Speak French.", {"preset": "creative"}, "phi")
    store.rename_conversation(c.id, "   ")
    assert store.get_conversation(c.id).title == "New chat"


def test_missing_things_are_user_facing_key_errors(store: ConversationStore) -> None:
    for call in (
        lambda: store.get_conversation("nope"),
        lambda: store.rename_conversation("nope", "x"),
        lambda: store.update_conversation("nope", model="x"),
        lambda: store.update_conversation("nope"),
        lambda: store.delete_conversation("nope"),
        lambda: store.append_message("nope", "user", "x"),
    ):
        with pytest.raises(ConversationNotFoundError) as info:
            call()
        assert isinstance(info.value, UserFacingError) and isinstance(info.value, KeyError)
        assert "nope" in str(info.value)
    with pytest.raises(MessageNotFoundError):
        store.update_message(12345, content="x")
    with pytest.raises(MessageNotFoundError):
        store.get_message(12345)


def test_invalid_role_or_status_is_refused(store: ConversationStore) -> None:
    c = store.create_conversation()
    with pytest.raises(ValueError):
        store.append_message(c.id, "bot", "x")  # type: ignore[arg-type]
    m = store.append_message(c.id, "user", "x")
    with pytest.raises(ValueError):
        store.update_message(m.id, status="done")  # type: ignore[arg-type]
    assert store.messages(c.id) == [m]


def test_soft_delete_restore_and_purge(store: ConversationStore) -> None:
    keep = store.create_conversation("keep me")
    gone = store.create_conversation("trash me")
    store.append_message(gone.id, "user", "a secret about pelicans")
    store.delete_conversation(gone.id)
    assert [c.id for c in store.list_conversations()] == [keep.id]
    assert {c.id for c in store.list_conversations(include_deleted=True)} == {keep.id, gone.id}
    assert store.get_conversation(gone.id).deleted_at is not None
    assert store.search("pelicans") == [] and store.search("trash") == []
    store.restore_conversation(gone.id)
    assert [h.conversation_id for h in store.search("pelicans")] == [gone.id]
    store.delete_conversation(gone.id)
    assert store.purge_deleted(older_than_s=3600) == 0  # too recent
    assert store.purge_deleted() == 1
    with pytest.raises(ConversationNotFoundError):
        store.get_conversation(gone.id)
    assert store.messages(gone.id) == []
    assert store._db.execute("SELECT COUNT(*) FROM messages").fetchone()[0] == 0
    fts_ok(store)


def test_messages_positions_and_delete_after(store: ConversationStore) -> None:
    c = store.create_conversation()
    sent = [store.append_message(c.id, role, f"m{i}") for i, role in enumerate(["user", "assistant"] * 3)]
    assert [m.position for m in sent] == [0, 1, 2, 3, 4, 5]
    assert store.messages(c.id) == sent
    assert store.get_message(sent[2].id) == sent[2]
    # Regenerate the last answer: drop it, write a new one at the same position with a new id.
    assert store.delete_messages_after(c.id, 4) == 1
    again = store.append_message(c.id, "assistant", "m5 again")
    assert again.position == 5 and again.id != sent[5].id
    # Edit and resend the second question: everything after it goes.
    assert store.delete_messages_after(c.id, 1) == 4
    assert [m.content for m in store.messages(c.id)] == ["m0", "m1"]
    assert store.get_conversation(c.id).message_count == 2
    assert store.append_message(c.id, "user", "edited").position == 2
    fts_ok(store)


def test_append_is_committed_when_it_returns(store: ConversationStore) -> None:
    c = store.create_conversation()
    m = store.append_message(c.id, "user", "durable?", stats={"x": 1})
    other = sqlite3.connect(store.path)
    try:
        row = other.execute("SELECT content, status, stats FROM messages WHERE id = ?", (m.id,)).fetchone()
    finally:
        other.close()
    assert row == ("durable?", "complete", '{"x": 1}')


def test_streaming_reply_is_saved_and_searchable_once_finished(store: ConversationStore) -> None:
    c = store.create_conversation()
    reply = store.append_message(c.id, "assistant", "", status="streaming")
    store.update_message(reply.id, content="The platypus lays eggs")
    assert store.get_message(reply.id).content == "The platypus lays eggs"
    assert store.search("platypus") == []  # not indexed while it grows
    # The streaming save skipped the fsync; the connection is back to FULL for everything else.
    assert store._db.execute("PRAGMA synchronous").fetchone()[0] == 2
    store.update_message(
        reply.id, content="The platypus lays eggs.", status="complete", stats={"tokens_per_second": 9.5}
    )
    got = store.get_message(reply.id)
    assert (got.status, got.stats) == ("complete", {"tokens_per_second": 9.5})
    assert [h.message_id for h in store.search("platypus")] == [reply.id]
    store.update_message(reply.id)  # nothing to change
    fts_ok(store)


def test_reopen_turns_interrupted_replies_into_stopped(data_dir: Path) -> None:
    with ConversationStore() as s:
        c = s.create_conversation()
        reply = s.append_message(c.id, "assistant", "", status="streaming")
        s.update_message(reply.id, content="half an ans")
    with ConversationStore(recover_interrupted=False) as s:
        assert s.get_message(reply.id).status == "streaming"
    with ConversationStore() as s:
        got = s.get_message(reply.id)
        assert (got.status, got.content) == ("stopped", "half an ans")
        assert [h.message_id for h in s.search("half")] == [reply.id]
        fts_ok(s)


def test_search_english_chinese_and_titles(store: ConversationStore) -> None:
    trip = store.create_conversation("Trip to 北京")
    q = store.append_message(trip.id, "user", "What should I see in Beijing? 我想去看长城和故宫。")
    a = store.append_message(trip.id, "assistant", "Visit the Great Wall (长城) and the Forbidden City.")
    other = store.create_conversation("Cooking")
    pasta = store.append_message(other.id, "user", "How long do I boil PASTA?")

    assert [h.message_id for h in store.search("pasta")] == [pasta.id]
    assert [h.message_id for h in store.search("Great wall")] == [a.id]  # every word, any case
    assert [h.message_id for h in store.search("看长城")] == [q.id]  # trigram
    assert [h.message_id for h in store.search("长城")] == [a.id]  # two characters: LIKE; one hit per chat
    assert [h.message_id for h in store.search("长城 forbidden")] == [a.id]  # mixed
    hits = store.search("北京")
    assert [(h.message_id, h.conversation_id, h.conversation_title) for h in hits] == [(None, trip.id, "Trip to 北京")]
    hits = store.search("trip")
    assert hits[0].message_id is None and hits[0].conversation_id == trip.id

    hit = store.search("boil")[0]
    assert hit.conversation_title == "Cooking" and "boil" in hit.snippet
    start, end = hit.match_spans[0]
    assert hit.snippet[start:end] == "boil"
    assert store.search("nothing like this") == []
    assert store.search("   ") == []


def test_titles_come_before_messages_and_limit(store: ConversationStore) -> None:
    titled = []
    for i in range(5):
        c = store.create_conversation(f"Llama chat {i}")
        titled.append(c.id)
        store.append_message(c.id, "user", "tell me about llamas")
    others = []
    for i in range(5):
        c = store.create_conversation(f"Animals {i}")
        others.append(c.id)
        store.append_message(c.id, "user", "a llama is not an alpaca")
    hits = store.search("llama")
    assert set(h.conversation_id for h in hits[:5]) == set(titled)
    assert set(h.conversation_id for h in hits[5:]) == set(others)
    assert all(h.message_id is not None and "llama" in h.snippet.lower() for h in hits)  # the message's snippet
    assert len(store.search("llama", limit=7)) == 7
    assert store.search("llama", limit=0) == []


@pytest.mark.parametrize("trigrams", [True, False])
def test_search_lists_each_chat_once_with_its_best_message(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch, trigrams: bool
) -> None:
    """Issue 21: a chat where many messages match was listed once per message; now once, with its best match."""
    if not trigrams:
        for module in (store_core, store_schema):
            monkeypatch.setattr(module, "trigram_search_available", lambda db: False)
    with ConversationStore() as s:
        busy = s.create_conversation("Garden")
        for n in range(6):
            s.append_message(busy.id, "user", f"tomato question {n}")
        best = s.append_message(busy.id, "assistant", "tomato tomato tomato: water the tomato plants daily")
        quiet = s.create_conversation("Kitchen")
        s.append_message(quiet.id, "user", "a tomato soup recipe")
        titled = s.create_conversation("Tomato diary")
        s.append_message(titled.id, "user", "day one")
        hits = s.search("tomato")
        assert sorted(h.conversation_id for h in hits) == sorted([busy.id, quiet.id, titled.id])
        assert hits[0].conversation_id == titled.id and hits[0].message_id is None  # found by its title alone
        garden = next(h for h in hits if h.conversation_id == busy.id)
        if trigrams:
            assert garden.message_id == best.id  # the best-ranked message of that chat gives the snippet
        assert "tomato" in garden.snippet.lower()
        assert len(s.search("tomato", limit=2)) == 2


@pytest.mark.parametrize(
    "query", ['"', 'say "hi', "c++", "100%", "a_b", "AND", "NOT x", "NEAR(", "*", "x:y", "\\", "^ab"]
)
def test_search_takes_any_text_literally(store: ConversationStore, query: str) -> None:
    c = store.create_conversation()
    m = store.append_message(c.id, "user", f"before {query} after")
    store.append_message(c.id, "user", "unrelated words only: 100 percent, ab, x y")
    assert m.id in [h.message_id for h in store.search(query)]


def test_snippet_is_one_line_around_the_match(store: ConversationStore) -> None:
    c = store.create_conversation()
    text = "intro line\n" + "filler " * 100 + "the NEEDLE is here\n" + "more " * 100
    store.append_message(c.id, "user", text)
    hit = store.search("needle")[0]
    assert "\n" not in hit.snippet and hit.snippet.startswith("…") and hit.snippet.endswith("…")
    assert len(hit.snippet) <= store_module.SNIPPET_LENGTH + 2
    assert [hit.snippet[s:e] for s, e in hit.match_spans] == ["NEEDLE"]


def test_transactions_are_all_or_nothing(store: ConversationStore) -> None:
    c = store.create_conversation()
    with pytest.raises(RuntimeError), store.transaction():
        store.append_message(c.id, "user", "one")
        store.append_message(c.id, "user", "two")
        raise RuntimeError("boom")
    assert store.messages(c.id) == []
    with store.transaction():
        store.append_message(c.id, "user", "kept")
        with pytest.raises(RuntimeError), store.transaction():
            store.append_message(c.id, "user", "rolled back")
            raise RuntimeError("inner")
    assert [m.content for m in store.messages(c.id)] == ["kept"]
    assert not store._db.in_transaction


def test_usable_from_another_thread(store: ConversationStore) -> None:
    c = store.create_conversation()
    errors: list[BaseException] = []

    def work() -> None:
        try:
            for i in range(20):
                store.append_message(c.id, "user", f"t{i}")
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert [m.position for m in store.messages(c.id)] == list(range(60))


def test_migrating_schema_2_takes_sources_lines_out_of_answers(data_dir: Path) -> None:
    """Issue 21: the "Sources: ..." line was stored in the answer (English forever, searched, copied)."""
    path = paths.database_path()
    db = sqlite3.connect(path, isolation_level=None)
    answer = "The gauge recorded 417 millimetres [1]."
    line = "\n\n**Sources:** [\\[1\\] field-notes.pdf p. 3](localmind-source:7)"
    sources = [{"number": 1, "file": "/d/field-notes.pdf", "page": 3, "text": "417 mm", "chunk_id": 7}]
    try:
        for step in MIGRATIONS[:2]:
            step(db)
        db.execute("PRAGMA user_version = 2")
        db.execute("INSERT INTO conversations (id, title, created_at, updated_at) VALUES ('c1', 'Rain', 1.0, 2.0)")
        db.execute(
            "INSERT INTO messages (conversation_id, position, role, content, created_at, status, stats)"
            " VALUES ('c1', 0, 'user', 'what did it record?', 1.5, 'complete', NULL),"
            " ('c1', 1, 'assistant', ?, 1.6, 'complete', ?),"
            " ('c1', 2, 'assistant', 'kept as it is: no offset', 1.7, 'complete', '{\"sources\": []}')",
            (answer + line, json.dumps({"sources": sources, "sources_at": len(answer), "generated_tokens": 9})),
        )
    finally:
        db.close()
    with ConversationStore() as s:
        _, migrated, other = s.messages("c1")
        assert migrated.content == answer
        assert migrated.stats == {"sources": sources, "generated_tokens": 9}
        assert other.content == "kept as it is: no offset" and other.stats == {"sources": []}
        assert s.search("field-notes") == [] and s.search("Sources") == []  # out of the search index too
        assert [h.message_id for h in s.search("millimetres")] == [migrated.id]
        assert (migrated.version, migrated.versions) == (0, 1)
        fts_ok(s)


def test_migrates_a_first_release_database(data_dir: Path) -> None:
    path = paths.database_path()
    db = sqlite3.connect(path, isolation_level=None)
    try:
        MIGRATIONS[0](db)
        db.execute("PRAGMA user_version = 1")
        db.execute("INSERT INTO conversations (id, title, created_at, updated_at) VALUES ('c1', 'Old times', 1.0, 2.0)")
        db.execute(
            "INSERT INTO messages (conversation_id, position, role, content, created_at, status)"
            " VALUES ('c1', 0, 'user', 'remember the alamo', 1.5, 'complete'),"
            " ('c1', 1, 'assistant', 'interrupted answ', 1.6, 'streaming')"
        )
    finally:
        db.close()
    with ConversationStore() as s:
        assert s._db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert [h.message_id for h in s.search("alamo")] == [1]
        assert [h.conversation_id for h in s.search("old times")] == ["c1"]
        assert [m.status for m in s.messages("c1")] == ["complete", "stopped"]
        assert s.search("answ")[0].message_id == 2
        assert s.append_message("c1", "user", "new").position == 2
        fts_ok(s)


def test_database_from_a_newer_version_is_refused(data_dir: Path) -> None:
    with ConversationStore() as s:
        s._db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(StoreError, match="newer LocalMind"):
        ConversationStore()


def test_a_file_that_is_not_a_database_is_explained(data_dir: Path) -> None:
    paths.database_path().write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError, match="not a LocalMind conversation database"):
        ConversationStore()


def test_without_trigram_support_search_uses_like(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    modules = (store_core, store_schema)  # where the store asks whether this SQLite has trigrams
    real = store_schema.trigram_search_available
    for module in modules:
        monkeypatch.setattr(module, "trigram_search_available", lambda db: False)
    with ConversationStore() as s:
        assert not s.has_search_index
        c = s.create_conversation("Zebra facts")
        m = s.append_message(c.id, "user", "Zebras have stripes; 斑马有条纹")
        assert [h.message_id for h in s.search("stripes")] == [m.id]
        assert [h.message_id for h in s.search("斑马")] == [m.id]
        assert [h.message_id for h in s.search("zebra")] == [m.id]  # one hit for the chat: title and message
    # Not monkeypatch.undo(): that would also undo the isolated data folder.
    for module in modules:
        monkeypatch.setattr(module, "trigram_search_available", real)
    with ConversationStore() as s:  # a SQLite with trigrams builds the index for what is there
        assert s.has_search_index
        assert [h.message_id for h in s.search("stripes")] == [m.id]
        fts_ok(s)


# --- kill -9 ----------------------------------------------------------------------------------------

LAST_UPDATE = 59
CHILD = rf"""
import sys
from pathlib import Path
from localmind.core.store import ConversationStore

def say(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()

store = ConversationStore(Path(sys.argv[1]))
cid = sys.argv[2]
while True:
    user = store.append_message(cid, "user", "question")
    say(f"U {{user.id}}")
    reply = store.append_message(cid, "assistant", "", status="streaming")
    for k in range(1, {LAST_UPDATE} + 1):
        store.update_message(reply.id, content="tok " * k)
        say(f"S {{reply.id}} {{k}}")
    store.update_message(reply.id, status="complete")
    say(f"C {{reply.id}}")
"""


def test_kill_9_mid_stream_loses_at_most_the_last_update(data_dir: Path) -> None:
    path = paths.database_path()
    with ConversationStore(path) as s:
        cid = s.create_conversation("crash test").id
    rng = random.Random(1234)
    users: set[int] = set()
    saved: dict[int, int] = {}  # reply id -> last update reported as committed
    completed: set[int] = set()
    interrupted: set[int] = set()
    kills = 0
    # At least 8 kills; more (up to 24) until 4 of them have landed mid-reply. Where a kill lands depends on how far
    # the child got before the signal arrived, which depends on the machine's speed and load.
    while kills < 8 or (len(interrupted) < 4 and kills < 24):
        kills += 1
        with subprocess.Popen(
            [sys.executable, "-c", CHILD, str(path), cid], stdout=subprocess.PIPE, text=True, cwd=Path(__file__).parent
        ) as child:
            assert child.stdout is not None
            lines = []
            try:
                for _ in range(rng.randint(1, 150)):
                    line = child.stdout.readline()
                    if not line:
                        break
                    lines.append(line)
            finally:
                child.kill()
            # Whatever the child printed before it died was printed after its commit returned.
            lines += child.stdout.readlines()
        assert child.returncode != 0
        for line in lines:
            if not line.endswith("\n"):
                continue  # cut short by the kill: claims nothing
            kind, id, *rest = line.split()
            if kind == "U":
                users.add(int(id))
            elif kind == "S":
                saved[int(id)] = int(rest[0])
            else:
                completed.add(int(id))

        db = sqlite3.connect(path)
        try:
            assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        finally:
            db.close()
        with ConversationStore(path) as s:
            messages = {m.id: m for m in s.messages(cid)}
            assert users <= messages.keys()
            for reply_id, k in saved.items():
                m = messages[reply_id]
                # The child may have committed one more write than it managed to report.
                if reply_id in completed or (k == LAST_UPDATE and m.status == "complete"):
                    assert (m.status, m.content) == ("complete", "tok " * LAST_UPDATE)
                else:
                    assert m.status == "stopped"
                    assert m.content in ("tok " * k, "tok " * (k + 1))
                    interrupted.add(reply_id)
            fts_ok(s)
    assert len(users) >= 8 and len(interrupted) >= 4, f"{len(interrupted)} of {kills} kills landed mid-stream"


def test_versions_of_an_answer_new_choose_and_discard(store: ConversationStore) -> None:
    c = store.create_conversation()
    store.append_message(c.id, "user", "q")
    first = store.append_message(c.id, "assistant", "first", stats={"generated_tokens": 1})
    second = store.new_version(first.id)
    assert second.id != first.id and (second.version, second.versions, second.status) == (1, 2, "streaming")
    store.update_message(second.id, content="second", status="complete")
    assert [m.content for m in store.messages(c.id)] == ["q", "second"]
    assert [(v.version, v.content, v.stats) for v in store.versions(second.id)] == [
        (0, "first", {"generated_tokens": 1})
    ]
    with pytest.raises(MessageNotFoundError):
        store.get_message(first.id)  # a late save aimed at the replaced answer cannot land in the new one
    chosen = store.choose_version(second.id, 0)
    assert (chosen.content, chosen.version, chosen.versions) == ("first", 0, 2)
    assert [v.content for v in store.versions(second.id)] == ["second"]
    assert [h.message_id for h in store.search("first")] == [second.id]  # the version shown is the one found
    assert store.search("second") == []
    third = store.new_version(second.id)
    assert (third.version, third.versions) == (2, 3)
    back = store.discard_version(third.id)  # it got no word: the latest kept version is shown again
    assert back is not None and (back.content, back.version, back.versions) == ("second", 1, 2)
    store.delete_messages_after(c.id, 0)
    assert store._db.execute("SELECT COUNT(*) FROM message_versions").fetchone()[0] == 0  # gone with their message


def test_restoring_a_backup_from_an_older_schema_migrates_it(data_dir: Path, tmp_path: Path) -> None:
    old = tmp_path / "old-backup.sqlite3"
    db = sqlite3.connect(old, isolation_level=None)
    for step in MIGRATIONS[:2]:
        step(db)
    db.execute("PRAGMA user_version = 2")
    db.execute("INSERT INTO conversations (id, title, created_at, updated_at) VALUES ('c1', 'Before', 1.0, 2.0)")
    db.execute(
        "INSERT INTO messages (conversation_id, position, role, content, created_at) VALUES ('c1', 0, 'user', 'hi', 1.5)"
    )
    db.close()
    from localmind.core import backup

    with ConversationStore() as s:
        backup.restore(s, old)
        assert [m.content for m in s.messages("c1")] == ["hi"]  # it failed: no column "version" in a schema-2 file
        assert s.append_message("c1", "assistant", "there").version == 0
