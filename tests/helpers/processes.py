"""Freezing and checking on processes the tests started (POSIX signals)."""

from __future__ import annotations

import os
import signal
import subprocess
from typing import Any


def freeze(pid: int | None) -> int:
    """SIGSTOP ``pid`` (a hung process as far as anyone can tell) and return it."""
    assert pid is not None
    os.kill(pid, signal.SIGSTOP)
    return pid


def gone(pid: int) -> bool:
    """True once no process has this id any more."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def end(proc: subprocess.Popen[Any], grace: float = 15.0) -> None:
    """SIGTERM ``proc`` and wait for it; SIGKILL it if it has not ended within ``grace`` seconds."""
    proc.terminate()
    try:
        proc.wait(grace)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(5)
