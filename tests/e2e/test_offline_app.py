"""Offline, for real: the app as `localmind --model DIR` starts (window offscreen, engine child process), loads the
model and answers, and neither process opens a network connection or even resolves a name — without HF_HUB_OFFLINE.

Every Python process the app starts gets a guard (a ``sitecustomize`` on PYTHONPATH, which the engine child
inherits) that refuses and records any internet-family connect and any name lookup.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from tests.e2e.test_kill_durability import app_env
from tests.helpers.app_hooks import ENV_AUTOCHAT, ENV_TRACE, app_command

REPO = Path(__file__).resolve().parents[2]

GUARD = """
import os, socket, sys

_log = os.environ["LOCALMIND_TEST_NETLOG"]


def _note(line):
    with open(_log, "a", encoding="utf-8") as f:
        f.write(line + "\\n")


_note("process %d %s" % (os.getpid(), " ".join(sys.argv)[:200]))
_connect, _connect_ex = socket.socket.connect, socket.socket.connect_ex


def _guard(original):
    def guarded(self, address, *args):
        if self.family in (socket.AF_INET, socket.AF_INET6):
            _note("connect %r" % (address,))
            raise OSError("offline test: network connect refused")
        return original(self, address, *args)
    return guarded


def _resolve(*args, **kwargs):
    _note("resolve %r" % (args[:1],))
    raise socket.gaierror("offline test: name lookup refused")


socket.socket.connect = _guard(_connect)
socket.socket.connect_ex = _guard(_connect_ex)
socket.getaddrinfo = _resolve
socket.gethostbyname = _resolve
"""


@pytest.mark.slow
def test_the_window_and_the_engine_child_stay_offline(tmp_path: Path, tiny_model: Path) -> None:
    guard_dir = tmp_path / "guard"
    guard_dir.mkdir()
    (guard_dir / "sitecustomize.py").write_text(GUARD, encoding="utf-8")
    netlog = tmp_path / "net.log"
    env = app_env(**{ENV_AUTOCHAT: "hello", ENV_TRACE: "1"})
    for name in ("HF_HUB_OFFLINE", "HF_HUB_DISABLE_TELEMETRY", "ORT_DISABLE_TELEMETRY"):
        env.pop(name, None)  # offline by design, not because a test switched the libraries off
    env["PYTHONPATH"] = os.pathsep.join([str(guard_dir), env["PYTHONPATH"]])
    env["LOCALMIND_TEST_NETLOG"] = str(netlog)
    data = tmp_path / "data"
    proc = subprocess.Popen(
        [*app_command(env), "--data-dir", str(data), "--model", str(tiny_model)],
        env=env,
        stdout=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
    )
    lines: list[str] = []
    try:
        assert proc.stdout is not None
        deadline = time.monotonic() + 60
        for line in proc.stdout:
            lines.append(line.strip())
            if line.startswith("finished") or time.monotonic() > deadline:
                break
    finally:
        proc.terminate()  # SIGTERM closes the window properly (on Windows: ended)
        proc.wait(30)
        assert proc.stdout is not None
        proc.stdout.close()
    kinds = [line.split()[0] for line in lines if line]
    assert "loaded" in kinds and "finished" in kinds, lines  # the model loaded and a reply came back
    log = netlog.read_text(encoding="utf-8").splitlines()
    processes = [line for line in log if line.startswith("process ")]
    assert len(processes) >= 2, log  # the app and its engine child (multiprocessing spawn) were both guarded
    assert any("multiprocessing" in line for line in processes), processes
    attempts = [line for line in log if not line.startswith("process ")]
    assert attempts == []
