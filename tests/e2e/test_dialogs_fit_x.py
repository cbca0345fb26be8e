"""Issue 21: every dialog fits the screen — 1024×600, and 1366×768 at 150 % — with its buttons on screen.

Settings was 640 px tall at 1024×600 and 960 px at 150 % on 1366×768: OK and Cancel were below the screen's edge.
The real app opens each of its dialogs on Xvfb with openbox (tests/helpers/dialog_fit.py); the X server says where
the window manager put each one, and every button must lie inside the screen — those of the button row without
scrolling, the others once scrolled into view. Screenshots: build/screenshots/dialogs-<case>/<dialog>.png.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.xwindow import REPO, x_display

pytestmark = [pytest.mark.gui, pytest.mark.slow]

EXPECTED = {
    "settings-chat",
    "settings-chat-advanced",
    "settings-app",
    "settings-server",
    "store-problem",
    "restore-backup",
    "crash",
    "source-passage",
    "import-question",
    "model-question",
    "model-token",
    "file-dialog",
}

CASES = {  # size, environment, theme
    "1024x600-dark": ((1024, 600), {}, "dark"),
    "1366x768-150": ((1366, 768), {"QT_SCALE_FACTOR": "1.5"}, "light"),
}


def run_dialogs(size: tuple[int, int], env: dict[str, str], out: Path, data: Path, theme: str = "light") -> list[Any]:
    with x_display(size) as x:
        extra = {"LOCALMIND_DATA_DIR": str(data), "QT_ACCESSIBILITY": "0", **env}
        result = subprocess.run(
            [sys.executable, "-m", "tests.helpers.dialog_fit", str(out), "--theme", theme],
            env=x.env(extra),
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=240,
        )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return list(json.loads((out / "report.json").read_text(encoding="utf-8")))


def inside(rect: list[int], area: list[int]) -> bool:
    x, y, w, h = rect
    ax, ay, aw, ah = area
    return x >= ax and y >= ay and x + w <= ax + aw and y + h <= ay + ah


@pytest.mark.timeout(300)
@pytest.mark.parametrize("case", sorted(CASES))
def test_every_dialog_and_every_button_is_on_screen(case: str, tmp_path: Path) -> None:
    size, env, look = CASES[case]
    out = REPO / "build" / "screenshots" / f"dialogs-{case}"
    entries = run_dialogs(size, env, out, tmp_path / "data", look)
    assert {e["name"] for e in entries} == EXPECTED
    problems = []
    for entry in entries:
        ratio = float(entry["ratio"])
        client = entry["x_client"]  # device pixels, as the X server placed the window
        screen_px = [0, 0, size[0], size[1]]
        real = [client["x"], client["y"], client["width"], client["height"]]
        if not inside(real, screen_px):
            problems.append(f"{entry['name']}: the window {real} is not inside the screen {screen_px}")
        screen = entry["screen"]  # logical pixels, as the buttons' rectangles
        assert entry["buttons"], f"{entry['name']}: no buttons found"
        for button in entry["buttons"]:
            if not inside(button["rect"], screen):
                problems.append(f"{entry['name']}: button {button['text']!r} at {button['rect']} is off the screen")
        row = [b for b in entry["buttons"] if b["button_row"]]
        assert row, f"{entry['name']}: no button row"
        assert ratio == pytest.approx(1.5 if env else 1.0)
        if look == "dark" and not entry["name"].startswith(("file-", "model-", "import-")):
            problems += light_lines(entry, Path(entry["screenshot"]))
    assert problems == []


def light_lines(entry: dict[str, Any], screenshot: Path) -> list[str]:
    """Issue 21: "a light line under dialogs in dark". The bottom rows of our dialogs' client area stay dark (the
    window manager's frame below it is openbox's, drawn outside the client area)."""
    from PySide6.QtGui import QImage

    image = QImage(str(screenshot))
    client = entry["x_client"]
    bottom = client["y"] + client["height"] - 1
    found = []
    for y in range(bottom - 2, bottom + 1):
        light = [
            x
            for x in range(client["x"] + 4, client["x"] + client["width"] - 4, 8)
            if image.pixelColor(x, y).lightness() > 120
        ]
        if light:
            found.append(f"{entry['name']}: a light line at y={y} of its client area (x={light[:3]}…)")
    return found
