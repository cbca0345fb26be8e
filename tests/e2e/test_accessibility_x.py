"""Issue 21: accessibility where screen readers look — the AT-SPI tree of the real window on Xvfb.

The real app runs on Xvfb with openbox, a private session bus and the AT-SPI bus (tests/helpers/atspi.py); the test
steps it through its pages (tests/helpers/a11y_driver.py) and reads the tree with pyatspi at each, as Orca would:
no focusable control may be unnamed (a planted one is caught), and the end of a streamed answer is announced.
"""

from __future__ import annotations

import contextlib
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.atspi import accessibility_bus, app_env, read_tree
from tests.helpers.xwindow import REPO, XDisplay, wait_until, x_display
from tests.helpers.xwindow import _stop as stop_process

pytestmark = [pytest.mark.gui, pytest.mark.slow]

PAGES = ("main", "settings-chat", "settings-advanced", "settings-app", "settings-server", "models", "documents")


class SteppedApp:
    def __init__(
        self, proc: subprocess.Popen[bytes], control: Path, env: dict[str, str], log: Path, x: XDisplay
    ) -> None:
        self.proc, self.control, self.env, self.log, self.x = proc, control, env, log, x
        self.pid = int(wait_until(self._ready, 90, "the app to start"))

    def _ready(self) -> str | None:
        self._alive()
        ready = self.control / "ready"
        return ready.read_text() if ready.exists() and ready.read_text() else None

    def _alive(self) -> None:
        if self.proc.poll() is not None:
            raise AssertionError(f"the app exited (rc {self.proc.returncode}):\n{self.log.read_text()[-4000:]}")

    def step(self, name: str, timeout: float = 90) -> str:
        done = self.control / f"done-{name}"
        (self.control / "step").write_text(name, encoding="utf-8")

        def finished() -> bool:
            self._alive()
            return done.exists()

        wait_until(finished, timeout, f"the app to do {name!r}")
        time.sleep(0.5)  # the bridge publishes what changed
        return done.read_text(encoding="utf-8")

    def tree(self) -> dict[str, Any]:
        tree = read_tree(self.pid, self.env)
        assert "error" not in tree, tree
        return tree


@pytest.fixture
def stepped(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Any]:
    def start(*args: str) -> SteppedApp:
        control = tmp_path / "control"
        control.mkdir(exist_ok=True)
        log = tmp_path / "app.log"
        display = stack.enter_context(x_display((1280, 800)))
        env = stack.enter_context(accessibility_bus(display.env({"LOCALMIND_DATA_DIR": str(tmp_path / "data")})))
        out = open(log, "wb")  # noqa: SIM115 - closed with the stack
        stack.callback(out.close)
        proc = subprocess.Popen(
            [sys.executable, "-m", "tests.helpers.a11y_driver", str(control), *args],
            env=app_env(env),
            cwd=REPO,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        stack.callback(stop_process, proc)
        return SteppedApp(proc, control, env, log, display)

    with contextlib.ExitStack() as stack:
        yield start


def describe(nodes: list[dict[str, Any]]) -> list[str]:
    return [f"{n['role']} {n['id'] or n['path'][-160:]}" for n in nodes]


@pytest.mark.timeout(400)
def test_every_focusable_control_of_every_page_has_a_name(stepped: Any) -> None:
    app = stepped()
    unnamed: dict[str, list[str]] = {}
    for page in PAGES:
        app.step(page)
        tree = app.tree()
        assert len(tree["nodes"]) > 10, f"{page}: the AT-SPI tree is nearly empty: {tree['nodes']}"
        if tree["unnamed"]:
            unnamed[page] = describe(tree["unnamed"])
    assert unnamed == {}, "\n".join(f"{page}: {node}" for page, nodes in unnamed.items() for node in nodes)


@pytest.mark.timeout(300)
def test_a_planted_unnamed_button_is_caught(stepped: Any) -> None:
    app = stepped("--plant-unnamed")
    app.step("main")
    unnamed = app.tree()["unnamed"]
    assert any(n["role"] == "push button" for n in unnamed), describe(unnamed)


def stored_answers(data: Path) -> list[str]:
    db = sqlite3.connect(f"file:{data / 'conversations.sqlite3'}?mode=ro", uri=True, timeout=5)
    try:
        return [r[0] for r in db.execute("SELECT content FROM messages WHERE role = 'assistant' ORDER BY rowid")]
    finally:
        db.close()


@pytest.mark.timeout(400)
def test_a_finished_answer_is_announced_where_screen_readers_look(stepped: Any, tiny_model: Path) -> None:
    """The conversation view announces the end of a streamed answer with its beginning (QAccessibleAnnouncementEvent)
    and keeps the words as its accessible description, which the AT-SPI tree shows."""
    app = stepped("--model", str(tiny_model))
    app.step("main")
    assert not [n for n in app.tree()["nodes"] if n["description"].startswith("Answer finished")]
    app.step("chat", timeout=180)
    announced = [n for n in app.tree()["nodes"] if n["description"].startswith("Answer finished")]
    assert len(announced) == 1, announced
    answers = stored_answers(app.control.parent / "data")
    assert answers, "no answer was stored"
    said = announced[0]["description"].removeprefix("Answer finished: ")
    assert said.rstrip("…")[:40] == " ".join(answers[-1].split())[:40]


@pytest.mark.timeout(400)
def test_settings_works_from_the_keyboard_alone(stepped: Any) -> None:
    """Real Tab key presses (xdotool) move the focus through every control of Settings' first tab, each named where
    a screen reader reads it; Escape closes the dialog."""
    app = stepped()
    app.step("settings-chat")
    wanted = {
        "Instructions for the assistant",
        "Precise",
        "Balanced",
        "Creative",
        "Longest answer",
        "Advanced",
        "Reset to defaults",
        "Use for new chats",
        "OK",
        "Cancel",
        "This chat",  # the tab bar: arrows switch tabs
    }
    visited: list[str] = []
    for _ in range(len(wanted) + 6):
        app.x.key("Tab")
        time.sleep(0.3)
        focused = [n for n in app.tree()["nodes"] if n["focused"] and n["focusable"]]  # (a text box's viewport too)
        # Qt marks the current page tab focused whatever has the keyboard, and a widget whose focus proxy has it.
        focused = [n for n in focused if n["role"] != "page tab"] or focused
        assert focused, "after Tab nothing has the focus"
        node = max(focused, key=lambda n: len(n["path"]))  # the innermost: the control itself
        assert node["name"], f"an unnamed control has the focus: {node}"
        visited.append(node["name"])
    assert wanted <= set(visited), f"Tab never reached {sorted(wanted - set(visited))}; it went {visited}"
    app.x.key("Escape")
    time.sleep(0.5)
    assert not [n for n in app.tree()["nodes"] if n["role"] == "dialog"]
