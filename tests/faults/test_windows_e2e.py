"""The real ``localmind`` process under Xvfb + openbox, driven with xdotool: the start-up problem window and a disk
that fills while a reply streams. Screenshots go to $LOCALMIND_STORE_SHOTS when set (docs/screenshots uses them).
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from localmind.core import chat_files
from localmind.core.store import ConversationStore
from tests.faults import helpers
from tests.helpers.app_hooks import app_command
from tests.helpers.xwindow import XDisplay, x_display

pytestmark = [
    pytest.mark.slow,
    pytest.mark.timeout(400),  # a real process, a real X server and an engine child: minutes on a loaded machine
]

LANGUAGES = {"en": "en_US.UTF-8", "zh_CN": "zh_CN.UTF-8"}


@pytest.fixture(scope="module")
def x() -> Iterator[XDisplay]:
    with x_display((1280, 860)) as d:
        yield d


def shots(tmp_path: Path) -> Path:
    return Path(os.environ.get("LOCALMIND_STORE_SHOTS") or tmp_path)


def start(x: XDisplay, data: Path, language: str, *args: str, **env: str) -> subprocess.Popen[str]:
    settings = {"language": language, "theme": "light"}
    (data / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    out = open(data.parent / f"{data.name}-stdout.txt", "w")  # noqa: SIM115 - the process writes it, read by lines()
    environment = {**x.env(), "LANG": LANGUAGES[language], **env}
    process = subprocess.Popen(
        [*app_command(environment), "--data-dir", str(data), *args],
        env=environment,
        stdout=out,
        stderr=subprocess.PIPE,
        text=True,
    )
    out.close()
    process.stdout_path = data.parent / f"{data.name}-stdout.txt"  # type: ignore[attr-defined]
    return process


def shoot_and_press(x: XDisplay, title: str, shot: Path, key: str) -> None:
    """Wait for the window titled ``title``, take its picture, then press ``key`` in it."""
    window = x.find_window(title)
    x.screenshot(shot, window)
    x.focus(window)
    x.key(key)


def wait_line(process: subprocess.Popen[str], word: str, count: int = 1, timeout: float = 120) -> None:
    """Until the app's trace (LOCALMIND_TEST_TRACE) has ``count`` lines starting with ``word``."""
    path: Path = process.stdout_path  # type: ignore[attr-defined]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if sum(line.startswith(word) for line in path.read_text().splitlines()) >= count:
            return
        assert process.poll() is None, "the app ended"
        time.sleep(0.2)
    raise TimeoutError(f"no {word!r} line within {timeout} s")


def finish(process: subprocess.Popen[str], timeout: float = 90) -> tuple[int, str]:
    """Its exit status and stderr; a window that did not close on Alt+F4 (a key lost on a loaded machine) gets
    SIGTERM, which closes it the same way (the reply in progress is saved)."""
    try:
        _, err = process.communicate(timeout=timeout / 3)
    except subprocess.TimeoutExpired:
        process.send_signal(signal.SIGTERM)
        try:
            _, err = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            _, err = process.communicate()
    return process.returncode, err


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_damage_at_start_shows_a_window_and_recovers(
    x: XDisplay, data_dir: Path, tmp_path: Path, language: str
) -> None:
    with ConversationStore() as store:
        chat_files.import_json(store, json.dumps(helpers.export_data(300)))
    helpers.damage_page(data_dir / "conversations.sqlite3")
    app = start(x, data_dir, language)
    try:
        # the default: Recover my conversations
        shoot_and_press(x, "^LocalMind$", shots(tmp_path) / f"store-startup-damaged-{language}.png", "Return")
        time.sleep(3)
        # Continue
        shoot_and_press(x, "^LocalMind$", shots(tmp_path) / f"store-recovered-{language}.png", "Return")
        time.sleep(3)
        shoot_and_press(x, "LocalMind", shots(tmp_path) / f"store-after-recovery-{language}.png", "alt+F4")
    finally:
        rc, err = finish(app)
    assert rc == 0, err
    assert "Traceback" not in err
    damaged = [p for p in data_dir.iterdir() if ".damaged-" in p.name and p.suffix == ".sqlite3"]
    assert len(damaged) == 1
    with ConversationStore(check=True) as store:
        assert len(store.list_conversations()) == 300


@pytest.mark.skipif(not helpers.can_mount(), reason="needs root to mount a small tmpfs")
@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_a_full_disk_at_start_shows_a_window_not_stderr_advice(
    x: XDisplay, data_dir: Path, tmp_path: Path, language: str
) -> None:
    with helpers.small_disk(data_dir):
        with ConversationStore() as store:
            store.create_conversation("safe and sound")
        app = start(x, data_dir, language)  # settings first: the full disk leaves no room for them
        time.sleep(0.3)
        filler = helpers.fill(data_dir)
        try:
            # Quit: nothing is done to the database
            shoot_and_press(x, "^LocalMind$", shots(tmp_path) / f"store-startup-full-{language}.png", "Escape")
        finally:
            rc, err = finish(app)
        assert rc == 1
        assert "Move the file aside" not in err and "make a new one" not in err
        filler.unlink()
        db = sqlite3.connect(data_dir / "conversations.sqlite3")
        assert db.execute("SELECT title FROM conversations").fetchall() == [("safe and sound",)]
        db.close()


@pytest.mark.skipif(not helpers.can_mount(), reason="needs root to mount a small tmpfs")
@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_disk_full_while_the_real_engine_streams(
    x: XDisplay, data_dir: Path, tmp_path: Path, tiny_model: Path, language: str
) -> None:
    from tests.helpers.app_window import tiny_reply

    question = "Tell me about the sea"
    expected = tiny_reply(tiny_model, [("user", question)])
    with helpers.small_disk(data_dir, "4m"):
        app = start(
            x,
            data_dir,
            language,
            "--model",
            str(tiny_model),
            LOCALMIND_TEST_HOOKS="1",
            LOCALMIND_TEST_TOKEN_DELAY="0.25",
            LOCALMIND_TEST_TRACE="1",
        )
        try:
            main = x.find_window("LocalMind")
            wait_line(app, "loaded")  # the engine process has the model
            x.focus(main)
            x.type(question)
            x.focus(main)
            x.key("Return")
            wait_line(app, "delta")  # the reply streams
            filler = helpers.fill(data_dir)  # full while the reply streams
            wait_line(app, "finished")
            time.sleep(1.5)
            x.screenshot(shots(tmp_path) / f"store-full-while-streaming-{language}.png", main)
            filler.unlink()
            time.sleep(3)
            x.screenshot(shots(tmp_path) / f"store-saved-after-space-{language}.png", main)
            x.focus(main)
            x.key("alt+F4")
        finally:
            rc, err = finish(app, 120)
        assert rc == 0, err
        db = sqlite3.connect(data_dir / "conversations.sqlite3")
        rows = db.execute("SELECT role, content, status FROM messages ORDER BY position").fetchall()
        db.close()
    assert rows == [("user", question, "complete"), ("assistant", expected, "complete")]


@pytest.mark.skipif(not helpers.can_mount(), reason="needs root to mount a small tmpfs")
@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_a_read_only_disk_opens_read_only_with_a_banner(
    x: XDisplay, data_dir: Path, tmp_path: Path, language: str
) -> None:
    with helpers.small_disk(data_dir):
        with ConversationStore() as store:
            chat_files.import_json(store, json.dumps(helpers.export_data(5)))
        (data_dir / "settings.json").write_text(json.dumps({"language": language, "theme": "light"}), encoding="utf-8")
        helpers.remount(data_dir, "ro")
        try:
            app = subprocess.Popen(
                [sys.executable, "-m", "localmind", "--data-dir", str(data_dir)],
                env={**x.env(), "LANG": LANGUAGES[language]},
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            try:
                # the default: Open read-only
                shoot_and_press(x, "^LocalMind$", shots(tmp_path) / f"store-startup-read-only-{language}.png", "Return")
                time.sleep(3)
                shoot_and_press(x, "LocalMind", shots(tmp_path) / f"store-read-only-banner-{language}.png", "alt+F4")
            finally:
                rc, err = finish(app)
            assert rc == 0, err
            assert "Traceback" not in err
        finally:
            helpers.remount(data_dir, "rw")
