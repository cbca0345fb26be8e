"""One window per data folder, with two real ``localmind`` processes.

The first streams a reply slowly (the test switches of tests/helpers/app_hooks.py). A second
``localmind`` on the same folder must say that LocalMind is already running and exit 0 without
opening the store: opening it would mark the reply being written as stopped. Terminal commands keep
working meanwhile, and once the first process is killed its lock is stale and the window starts.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QApplication, QMessageBox

from localmind import paths
from localmind.app import create_main_window, run_gui
from localmind.core.store import ConversationStore
from localmind.engine.fake import FakeEngine
from localmind.instance import InstanceLock
from localmind.ui import already_running
from localmind.ui.i18n import Translations
from tests.e2e.test_kill_durability import Trace, app_env, kill_app, read_into, start_app, wait_until_streaming
from tests.helpers import app_hooks
from tests.helpers.app_hooks import ENV_AUTOCHAT, ENV_REPORT, ENV_TOKEN_DELAY, ENV_TRACE, app_command

pytestmark = pytest.mark.slow


def localmind(data: Path, *args: str, timeout: float = 30, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*app_command(), "--data-dir", str(data), *args],
        env=app_env(**env),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def reply_status(database: Path, message_id: int) -> str:
    # Read-only: this check must not be what changes the file.
    with sqlite3.connect(f"file:{database}?mode=ro", uri=True) as db:
        row = db.execute("SELECT status FROM messages WHERE id = ?", (message_id,)).fetchone()
    return str(row[0])


def test_a_second_window_leaves_the_first_ones_reply_alone(tmp_path: Path, tiny_model: Path) -> None:
    data = tmp_path / "data"
    database = data / "conversations.sqlite3"
    # A slow model: the reply is still being written while the second start and four terminal commands come and go
    # (each takes seconds on a loaded 2-core machine).
    first_env = app_env(**{ENV_AUTOCHAT: "Tell me a story about a cat.", ENV_TOKEN_DELAY: "2.0", ENV_TRACE: "1"})
    trace = Trace()
    first = start_app(data, tiny_model, first_env)
    reader = read_into(first, trace)
    try:
        wait_until_streaming(first, trace, "the first window")
        (reply,) = trace.replies
        assert reply_status(database, reply) == "streaming"

        started = time.monotonic()
        # Were a second window to open after all, it would report what it shows and close (not hang).
        second = localmind(data, timeout=20, **{ENV_REPORT: str(tmp_path / "second.json")})
        assert second.returncode == 0, second.stderr
        assert "already running" in second.stderr and str(first.pid) in second.stderr
        assert time.monotonic() - started < 15
        assert trace.finished == 0, "the reply ended before the check: make the model slower"
        assert reply_status(database, reply) == "streaming"
        assert first.poll() is None

        # The terminal commands share the folder with the open window.
        exported = localmind(data, "export", "--all", "--format", "json", "-o", str(tmp_path / "all.json"))
        assert exported.returncode == 0, exported.stderr
        chats = json.loads((tmp_path / "all.json").read_text(encoding="utf-8"))["conversations"]
        assert [(m["role"], m["status"]) for m in chats[0]["messages"]] == [
            ("user", "complete"),
            ("assistant", "streaming"),
        ]
        imported = localmind(data, "import", str(tmp_path / "all.json"))
        assert imported.returncode == 0, imported.stderr
        models = localmind(data, "models", "list")
        assert models.returncode == 0, models.stderr
        assert trace.finished == 0, "the reply ended before the terminal commands did: make the model slower"
        assert reply_status(database, reply) == "streaming"
    finally:
        if first.poll() is None:
            kill_app(first)
        first.wait(timeout=10)
        reader.join(timeout=10)
        assert first.stdout is not None
        first.stdout.close()

    # The killed window left its lock file behind; its process is gone, so the lock is stale.
    assert (data / "localmind.lock").exists()
    report = tmp_path / "report.json"
    reporting = app_env(**{ENV_REPORT: str(report)})
    subprocess.run(
        [*app_command(reporting), "--data-dir", str(data)],
        env=reporting,
        timeout=60,
        check=True,
        capture_output=True,
    )
    shown = json.loads(report.read_text(encoding="utf-8"))["conversations"]
    # Import goes by conversation id: the window's own chat is skipped, or (when the window saved more of the reply
    # between the export and the import) added as a copy; never silently duplicated.
    copied = "Imported as a copy" in imported.stdout
    assert copied or "Skipped (already here): 1 conversation" in imported.stdout, imported.stdout
    assert len(shown) == (2 if copied else 1)
    assert reply_status(database, reply) == "stopped"  # recovered by the window that owns the folder now


def test_with_a_display_the_second_start_shows_a_message_box(
    qapp: QApplication, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shown: list[tuple[str, str]] = []

    def fake_exec(box: QMessageBox) -> int:  # a real exec would wait for a click
        shown.append((box.text(), box.informativeText()))
        return int(QMessageBox.StandardButton.Ok)

    monkeypatch.setattr(already_running, "has_display", lambda: True)
    monkeypatch.setenv(ENV_REPORT, str(data_dir / "report.json"))  # a window opened by mistake closes itself
    monkeypatch.setattr(QMessageBox, "exec", fake_exec)
    (data_dir / "settings.json").write_text(json.dumps({"language": "zh_CN"}), encoding="utf-8")
    holder = InstanceLock(paths.ensure_data_dir())
    assert holder.acquire()
    try:
        args: Any = type("Args", (), {"model": None})()
        assert run_gui(args, before_show=app_hooks.install) == 0
    finally:
        holder.release()
        Translations.for_app(qapp).apply("en")
    assert shown and shown[0][0] == "LocalMind 已在运行。"
    assert str(data_dir) in shown[0][1]
    assert not (data_dir / "conversations.sqlite3").exists()  # the store was never opened


def test_the_self_test_window_leaves_an_open_windows_chats_alone(qapp: QApplication, data_dir: Path) -> None:
    with ConversationStore(data_dir / "conversations.sqlite3") as store:
        chat = store.create_conversation(title="streaming elsewhere")
        store.append_message(chat.id, "user", "hi")
        reply = store.append_message(chat.id, "assistant", "half an ans", status="streaming")
        trashed = store.create_conversation(title="deleted, still undoable there")
        store.delete_conversation(trashed.id)
    holder = InstanceLock(paths.ensure_data_dir())  # the user's window
    assert holder.acquire()
    try:
        window = create_main_window(engine_factory=lambda: FakeEngine())
        window.close()
        window.deleteLater()
    finally:
        holder.release()
    with ConversationStore(data_dir / "conversations.sqlite3", recover_interrupted=False) as store:
        assert [m.status for m in store.messages(chat.id)] == ["complete", "streaming"]
        assert store.get_conversation(trashed.id).deleted_at is not None  # still in the trash, not purged
        assert reply.id in [m.id for m in store.messages(chat.id)]

    # Alone on the folder, the same window does both.
    window = create_main_window(engine_factory=lambda: FakeEngine())
    window.close()
    window.deleteLater()
    with ConversationStore(data_dir / "conversations.sqlite3", recover_interrupted=False) as store:
        assert [m.status for m in store.messages(chat.id)] == ["complete", "stopped"]
        assert trashed.id not in [c.id for c in store.list_conversations(include_deleted=True)]


def test_a_second_start_brings_the_open_window_forward(tmp_path: Path) -> None:
    """Issue 21: the second start said LocalMind was running, but its window stayed minimized behind the others."""
    from tests.helpers.xwindow import x_display

    data = tmp_path / "data"
    with x_display() as x:

        def active() -> str:
            try:
                return x.xdotool("getactivewindow").strip()
            except RuntimeError:
                return ""  # no window is active

        app = x.start_app(data)
        app.activate()
        x.xdotool("windowminimize", "--sync", app.window)
        app.wait_until(lambda: active() != app.window, 10, "the window to be minimized")
        started = time.monotonic()
        try:
            second = subprocess.run(
                [sys.executable, "-m", "localmind", "--data-dir", str(data)],
                env=x.env(), capture_output=True, text=True, timeout=30, check=False,
            )  # fmt: skip
        except subprocess.TimeoutExpired as exc:  # a message box waiting for a click instead
            raise AssertionError("the second start did not end by itself") from exc
        assert second.returncode == 0, second.stderr
        assert "brought forward" in second.stderr
        assert time.monotonic() - started < 20
        app.wait_until(lambda: active() == app.window, 10, "the window to come forward")
        assert app.window in app.window_ids()  # shown (not minimized)
        x.screenshot(tmp_path / "brought-forward.png")
