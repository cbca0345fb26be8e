"""Start ``localmind serve`` as a user would (a real subprocess on 127.0.0.1) and wait until it answers."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import httpx2 as httpx

from tests.helpers.processes import end


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Server:
    url: str  # http://127.0.0.1:PORT
    proc: subprocess.Popen[bytes]
    log_path: Path

    @property
    def v1(self) -> str:
        return self.url + "/v1"

    def log(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def wait_for_log(self, needle: str, timeout: float = 10.0) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            text = self.log()
            if needle in text:
                return text
            time.sleep(0.05)
        raise AssertionError(f"{needle!r} not in the server log:\n{self.log()}")

    def stop(self) -> None:
        if self.proc.poll() is None:
            end(self.proc)


def start_server(
    model: Path | str,
    log_dir: Path,
    *args: str,
    env: dict[str, str] | None = None,
    python_flags: tuple[str, ...] = (),
    preexec_fn: Callable[[], None] | None = None,
) -> Server:
    port = free_port()
    log_path = log_dir / f"serve-{port}.log"
    full_env = {**os.environ, **(env or {})}
    command = [
        sys.executable,
        *python_flags,
        "-m",
        "localmind",
        "serve",
        "--model",
        str(model),
        "--port",
        str(port),
        "--threads",
        "1",
        *args,
    ]
    with log_path.open("wb") as log:
        proc = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=full_env, preexec_fn=preexec_fn)
    server = Server(f"http://127.0.0.1:{port}", proc, log_path)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"localmind serve exited with {proc.returncode}:\n{server.log()}")
        try:
            if httpx.get(server.url + "/health", timeout=1).status_code == 200:
                return server
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    server.stop()
    raise AssertionError(f"localmind serve did not answer within 60 s:\n{server.log()}")
