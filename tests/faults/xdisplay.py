"""A minimal X display for the fault suite's end-to-end tests: Xvfb + openbox, windows found and typed into with xdotool.

The shared harness (tests/helpers/xwindow.py) was not on main when these tests were written; this one does only
what they need. Tests using it skip where the tools are missing.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

TOOLS = ("Xvfb", "openbox", "xdotool", "import")


def available() -> bool:
    return all(shutil.which(t) for t in TOOLS)


class Display:
    def __init__(self, number: int) -> None:
        self.name = f":{number}"
        self.env = {**os.environ, "DISPLAY": self.name}
        self.env.pop("QT_QPA_PLATFORM", None)
        self.env.pop("WAYLAND_DISPLAY", None)

    def run(self, *args: str, timeout: float = 60) -> str:
        """A tool's output; "" if it does not answer in time (a loaded machine): callers check what matters."""
        try:
            return subprocess.run(args, env=self.env, capture_output=True, text=True, timeout=timeout).stdout
        except subprocess.TimeoutExpired:
            return ""

    def windows(self, name: str) -> list[str]:
        return self.run("xdotool", "search", "--onlyvisible", "--name", name).split()

    def wait_window(self, name: str, timeout_s: float = 90, gone: bool = False) -> str:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            found = self.windows(name)
            if found and not gone:
                time.sleep(0.6)  # let it paint
                return found[-1]
            if gone and not found:
                return ""
            time.sleep(0.2)
        raise TimeoutError(f"no window {name!r} {'gone' if gone else 'shown'} within {timeout_s} s")

    def title(self, window: str) -> str:
        return self.run("xdotool", "getwindowname", window).strip()

    def key(self, window: str, *keys: str) -> None:
        self.run("xdotool", "windowactivate", "--sync", window)
        time.sleep(0.2)
        self.run("xdotool", "key", "--clearmodifiers", *keys)

    def type(self, window: str, text: str) -> None:
        self.run("xdotool", "windowactivate", "--sync", window)
        time.sleep(0.2)
        self.run("xdotool", "type", "--delay", "40", text)

    def screenshot(self, window: str, path: Path) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.run("import", "-window", window, str(path))
        return path


def _free_number() -> int:
    for number in range(400, 600):  # away from the shared harness's range, so parallel runs do not collide
        if not Path(f"/tmp/.X{number}-lock").exists() and not Path(f"/tmp/.X11-unix/X{number}").exists():
            return number
    raise RuntimeError("no free X display number between :400 and :599")


@contextlib.contextmanager
def display() -> Iterator[Display]:
    """Xvfb on a free display with openbox; both ended afterwards."""
    number = _free_number()
    xvfb = subprocess.Popen(
        ["Xvfb", f":{number}", "-screen", "0", "1280x860x24", "-nolisten", "tcp"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    d = Display(number)
    wm: subprocess.Popen[bytes] | None = None
    try:
        deadline = time.monotonic() + 10
        while not Path(f"/tmp/.X11-unix/X{number}").exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        wm = subprocess.Popen(["openbox"], env=d.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(0.5)
        yield d
    finally:
        for process in (wm, xvfb):
            if process is not None:
                process.terminate()
                with contextlib.suppress(subprocess.TimeoutExpired):
                    process.wait(5)
