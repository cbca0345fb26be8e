"""Drive the real app like a person: Xvfb + openbox, the real ``localmind`` process, real X key events.

qtbot sends events straight to a widget; it cannot see what happens between the X server and Qt (focus, window
activation, the input method, which widget gets the first key). This harness can::

    with XDisplay() as x:                                   # Xvfb + openbox on a free display
        app = x.start_app(data_dir, model)                  # `localmind --data-dir D --model M` on that display
        app.wait_model_loaded()
        app.activate()                                      # like clicking the window
        x.type("abc def ghi"); x.key("Return")              # real X key events (xdotool)
        app.wait_until(lambda: app.messages())              # what the app stored (its SQLite database)
        x.screenshot(path)                                  # ImageMagick `import -window root`

Everything started here is killed when the ``with`` block ends, also when a test fails. The tools come from
``scripts/system-deps.sh test``; :func:`require_x` skips only where the platform cannot run X (not Linux) and fails
with the install command where it could but the tools are missing.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

import pytest

TOOLS = ("Xvfb", "openbox", "xdotool", "xwininfo", "xprop", "import")
REPO = Path(__file__).resolve().parents[2]


def missing_tools() -> list[str]:
    return [tool for tool in TOOLS if shutil.which(tool) is None]


def require_x() -> None:
    """Skip where X cannot run at all; fail (with the fix) where it could but a tool is missing."""
    if not sys.platform.startswith("linux"):
        pytest.skip(f"needs an X server (Xvfb) and xdotool; not available on {sys.platform}")
    missing = missing_tools()
    if missing:
        pytest.fail(
            f"missing {', '.join(missing)}: run scripts/system-deps.sh test (installs xvfb openbox xdotool imagemagick)"
        )


def wait_until(condition: Callable[[], Any], timeout: float = 20.0, what: str = "condition", poll: float = 0.05) -> Any:
    """Poll ``condition`` until it returns something truthy; return that, or fail naming ``what``."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(poll)


def _stop(proc: subprocess.Popen[bytes], grace: float = 5.0) -> None:
    """End a process we started (its whole process group: the app's engine child goes with it)."""
    if proc.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)


class XDisplay:
    """Xvfb with the openbox window manager on a free display; starts apps and types into them.

    Args:
        size: the screen's width and height in pixels.
        dpi: the screen's dots per inch (144 = a 150 % scale for Qt apps that follow the DPI).
    """

    def __init__(self, size: tuple[int, int] = (1280, 800), dpi: int = 96) -> None:
        self.size = size
        self.dpi = dpi
        self.display = ""
        self._procs: list[subprocess.Popen[bytes]] = []
        self.apps: list[AppWindow] = []

    # -- lifetime ----------------------------------------------------------------------------------------------
    def __enter__(self) -> XDisplay:
        try:
            self._start()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def _spawn(self, argv: Sequence[str], env: dict[str, str] | None = None, **kwargs: Any) -> subprocess.Popen[bytes]:
        proc = subprocess.Popen(
            list(argv),
            env=env if env is not None else self.env(),
            stdin=subprocess.DEVNULL,
            start_new_session=True,  # its own process group: _stop ends it with everything it started
            **kwargs,
        )
        self._procs.append(proc)
        return proc

    def _start(self) -> None:
        # Xvfb picks a free display itself and tells us which (-displayfd): no race with other X servers starting
        # at the same time on this machine (a number that looked free could be taken before Xvfb claimed it).
        width, height = self.size
        read_end, write_end = os.pipe()
        screen = ["-screen", "0", f"{width}x{height}x24", "-dpi", str(self.dpi), "-nolisten", "tcp"]
        try:
            xvfb = self._spawn(
                ["Xvfb", "-displayfd", str(write_end), *screen],
                env=dict(os.environ),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                pass_fds=(write_end,),
            )
            os.close(write_end)
            write_end = -1
            number = b""
            deadline = time.monotonic() + 20
            while not number.endswith(b"\n"):
                if time.monotonic() > deadline or xvfb.poll() is not None:
                    raise RuntimeError(f"Xvfb did not start (rc {xvfb.poll()})")
                chunk = os.read(read_end, 16)
                if not chunk:
                    raise RuntimeError(f"Xvfb did not report its display (rc {xvfb.poll()})")
                number += chunk
        finally:
            os.close(read_end)
            if write_end >= 0:
                os.close(write_end)
        self.display = f":{int(number.strip())}"
        # openbox has been seen to exit at start (rc 1) on a loaded machine: tried up to three times, and what it
        # said is in the error when it keeps failing.
        for attempt in range(3):
            with tempfile.TemporaryFile() as said:
                wm = self._spawn(["openbox", "--sm-disable"], stdout=subprocess.DEVNULL, stderr=said)

                def wm_ready(wm: subprocess.Popen[bytes] = wm) -> bool:
                    if wm.poll() is not None:
                        return True
                    # openbox sets _NET_SUPPORTING_WM_CHECK on the root window once it manages the screen.
                    out = subprocess.run(
                        ["xprop", "-root", "_NET_SUPPORTING_WM_CHECK"], env=self.env(), capture_output=True, text=True
                    )
                    return "window id" in out.stdout

                wait_until(wm_ready, 10, "openbox to manage the screen")
                if wm.poll() is None:
                    return
                said.seek(0)
                message = said.read().decode(errors="replace").strip()
            if attempt == 2:
                raise RuntimeError(f"openbox exited (rc {wm.returncode}): {message}")
            time.sleep(0.5)

    def close(self) -> None:
        """Kill every app, the window manager and Xvfb (newest first). Safe to call twice."""
        for app in reversed(self.apps):
            app.close()
        for proc in reversed(self._procs):
            _stop(proc)
        self._procs.clear()

    # -- environment and apps ------------------------------------------------------------------------------------
    def env(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("LOCALMIND_", "QT_"))}
        env.update(DISPLAY=self.display, QT_QPA_PLATFORM="xcb", LANG="en_US.UTF-8", PYTHONUNBUFFERED="1")
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO / "src"), str(REPO), env.get("PYTHONPATH", "")) if p)
        env.update(extra or {})
        return env

    def start_app(
        self,
        data_dir: Path,
        model: Path | str | None = None,
        *,
        args: Sequence[str] = (),
        env: dict[str, str] | None = None,
    ) -> AppWindow:
        """Start ``localmind --data-dir DATA [--model MODEL] ARGS`` on this display and wait for its window (through
        the tests' entry point when ``env`` sets LOCALMIND_TEST_HOOKS=1: tests/helpers/app_hooks.py)."""
        from tests.helpers.app_hooks import app_command

        environment = self.env(env)
        argv = [*app_command(environment), "--data-dir", str(data_dir)]
        if model is not None:
            argv += ["--model", str(model)]
        argv += list(args)
        log = data_dir.parent / f"{data_dir.name}-app-{len(self.apps)}.log"
        data_dir.mkdir(parents=True, exist_ok=True)
        with open(log, "wb") as out:
            proc = self._spawn(argv, env=environment, stdout=out, stderr=subprocess.STDOUT)
        app = AppWindow(self, proc, data_dir, log)
        self.apps.append(app)
        app.wait_window()
        return app

    # -- input ---------------------------------------------------------------------------------------------------
    def xdotool(self, *args: str, timeout: float = 30.0) -> str:
        result = subprocess.run(
            ["xdotool", *args], env=self.env(), capture_output=True, text=True, timeout=timeout, check=False
        )
        if result.returncode != 0 and "search" not in args[:1]:
            raise RuntimeError(f"xdotool {' '.join(args)} failed: {result.stderr.strip()}")
        return result.stdout

    def type(self, text: str, delay_ms: int = 40) -> None:
        """Type ``text`` with real X key events into the focused window. xdotool spends ``delay_ms`` on each key,
        half after its press and half after its release (measured: 20 keys at 100 ms take 1.0 s, not 2.0 s), so
        ``delay_ms=round(2000 / k)`` types ``k`` keys a second."""
        self.xdotool("type", "--delay", str(delay_ms), "--", text, timeout=30 + len(text) * delay_ms / 1000 * 2)

    def key(self, *keys: str, delay_ms: int = 40) -> None:
        """Press keys by X keysym name: ``key("Return")``, ``key("ctrl+q")``, ``key("Escape")``."""
        self.xdotool("key", "--delay", str(delay_ms), *keys)

    def click(self, x: int, y: int, button: int = 1) -> None:
        """Click at screen coordinates."""
        here = self.xdotool("getmouselocation", "--shell").split()
        if f"X={x}" not in here or f"Y={y}" not in here:  # --sync waits for a move: never ask for one in place
            self.xdotool("mousemove", "--sync", str(x), str(y))
        self.xdotool("click", str(button))

    def find_window(self, title: str, timeout: float = 90.0) -> str:
        """The newest visible window whose title matches ``title`` (xdotool's regular expression), once it shows."""

        def newest() -> str | None:
            found = self.xdotool("search", "--onlyvisible", "--name", title).split()
            return found[-1] if found else None

        window = str(wait_until(newest, timeout, f"a window titled {title!r}", poll=0.2))
        time.sleep(0.5)  # mapped is not yet painted: a screenshot taken at once can be blank
        return window

    def focus(self, window: str) -> None:
        """Raise and focus ``window`` through the window manager, as a click on it would."""
        self.xdotool("windowactivate", "--sync", window)
        wait_until(lambda: self.xdotool("getactivewindow").strip() == window, 10, "the window to be active")

    def screenshot(self, path: Path, window: str = "root") -> Path:
        """The whole screen (or one window) as a PNG (ImageMagick ``import -window``)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            ["import", "-display", self.display, "-window", window, str(path)],
            env=self.env(),
            check=True,
            capture_output=True,
            timeout=30,
        )
        return path


class AppWindow:
    """One ``localmind`` process on an :class:`XDisplay`: its window, its data folder, what it stored."""

    def __init__(self, x: XDisplay, proc: subprocess.Popen[bytes], data_dir: Path, log: Path) -> None:
        self.x = x
        self.proc = proc
        self.data_dir = data_dir
        self.log = log
        self.window = ""

    def output(self) -> str:
        """What the app printed (stdout and stderr) so far."""
        try:
            return self.log.read_text(errors="replace")
        except OSError:
            return ""

    def _alive(self) -> None:
        if self.proc.poll() is not None:
            raise AssertionError(f"localmind exited (rc {self.proc.returncode}):\n{self.output()[-4000:]}")

    def window_ids(self) -> list[str]:
        """This process's visible top-level windows (X window ids), as the window manager lists them."""
        self._alive()
        out = self.x.xdotool("search", "--onlyvisible", "--pid", str(self.proc.pid))
        return [line for line in out.split() if line.strip()]

    def wait_window(self, timeout: float = 40.0) -> str:
        """The app's main window: of its visible windows, the largest (a short-lived helper window can come first)."""

        def largest() -> str | None:
            sized = []
            for window in self.window_ids():
                self.window = window
                try:
                    geometry = self.geometry()
                except (subprocess.CalledProcessError, ValueError):
                    continue  # gone meanwhile
                sized.append((geometry.get("WIDTH", 0) * geometry.get("HEIGHT", 0), window))
            return max(sized)[1] if sized else None

        self.window = wait_until(largest, timeout, "the LocalMind window to appear")
        return self.window

    def activate(self) -> None:
        """Raise and focus the window through the window manager, as a click on it would."""
        try:
            self.x.xdotool("windowactivate", "--sync", self.window)
        except RuntimeError:
            # The window we found was replaced (X BadWindow): find the main window again, once.
            self.wait_window()
            self.x.xdotool("windowactivate", "--sync", self.window)
        wait_until(lambda: self.x.xdotool("getactivewindow").strip() == self.window, 10, "the window to be active")

    def geometry(self) -> dict[str, int]:
        """The window's client area on the screen: X, Y, WIDTH, HEIGHT in pixels (xwininfo's absolute position;
        xdotool's adds the window manager's frame offset twice)."""
        out = subprocess.run(
            ["xwininfo", "-id", self.window], env=self.x.env(), capture_output=True, text=True, check=True, timeout=10
        ).stdout
        keys = {"Absolute upper-left X": "X", "Absolute upper-left Y": "Y", "Width": "WIDTH", "Height": "HEIGHT"}
        found: dict[str, int] = {}
        for line in out.splitlines():
            name, _, value = line.strip().partition(":")
            if name in keys:
                found[keys[name]] = int(value)
        return found

    # -- what the app wrote --------------------------------------------------------------------------------------
    def settings(self) -> dict[str, Any]:
        try:
            return dict(json.loads((self.data_dir / "settings.json").read_text(encoding="utf-8")))
        except (OSError, ValueError):
            return {}

    def wait_model_loaded(self, model: Path | str, timeout: float = 60.0) -> None:
        """Wait until the app has loaded ``model`` (it records a loaded model as the last one used)."""

        def loaded() -> bool:
            self._alive()
            return Path(str(self.settings().get("last_model") or "/nonexistent")).resolve() == Path(model).resolve()

        wait_until(loaded, timeout, f"the model {model} to load")

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Read the app's SQLite store (read-only, while the app runs)."""
        path = self.data_dir / "conversations.sqlite3"
        if not path.exists():
            return []
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
        try:
            return list(db.execute(sql, tuple(params)))
        except sqlite3.OperationalError:
            return []  # the schema is not there yet
        finally:
            db.close()

    def messages(self, role: str | None = None) -> list[tuple[str, str, str]]:
        """(role, content, status) of every stored message, oldest first."""
        rows = self.query(
            "SELECT m.role, m.content, m.status FROM messages m JOIN conversations c ON c.id = m.conversation_id "
            "WHERE c.deleted_at IS NULL ORDER BY c.created_at, m.position"
        )
        return [tuple(r) for r in rows if role is None or r[0] == role]  # type: ignore[misc]

    def conversations(self) -> list[str]:
        """Titles of the stored conversations (not in the trash), oldest first."""
        return [
            r[0] for r in self.query("SELECT title FROM conversations WHERE deleted_at IS NULL ORDER BY created_at")
        ]

    def wait_until(self, condition: Callable[[], Any], timeout: float = 30.0, what: str = "condition") -> Any:
        def check() -> Any:
            self._alive()
            return condition()

        return wait_until(check, timeout, what)

    def close(self, timeout: float = 15.0) -> int | None:
        """Close the app as the window manager would (SIGTERM closes the window; the reply in progress is saved)."""
        _stop(self.proc, grace=timeout)
        return self.proc.returncode


@contextlib.contextmanager
def x_display(size: tuple[int, int] = (1280, 800), dpi: int = 96) -> Iterator[XDisplay]:
    """``with x_display() as x:`` after :func:`require_x` (skips where the platform has no X)."""
    require_x()
    with XDisplay(size, dpi) as x:
        yield x
