"""A session bus and the AT-SPI accessibility bus for an app on Xvfb, and the AT-SPI tree as a screen reader reads it.

Screen readers on Linux (Orca) do not see Qt's objects: they see what Qt's AT-SPI bridge publishes on the
accessibility bus. :func:`accessibility_bus` starts a private D-Bus session bus and ``at-spi-bus-launcher`` on it
(at-spi2-core); an app started with :func:`app_env` publishes its tree there; :func:`read_tree` reads it with
Debian's pyatspi (python3-pyatspi) in /usr/bin/python3, as tests/helpers/atspi_walk.py describes.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

WALKER = Path(__file__).with_name("atspi_walk.py")
SYSTEM_PYTHON = "/usr/bin/python3"
LAUNCHER = "/usr/libexec/at-spi-bus-launcher"


def require_atspi() -> None:
    """Skip where the platform has no AT-SPI (not Linux); fail with the fix where it could but a part is missing."""
    if not sys.platform.startswith("linux"):
        pytest.skip(f"AT-SPI is Linux's accessibility bus; not available on {sys.platform}")
    missing = [p for p in (LAUNCHER, SYSTEM_PYTHON) if not Path(p).exists()]
    if shutil.which("dbus-daemon") is None:
        missing.append("dbus-daemon")
    if not missing:
        probe = subprocess.run([SYSTEM_PYTHON, "-c", "import pyatspi"], capture_output=True, timeout=30)
        if probe.returncode != 0:
            missing.append("pyatspi for /usr/bin/python3")
    if missing:
        pytest.fail(
            f"missing {', '.join(missing)}: run scripts/system-deps.sh test "
            "(installs at-spi2-core python3-pyatspi dbus-x11)"
        )


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=5)


@contextlib.contextmanager
def accessibility_bus(display_env: dict[str, str]) -> Iterator[dict[str, str]]:
    """A private session bus with the AT-SPI bus launcher on it; yields the environment for apps and readers."""
    require_atspi()
    env = dict(display_env)
    read_end, write_end = os.pipe()
    bus = subprocess.Popen(
        ["dbus-daemon", "--session", "--nofork", f"--print-address={write_end}"],
        env=env,
        pass_fds=(write_end,),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    os.close(write_end)
    procs = [bus]
    try:
        address = b""
        deadline = time.monotonic() + 20
        while not address.endswith(b"\n"):
            if time.monotonic() > deadline or bus.poll() is not None:
                raise RuntimeError(f"dbus-daemon did not start (rc {bus.poll()})")
            chunk = os.read(read_end, 256)
            if not chunk:
                raise RuntimeError("dbus-daemon did not report its address")
            address += chunk
        env["DBUS_SESSION_BUS_ADDRESS"] = address.decode().strip()
        env.pop("NO_AT_BRIDGE", None)
        launcher = subprocess.Popen(
            [LAUNCHER, "--launch-immediately"],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        procs.append(launcher)
        _wait_for_bus(env)
        yield env
    finally:
        os.close(read_end)
        for proc in reversed(procs):
            _stop(proc)


def _wait_for_bus(env: dict[str, str]) -> None:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        out = subprocess.run(
            [
                "dbus-send",
                "--session",
                "--print-reply",
                "--dest=org.a11y.Bus",
                "/org/a11y/bus",
                "org.a11y.Bus.GetAddress",
            ],
            env=env,
            capture_output=True,
            text=True,
            timeout=10,
        )
        if out.returncode == 0 and "unix:" in out.stdout:
            return
        time.sleep(0.2)
    raise RuntimeError("the AT-SPI bus did not start")


def app_env(env: dict[str, str]) -> dict[str, str]:
    """Qt publishes its tree only when a screen reader is said to be running: say so."""
    return {**env, "QT_LINUX_ACCESSIBILITY_ALWAYS_ON": "1", "QT_ACCESSIBILITY": "1"}


def read_tree(pid: int, env: dict[str, str], timeout: float = 60) -> dict[str, Any]:
    """The app's AT-SPI tree (showing nodes) and its unnamed focusable controls, from tests/helpers/atspi_walk.py."""
    clean = {k: v for k, v in env.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    result = subprocess.run(
        [SYSTEM_PYTHON, str(WALKER), str(pid)], env=clean, capture_output=True, text=True, timeout=timeout
    )
    if result.returncode not in (0, 2):
        raise AssertionError(f"the AT-SPI walk failed (rc {result.returncode}): {result.stderr[-3000:]}")
    data: dict[str, Any] = json.loads(result.stdout)
    return data
