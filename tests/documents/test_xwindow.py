"""The whole flow as a person does it: documents added in the terminal, then the real window under Xvfb, driven
with real X key events (xdotool): switch "Use my documents" on, type a question, read the cited answer from the store.

A minimal X harness of its own (Xvfb + openbox + xdotool); skipped where those are not installed.
"""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.gui]
REPO = Path(__file__).resolve().parents[2]
TOOLS = ("Xvfb", "openbox", "xdotool")
QUESTION = "Please tell me: what did the Kestrel Ridge rain gauge record?"


def env_for(display: str, data: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LOCALMIND_", "QT_QPA"))}
    env.update(DISPLAY=display, QT_QPA_PLATFORM="xcb", PYTHONPATH=str(REPO / "src"), LOCALMIND_DATA_DIR=str(data))
    return env


def xdo(display: str, *args: str) -> str:
    out = subprocess.run(["xdotool", *args], env={**os.environ, "DISPLAY": display}, capture_output=True, text=True)
    return out.stdout.strip()


def wait_for(check, timeout: float, what: str):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.mark.skipif(any(shutil.which(t) is None for t in TOOLS), reason="needs Xvfb, openbox and xdotool")
def test_typed_question_gets_the_cited_page(tmp_path: Path, roomy_model: Path, corpus: Path) -> None:
    data = tmp_path / "data"
    display = f":{90 + os.getpid() % 200}"
    added = subprocess.run(
        [sys.executable, "-m", "localmind", "docs", "add", str(corpus), "--json"],
        env=env_for(display, data), capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert added.returncode == 0, added.stderr
    procs: list[subprocess.Popen[bytes]] = []
    try:
        procs.append(subprocess.Popen(["Xvfb", display, "-screen", "0", "1280x800x24", "-nolisten", "tcp"]))
        wait_for(lambda: Path(f"/tmp/.X11-unix/X{display[1:]}").exists(), 20, "Xvfb")
        procs.append(subprocess.Popen(["openbox"], env={**os.environ, "DISPLAY": display}))
        app = subprocess.Popen(
            [sys.executable, "-m", "localmind", "--model", str(roomy_model)],
            env=env_for(display, data), start_new_session=True,
        )  # fmt: skip
        procs.append(app)
        window = wait_for(lambda: xdo(display, "search", "--onlyvisible", "--name", "LocalMind"), 60, "the window")
        window = window.splitlines()[-1]
        xdo(display, "windowactivate", "--sync", window)
        time.sleep(8)  # the model loads in the engine process (the composer takes no text until it is ready)
        xdo(display, "key", "ctrl+n")  # a new chat, the composer focused
        time.sleep(1)
        xdo(display, "type", "--delay", "20", QUESTION)
        time.sleep(0.5)
        xdo(display, "key", "ctrl+shift+d")  # Use my documents
        xdo(display, "key", "Return")

        database = data / "conversations.sqlite3"

        def answer() -> str | None:
            try:
                with sqlite3.connect(database) as db:
                    row = db.execute(
                        "SELECT content FROM messages WHERE role = 'assistant' AND status = 'complete'"
                    ).fetchone()
            except sqlite3.Error:
                return None
            return row[0] if row else None

        text = wait_for(answer, 60, "the answer")
        with sqlite3.connect(database) as db:
            assert db.execute("SELECT content FROM messages WHERE role = 'user'").fetchall() == [(QUESTION,)]
        assert "field-notes.pdf p. 3" in text and "localmind-source:" in text
        shots = REPO / "build" / "screenshots"
        shots.mkdir(parents=True, exist_ok=True)
        subprocess.run(["import", "-window", "root", str(shots / "documents-xwindow.png")], env={**os.environ, "DISPLAY": display}, check=False)  # fmt: skip
    finally:
        for proc in reversed(procs):
            if proc.poll() is None:
                if proc is procs[-1] and len(procs) == 3:
                    os.killpg(proc.pid, signal.SIGTERM)
                else:
                    proc.terminate()
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    proc.kill()
