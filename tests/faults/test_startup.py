"""Issue 10 item 3: at start-up, a full disk, a read-only disk, a lock and damage are told apart, in a window.

Before: all four were "not a LocalMind conversation database or is damaged ... Move the file aside ... it will make a
new one" on stderr, with no window: advice that makes a user abandon a healthy database.
"""

from __future__ import annotations

import os
import sqlite3
import stat
from pathlib import Path
from typing import Any

import pytest

from localmind import paths
from localmind.core import chat_files
from localmind.core.store import BUSY, DAMAGED, FULL, READ_ONLY, ConversationStore, StoreError
from localmind.ui import store_dialogs
from tests.faults import helpers

NEVER = ("move the file aside", "make a new one", "delete")


class Answers:
    """Stands in for the start-up window: records what it was asked and answers like a user."""

    def __init__(self, *choices: str) -> None:
        self.choices = list(choices)
        self.asked: list[tuple[str, str, list[str]]] = []

    def __call__(self, headline: str, detail: str, choices: list[str]) -> str:
        self.asked.append((headline, detail, list(choices)))
        for text in (headline, detail):
            assert not any(bad in text.lower() for bad in NEVER), text
        return self.choices.pop(0)


def make_database(count: int = 3) -> None:
    with ConversationStore() as store:
        chat_files.import_json(store, __import__("json").dumps(helpers.export_data(count)))


@pytest.fixture
def small_disk(data_dir: Path) -> Any:
    if not helpers.can_mount():
        pytest.skip("needs root to mount a tmpfs (the injected fault tests cover the store's side)")
    with helpers.small_disk(data_dir) as folder:
        yield folder


def test_full_disk_at_start_is_told_as_full_then_opens_after_freeing_space(small_disk: Path, qapp: Any) -> None:
    make_database()
    filler = helpers.fill(small_disk)
    # The old code's words for this: "not a LocalMind conversation database or is damaged (disk I/O error)".
    with pytest.raises(StoreError) as caught:
        ConversationStore()
    assert caught.value.kind == FULL

    def free_then_retry(headline: str, detail: str, choices: list[str]) -> str:
        filler.unlink()
        return store_dialogs.RETRY

    answers = Answers()
    answers.choices = []
    asked: list[str] = []

    def user(headline: str, detail: str, choices: list[str]) -> str:
        asked.append(headline)
        assert choices == [store_dialogs.RETRY, store_dialogs.READ_ONLY_OPEN, store_dialogs.QUIT]
        assert "safe" in detail and "Free some space" in detail
        return free_then_retry(headline, detail, choices)

    store = store_dialogs.open_store(user)
    assert asked == ["LocalMind cannot start: the disk is full."]
    assert store is not None and len(store.list_conversations()) == 3
    store.close()


def test_full_disk_can_be_read_meanwhile(small_disk: Path, qapp: Any) -> None:
    make_database()
    helpers.fill(small_disk)
    store = store_dialogs.open_store(Answers(store_dialogs.READ_ONLY_OPEN))
    assert store is not None and store.read_only
    assert len(chat_files.collect(store)) == 3  # read and export
    store.close()


def test_read_only_disk_opens_read_only_to_read_search_and_export(small_disk: Path, qapp: Any) -> None:
    make_database()
    helpers.remount(small_disk, "ro")
    try:
        with pytest.raises(StoreError) as caught:
            ConversationStore()
        assert caught.value.kind == READ_ONLY
        answers = Answers(store_dialogs.READ_ONLY_OPEN)
        store = store_dialogs.open_store(answers)
        assert answers.asked[0][0] == "Your conversations are on a read-only disk or in a read-only file."
        assert store is not None and store.read_only
        assert len(store.list_conversations()) == 3
        assert store.search("alpha")
        assert "Chat number 0" in chat_files.to_markdown(chat_files.collect(store))
        with pytest.raises(StoreError) as refused:
            store.create_conversation("new")
        assert refused.value.kind == READ_ONLY
        store.close()
    finally:
        helpers.remount(small_disk, "rw")


def test_read_only_file_without_root(data_dir: Path, qapp: Any) -> None:
    """The same through file permissions, for machines where the suite runs without root."""
    if helpers.can_mount():
        pytest.skip("root ignores file permissions; the read-only tmpfs test covers this")
    make_database()
    db = paths.database_path()
    os.chmod(db, stat.S_IRUSR)
    os.chmod(data_dir, stat.S_IRUSR | stat.S_IXUSR)
    try:
        store = store_dialogs.open_store(Answers(store_dialogs.READ_ONLY_OPEN))
        assert store is not None and store.read_only and len(store.list_conversations()) == 3
        store.close()
    finally:
        os.chmod(data_dir, stat.S_IRWXU)
        os.chmod(db, stat.S_IRUSR | stat.S_IWUSR)


def test_a_database_locked_by_another_process_is_told_as_locked(data_dir: Path, qapp: Any) -> None:
    make_database()
    with helpers.lock_held(paths.database_path(), "exclusive"):
        with pytest.raises(StoreError) as caught:
            ConversationStore(busy_timeout_ms=100)
        assert caught.value.kind == BUSY
        answers = Answers(store_dialogs.QUIT)
        assert store_dialogs.open_store(answers) is None
    assert answers.asked[0][0] == "Another program is using your conversations."
    assert answers.asked[0][2] == [store_dialogs.RETRY, store_dialogs.QUIT]
    # Once the other program is gone, Try again opens them.
    store = store_dialogs.open_store(Answers())
    assert store is not None and len(store.list_conversations()) == 3
    store.close()


def test_a_write_lock_held_by_another_process_does_not_stop_the_start(data_dir: Path) -> None:
    """A terminal import holding the write lock: the window starts and reads (WAL); only writes wait."""
    make_database()
    with helpers.lock_held(paths.database_path(), "write"):
        store = ConversationStore(check=True, busy_timeout_ms=100)
        assert len(store.list_conversations()) == 3
        store.close()


def test_damage_is_told_as_damage_and_recovered(data_dir: Path, qapp: Any) -> None:
    make_database(300)
    helpers.damage_page(paths.database_path())
    with pytest.raises(StoreError) as caught:
        ConversationStore(check=True)
    assert caught.value.kind == DAMAGED
    answers = Answers(store_dialogs.RECOVER, store_dialogs.CONTINUE)
    store = store_dialogs.open_store(answers)
    assert store is not None
    (headline, _, choices), (report_headline, report, _) = answers.asked
    assert headline == "Part of your conversation database is damaged."
    assert choices == [store_dialogs.RECOVER, store_dialogs.QUIT]
    assert report_headline == "Your conversations were recovered, except for what is listed."
    assert "Saved: 300 conversations with" in report and "The damaged file is kept, untouched, at" in report
    damaged = [p for p in data_dir.iterdir() if ".damaged-" in p.name and p.suffix == ".sqlite3"]
    assert len(damaged) == 1
    assert len(store.list_conversations()) == 300
    store.close()


def test_a_newer_database_says_update(data_dir: Path, qapp: Any) -> None:
    make_database()
    db = sqlite3.connect(paths.database_path())
    db.execute("PRAGMA user_version = 99")
    db.close()
    answers = Answers(store_dialogs.QUIT)
    assert store_dialogs.open_store(answers) is None
    assert answers.asked[0][0] == "These conversations were saved by a newer LocalMind."
    assert answers.asked[0][2] == [store_dialogs.QUIT]


def test_the_start_up_window_shows_plain_text_and_its_buttons_choose(qtbot: Any) -> None:
    exc = StoreError("x", kind=FULL)
    headline, detail, choices = store_dialogs.startup_problem(exc)
    dialog = store_dialogs.StoreDialog(headline, detail + " <b>not bold</b>", choices)
    qtbot.addWidget(dialog)
    dialog.show()
    assert dialog.detail.textFormat().name == "PlainText"
    assert [b.text() for b in dialog.buttons.buttons()] != []
    dialog.choice_buttons[store_dialogs.READ_ONLY_OPEN].click()
    assert dialog.choice == store_dialogs.READ_ONLY_OPEN
    dialog2 = store_dialogs.StoreDialog(headline, detail, choices)
    qtbot.addWidget(dialog2)
    dialog2.show()
    dialog2.reject()  # Esc: quit, never an action on the database
    assert dialog2.choice == store_dialogs.QUIT


def test_the_windows_speak_chinese(qapp: Any) -> None:
    from localmind.core.store import StoreError
    from localmind.ui.i18n import Translations
    from localmind.viewmodels.reply_saver import reply_problem

    translations = Translations.for_app(qapp)
    translations.apply("zh_CN")
    try:
        assert store_dialogs.startup_problem(StoreError("x", kind=FULL))[0] == "LocalMind 无法启动：磁盘已满。"
        assert store_dialogs.startup_problem(StoreError("x", kind=DAMAGED))[0] == "对话数据库有一部分已损坏。"
        assert reply_problem(FULL, Path("/d"))[0] == "回答尚未保存：磁盘已满。"
        assert store_dialogs.import_summary(
            __import__("localmind.core.conversations").core.conversations.ImportResult()
        ) == ("文件中没有对话，未导入任何内容。")
    finally:
        translations.apply("en")
