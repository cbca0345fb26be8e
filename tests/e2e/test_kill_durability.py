"""``kill -9`` the real app again and again while it streams: the database stays sound and almost nothing is lost.

The app runs as users run it (``python -m localmind --data-dir X --model M``,
offscreen) with hidden test switches: it sends a prompt whenever it is idle,
its engine waits before each token so a reply takes about a second, and it
prints on stdout what it committed and streamed, with times. The whole process
group (window and engine) is killed at a random moment; then, before anything
else touches the file, SQLite's integrity check must pass, and every piece of
reply text streamed more than a second before the kill must be in the store.
"""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from localmind.core.store import ConversationStore
from tests.helpers.app_hooks import ENV_AUTOCHAT, ENV_ENABLE, ENV_REPORT, ENV_TOKEN_DELAY, ENV_TRACE, app_command
from tests.helpers.tiny_model import REPLIES

pytestmark = pytest.mark.slow

KILLS = 8
PROMPT = "Tell me a story about a cat."
TOKEN_DELAY_S = 0.08
MAX_LOSS_S = 1.0
REPO = Path(__file__).resolve().parents[2]


@dataclass
class Trace:
    """What one run of the app said it did, read from its stdout as it ran."""

    users: list[int] = field(default_factory=list)
    replies: list[int] = field(default_factory=list)
    progress: dict[int, list[tuple[float, int]]] = field(default_factory=dict)  # reply id -> (time, chars so far)
    finished: int = 0
    lines: list[str] = field(default_factory=list)

    def feed(self, line: str) -> None:
        self.lines.append(line)
        kind, *rest = line.split()
        if kind == "message":
            _, message_id, role, _ = rest
            (self.users if role == "user" else self.replies).append(int(message_id))
        elif kind == "delta":
            when, message_id, chars = rest
            self.progress.setdefault(int(message_id), []).append((float(when), int(chars)))
        elif kind == "finished":
            self.finished += 1

    def chars_before(self, message_id: int, moment: float) -> int:
        return max((chars for when, chars in self.progress.get(message_id, []) if when <= moment), default=0)

    def first_unsaved(self, message_id: int, saved_chars: int) -> float | None:
        """When text beyond what was saved first arrived (``None``: nothing was lost)."""
        return min((when for when, chars in self.progress.get(message_id, []) if chars > saved_chars), default=None)


def app_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LOCALMIND_")}
    # ENV_ENABLE: started through the tests' entry point (app_command), which reads the switches; the checkout is
    # on the path for it (``tests.helpers.hooked_app``).
    path = os.pathsep.join((str(REPO / "src"), str(REPO)))
    env.update(QT_QPA_PLATFORM="offscreen", PYTHONPATH=path, **{ENV_ENABLE: "1"}, **extra)
    return env


def start_app(data: Path, model: Path, env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*app_command(env), "--data-dir", str(data), "--model", str(model)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
        start_new_session=True,  # its own process group: the kill takes the engine process too
    )


def kill_app(proc: subprocess.Popen[str]) -> None:
    """``kill -9`` the app and its engine process: its process group on POSIX, its process tree on Windows."""
    if sys.platform == "win32":
        subprocess.run(["taskkill", "/F", "/T", "/PID", str(proc.pid)], capture_output=True, check=False)
    else:
        os.killpg(proc.pid, signal.SIGKILL)


def read_into(proc: subprocess.Popen[str], trace: Trace) -> threading.Thread:
    def pump() -> None:
        assert proc.stdout is not None
        try:
            for line in proc.stdout:
                if line.strip():
                    trace.feed(line.strip())
        except (ValueError, OSError):  # the pipe was closed under us: the run is over
            return

    thread = threading.Thread(target=pump, daemon=True)
    thread.start()
    return thread


def wait_until_streaming(proc: subprocess.Popen[str], trace: Trace, what: str = "the app") -> None:
    deadline = time.monotonic() + 30
    while not trace.progress and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.02)
    assert trace.progress, f"{what} never streamed (exit {proc.poll()}): {trace.lines[-5:]}"


def test_kill_9_while_streaming_loses_at_most_a_second(tmp_path: Path, tiny_model: Path) -> None:
    data = tmp_path / "data"
    database = data / "conversations.sqlite3"
    env = app_env(**{ENV_AUTOCHAT: PROMPT, ENV_TOKEN_DELAY: str(TOKEN_DELAY_S), ENV_TRACE: "1"})
    rng = random.Random(20261130)
    mid_stream_kills = 0
    worst_loss = 0
    worst_loss_s = 0.0
    committed_users: set[int] = set()
    completed: set[int] = set()

    for _kill in range(KILLS):
        trace = Trace()
        proc = start_app(data, tiny_model, env)
        reader = read_into(proc, trace)
        try:
            wait_until_streaming(proc, trace)
            time.sleep(rng.uniform(0.0, 2.5))
            killed_at = time.time()
            kill_app(proc)
        finally:
            if proc.poll() is None:
                kill_app(proc)
            proc.wait(timeout=10)
        reader.join(timeout=10)
        assert proc.stdout is not None
        proc.stdout.close()

        # The file as the kill left it: nothing has opened (or repaired) it since.
        with sqlite3.connect(database) as db:
            assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
            rows = {
                row[0]: row[1:]
                for row in db.execute(
                    "SELECT id, role, content, status FROM messages ORDER BY conversation_id, position"
                )
            }
        committed_users |= set(trace.users)
        for user_id in committed_users:
            assert rows[user_id][:2] == ("user", PROMPT), f"user message {user_id} was lost"
        for reply_id in trace.replies:
            role, content, status = rows[reply_id]
            assert role == "assistant"
            assert any(reply.startswith(content) for reply in REPLIES), f"reply {reply_id} is not a prefix: {content!r}"
            streamed_long_ago = trace.chars_before(reply_id, killed_at - MAX_LOSS_S)
            assert len(content) >= streamed_long_ago, (
                f"reply {reply_id}: {streamed_long_ago} characters streamed more than {MAX_LOSS_S} s before the kill, "
                f"only {len(content)} saved"
            )
            worst_loss = max(worst_loss, trace.chars_before(reply_id, killed_at) - len(content))
            lost_since = trace.first_unsaved(reply_id, len(content))
            if lost_since is not None:
                worst_loss_s = max(worst_loss_s, killed_at - lost_since)
            if status == "complete":
                assert content in REPLIES
                completed.add(reply_id)
            elif reply_id == trace.replies[-1]:
                mid_stream_kills += status == "streaming"
        for reply_id in completed:
            assert rows[reply_id][2] == "complete", f"finished reply {reply_id} changed"

    assert mid_stream_kills >= KILLS // 2, f"only {mid_stream_kills} of {KILLS} kills came mid-reply"

    # The next start shows everything: the store's recovery marks the interrupted replies "stopped".
    report = tmp_path / "report.json"
    plain = app_env(**{ENV_REPORT: str(report)})
    subprocess.run(
        [*app_command(plain), "--data-dir", str(data), "--model", str(tiny_model)],
        env=plain,
        timeout=60,
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    shown = json.loads(report.read_text(encoding="utf-8"))["conversations"]
    assert len(shown) == KILLS  # each run started a new chat and committed its first message
    shown_ids = {m["id"]: m for c in shown for m in c["messages"]}
    assert committed_users <= shown_ids.keys()
    assert completed <= shown_ids.keys()
    assert all(m["status"] != "streaming" for m in shown_ids.values())
    with ConversationStore(database, recover_interrupted=False) as store:
        assert sum(len(store.messages(c.id)) for c in store.list_conversations()) == len(shown_ids)
    print(
        f"\n{KILLS} kills, {mid_stream_kills} mid-reply; worst loss {worst_loss} characters, "
        f"the last {worst_loss_s:.2f} s of a reply"
    )
