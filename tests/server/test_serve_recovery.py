"""``localmind serve`` after its engine child dies while the model's files are gone (issue 21).

Before: the reload into the fresh child failed once and nothing ever reloaded — every request answered 500 "No
model is loaded" even after the files were back, while /health said ok; and the crash was logged as a cancel.
Now the reload is tried again with a growing pause, /health answers 503 with the reason meanwhile, the server
answers again by itself once the files are back, and the log says the turn failed.
"""

from __future__ import annotations

import os
import shutil
import signal
import sys
import threading
import time
from pathlib import Path

import httpx2 as httpx
import pytest

from tests.server.serving import start_server

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="finds the engine child through /proc")

CHAT = {"model": "tiny", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 4, "temperature": 0}


def engine_child(pid: int) -> int:
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    assert children, "the server has no engine child"
    return int(children[-1])


def wait_for(condition: object, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.1)


def test_a_model_missing_at_the_restart_is_reloaded_once_it_is_back(tiny_model: Path, tmp_path: Path) -> None:
    model = tmp_path / "tiny"  # the id requests name (CHAT)
    shutil.copytree(tiny_model, model)
    server = start_server(model, tmp_path, env={"LOCALMIND_DATA_DIR": str(tmp_path / "data")})
    try:
        assert httpx.post(server.v1 + "/chat/completions", json=CHAT, timeout=60).status_code == 200
        weights = model / "model.onnx"
        weights.rename(tmp_path / "away.onnx")  # the files are gone when the child has to reload
        os.kill(engine_child(server.proc.pid), signal.SIGKILL)
        time.sleep(0.5)

        refused = httpx.post(server.v1 + "/chat/completions", json=CHAT, timeout=60)
        assert refused.status_code in (500, 503)
        health = httpx.get(server.url + "/health", timeout=10)
        assert health.status_code == 503, health.text
        assert health.json()["status"] == "unavailable" and "not loaded" in health.json()["reason"]

        (tmp_path / "away.onnx").rename(weights)  # back: no request needed for the server to recover
        wait_for(lambda: httpx.get(server.url + "/health", timeout=10).status_code == 200, timeout=30)
        answered = httpx.post(server.v1 + "/chat/completions", json=CHAT, timeout=60)
        assert answered.status_code == 200, answered.text
    finally:
        server.stop()


def test_an_engine_crash_during_a_request_is_logged_as_a_failure_not_a_cancel(slow_model: Path, tmp_path: Path) -> None:
    server = start_server(slow_model, tmp_path, env={"LOCALMIND_DATA_DIR": str(tmp_path / "data")})
    try:
        body = {**CHAT, "model": slow_model.name, "max_tokens": 2000, "stream": True}
        pieces: list[str] = []

        def ask() -> None:
            with httpx.stream("POST", server.v1 + "/chat/completions", json=body, timeout=60) as r:
                for line in r.iter_lines():
                    pieces.append(line)

        thread = threading.Thread(target=ask)
        thread.start()
        wait_for(lambda: any(p.startswith("data: {") for p in pieces), timeout=30)  # the reply is streaming
        os.kill(engine_child(server.proc.pid), signal.SIGKILL)
        thread.join(60)
        line = server.wait_for_log('"POST /v1/chat/completions"', timeout=10).splitlines()[-1]
        assert "failed: The engine stopped unexpectedly" in line, line
        assert "cancelled" not in line, line
    finally:
        server.stop()
