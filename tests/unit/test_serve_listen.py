"""``localmind serve`` where it cannot listen: said at once, in one line, before any "LocalMind API: …" announcement.

The socket is bound right after the engine child starts, before the model has loaded: a port in use used to be found
by uvicorn only after the load (seconds on a real model), after a line that announced the server as running.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.server.serving import free_port


def serve(model: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "localmind", "serve", "--model", str(model), *args],
        capture_output=True, text=True, timeout=120, check=False, env={**os.environ, **(env or {})},
    )  # fmt: skip


def test_a_port_in_use_is_said_at_once_and_nothing_is_announced(tiny_model: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        proc = serve(tiny_model, "--port", str(port))
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines() == [
        f"localmind: Port {port} is in use on 127.0.0.1 (another LocalMind server, or another program). "
        "Pick another with --port, or stop the program using it."
    ]


@pytest.mark.parametrize("port", ["0", "65536", "80000", "-1", "http"])
def test_a_port_that_is_not_one_is_refused_by_the_arguments(tiny_model: Path, port: str) -> None:
    proc = serve(tiny_model, f"--port={port}")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert f"argument --port: '{port}' is not a port: use a number from 1 to 65535" in proc.stderr


def test_a_bad_port_in_the_environment_is_named(tiny_model: Path) -> None:
    proc = serve(tiny_model, env={"PORT": "eighty"})
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "$PORT is 'eighty', not a port." in proc.stderr


@pytest.mark.parametrize("host", ["no-such-host.invalid", "192.0.2.1"])
def test_an_address_that_is_not_this_computers_is_named(tiny_model: Path, host: str) -> None:
    proc = serve(tiny_model, "--host", host, "--port", str(free_port()), "--api-key", "k")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr and "LocalMind API:" not in proc.stderr
    assert f"Cannot listen on {host}: it is not an address of this computer." in proc.stderr
