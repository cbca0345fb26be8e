"""``localmind serve``'s cold start (issue 12): what a scale-to-zero host pays at every wake-up.

The engine child starts first (forked before the server imports its web framework, where that is safe), the server
answers /health only once the model is loaded, and the first request does not wait for the whole context's KV buffer
(reserved after that turn, keeping what the cache holds). No timings here: bench/coldstart.py measures them; these
tests pin the order and the behaviour the figures rest on, through the start-up trace switch
(localmind/startup_trace.py) of a real ``localmind serve``.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx2 as httpx
import openai
import pytest

from localmind.engine.process import can_fork
from localmind.startup_trace import ENV_ENABLE, ENV_LOAD_GATE, ENV_TRACE
from tests.helpers.processes import end
from tests.helpers.tiny_model import REPLIES
from tests.server.serving import free_port

REPO = Path(__file__).resolve().parents[2]


def _hooks_env(**extra: str) -> dict[str, str]:
    return {**os.environ, ENV_ENABLE: "1", ENV_TRACE: "1", "PYTHONPATH": str(REPO / "src"), **extra}


def _trace(path: Path) -> list[list[str]]:
    """The trace lines written so far: [step, time, pid, detail...] (the log also holds the server's own lines)."""
    steps = ("serve-", "engine-")
    return [line.split() for line in path.read_text(errors="replace").splitlines() if line.startswith(steps)]


def _wait_for_step(path: Path, step: str, proc: subprocess.Popen[bytes], timeout: float = 120.0) -> list[str]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for line in _trace(path):
            if line[0] == step:
                return line
        assert proc.poll() is None, f"serve exited ({proc.returncode}):\n{path.read_text(errors='replace')}"
        time.sleep(0.02)
    raise AssertionError(f"no {step!r} in the trace:\n{path.read_text(errors='replace')}")


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie waiting for its reaper does not)."""
    try:
        return "State:\tZ" not in Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False


def _health(url: str) -> int | None:
    """/health's status, or None while nothing listens."""
    try:
        return httpx.get(url + "/health", timeout=5).status_code
    except httpx.TransportError:
        return None


@pytest.fixture
def gated_serve(tiny_model: Path, tmp_path: Path) -> Iterator[tuple[subprocess.Popen[bytes], str, Path, Path]]:
    """``localmind serve`` on the tiny model whose engine waits for a gate file before loading."""
    port, gate, log = free_port(), tmp_path / "gate", tmp_path / "serve.log"
    command = [sys.executable, "-m", "localmind", "--data-dir", str(tmp_path / "data"), "serve"]
    command += ["--model", str(tiny_model), "--port", str(port), "--threads", "1"]
    with log.open("wb") as out:
        proc = subprocess.Popen(
            command, stdout=out, stderr=subprocess.STDOUT, env=_hooks_env(**{ENV_LOAD_GATE: str(gate)})
        )
    try:
        yield proc, f"http://127.0.0.1:{port}", gate, log
    finally:
        end(proc)


def test_serve_starts_its_engine_before_the_web_framework_and_is_ready_only_when_loaded(
    gated_serve: tuple[subprocess.Popen[bytes], str, Path, Path], request: pytest.FixtureRequest
) -> None:
    proc, url, gate, log = gated_serve
    started = _wait_for_step(log, "serve-engine-started", proc)
    assert started[3] == "-"  # no fastapi/uvicorn/starlette/pydantic/anyio in the server yet
    loading = _wait_for_step(log, "engine-loading", proc)
    assert loading[2] != started[2]  # the engine's own process...
    assert loading[3] == "-"  # ...which has none of the web framework when it loads the model
    imported = _wait_for_step(log, "serve-framework-imported", proc)[3].split(",")
    # Plain Starlette, not FastAPI (whose import alone cost ~0.3 s of this cold start), and the bodies checked by
    # server/fields.py, not pydantic (~0.13 s with its model machinery): the list does see the rest.
    assert {"uvicorn", "starlette"} <= set(imported) and not {"fastapi", "pydantic"} & set(imported)
    # The server has all it needs but the model: nothing answers /health as ready while the load is held.
    for _ in range(10):
        assert _health(url) != 200
        time.sleep(0.05)
    assert not any(line[0] == "engine-loaded" for line in _trace(log))
    gate.touch()
    deadline = time.monotonic() + 120
    while _health(url) != 200:
        assert time.monotonic() < deadline and proc.poll() is None, log.read_text(errors="replace")
        time.sleep(0.02)
    steps = [line[0] for line in _trace(log)]
    assert steps.index("engine-loaded") < steps.index("serve-model-loaded")

    # The first request is answered (in a KV buffer of its own size); the context's buffer is reserved after it,
    # with the conversation in it: the next turn of the same chat reads only what is new.
    client = openai.OpenAI(base_url=url + "/v1", api_key="unused", max_retries=0)
    request.addfinalizer(client.close)  # its open connection would be left for the garbage collector to warn about
    model = client.models.list().data[0].id
    first = client.chat.completions.create(
        model=model, messages=[{"role": "user", "content": "hi"}], max_tokens=8, temperature=0
    )
    reply = first.choices[0].message.content or ""
    assert any(r.startswith(reply) for r in REPLIES) and reply
    _wait_for_step(log, "engine-reserved", proc)
    history = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": reply},
        {"role": "user", "content": "more"},
    ]
    second = client.chat.completions.create(model=model, messages=history, max_tokens=8, temperature=0)
    assert first.usage is not None and second.usage is not None and second.usage.prompt_tokens_details is not None
    assert second.usage.prompt_tokens_details.cached_tokens >= first.usage.prompt_tokens
    assert [line[0] for line in _trace(log)].count("engine-reserved") == 1  # once, after the first turn

    # Nor later: the API description and its page are built on their first request, still without either.
    assert httpx.get(url + "/openapi.json", timeout=30).json()["paths"]["/v1/chat/completions"]["post"]
    assert "/v1/chat/completions" in httpx.get(url + "/docs", timeout=30).text
    proc.send_signal(signal.SIGINT)  # Ctrl+C: serve shuts down and traces what it imported in all
    assert proc.wait(60) == 130
    stopped = next(line for line in _trace(log) if line[0] == "serve-stopped")[3].split(",")
    assert {"uvicorn", "starlette"} <= set(stopped) and not {"fastapi", "pydantic"} & set(stopped)


_FORK_SCRIPT = """
import json, os, sys
import starlette  # imported before the engine starts: a forked child has it, a spawned one does not
from localmind.engine.process import EngineProcess
from localmind.engine.types import LoadOptions
engine = EngineProcess(fork_first=True)
engine.start_load(sys.argv[1], LoadOptions(device="cpu", threads=1))
engine.wait_loaded()
first = engine.pid
if sys.argv[2] == "restart":
    os.kill(first, 9)
    engine._proc.join(10)
    engine.load(sys.argv[1], LoadOptions(device="cpu", threads=1))
    print("pids", first, engine.pid, flush=True)
    engine.close()
else:
    print("pids", first, flush=True)
    os._exit(0)  # no close, no atexit: the child must notice on its own that its parent is gone
"""


def _run_fork_script(tiny_model: Path, mode: str, out: Path, env: dict[str, str] | None = None) -> list[list[str]]:
    # stdout to a file, not a pipe: a child that outlived the script would hold a pipe open (and the test forever).
    err = out.with_suffix(".err")
    with out.open("w") as stdout, err.open("w") as stderr:
        done = subprocess.run(
            [sys.executable, "-c", _FORK_SCRIPT, str(tiny_model), mode],
            stdout=stdout,
            stderr=stderr,
            timeout=100,
            env=env or _hooks_env(),
            check=False,
        )
    assert done.returncode == 0, err.read_text()
    return [line.split() for line in out.read_text().splitlines()]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the engine child is forked on Linux only")
def test_the_first_engine_child_is_forked_and_a_restarted_one_spawned(tiny_model: Path, tmp_path: Path) -> None:
    lines = _run_fork_script(tiny_model, "restart", tmp_path / "out")
    loading = [line[3] for line in lines if line[0] == "engine-loading"]
    # The first child was forked (it has what its parent had imported); the restarted one is a fresh Python.
    assert len(loading) == 2 and "starlette" in loading[0] and loading[1] == "-"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the engine child is forked on Linux only")
def test_a_forked_engine_child_ends_when_its_parent_is_gone(tiny_model: Path, tmp_path: Path) -> None:
    lines = _run_fork_script(tiny_model, "orphan", tmp_path / "out")
    child = int(next(line for line in lines if line[0] == "pids")[1])
    deadline = time.monotonic() + 60  # an idle child sees the pipe close at once; room for a slow machine
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    alive = _alive(child)
    if alive:
        os.kill(child, signal.SIGKILL)
    assert not alive, "the engine child outlived its parent (it holds the parent's end of the pipe)"


def test_no_fork_once_a_thread_runs() -> None:
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        assert not can_fork()
    finally:
        stop.set()
        thread.join()
    if sys.platform.startswith("linux") and threading.active_count() == 1:
        assert can_fork()


def test_the_trace_needs_the_test_switch(tiny_model: Path, tmp_path: Path) -> None:
    """Without LOCALMIND_TEST_HOOKS=1 nothing is traced (a user's serve prints nothing of it)."""
    env = {k: v for k, v in _hooks_env().items() if k != ENV_ENABLE}
    lines = _run_fork_script(tiny_model, "orphan", tmp_path / "out", env)
    assert [line[0] for line in lines] == ["pids"]


def test_ctrl_c_ends_serve_and_its_engine_without_a_traceback(tiny_model: Path, tmp_path: Path) -> None:
    """Ctrl+C in a terminal signals the whole process group: the server shuts down, the engine goes with it."""
    port, log = free_port(), tmp_path / "serve.log"
    command = [sys.executable, "-m", "localmind", "--data-dir", str(tmp_path / "data"), "serve"]
    command += ["--model", str(tiny_model), "--port", str(port), "--threads", "1"]
    with log.open("wb") as out:
        proc = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=_hooks_env(), start_new_session=True)
    try:
        engine = int(_wait_for_step(log, "engine-loading", proc)[2])
        deadline = time.monotonic() + 120
        while _health(f"http://127.0.0.1:{port}") != 200:
            assert time.monotonic() < deadline and proc.poll() is None, log.read_text(errors="replace")
            time.sleep(0.02)
        os.killpg(proc.pid, signal.SIGINT)
        assert proc.wait(60) == 130
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(5)
    deadline = time.monotonic() + 30
    while _alive(engine):
        assert time.monotonic() < deadline, "the engine outlived the server"
        time.sleep(0.05)
    assert "Traceback" not in log.read_text(errors="replace")


def test_a_frozen_or_installed_app_ignores_the_start_up_switches(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from localmind import startup_trace

    monkeypatch.setenv(ENV_ENABLE, "1")
    monkeypatch.setenv(ENV_TRACE, "1")
    assert startup_trace.active() and startup_trace.tracing()  # the suite runs from the checkout
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    assert not startup_trace.active() and not startup_trace.tracing()
    monkeypatch.delattr(sys, "frozen")
    site = tmp_path / "lib" / "python3.11" / "site-packages" / "localmind"
    site.mkdir(parents=True)
    assert not startup_trace.is_checkout_package(site)
    monkeypatch.delenv(ENV_ENABLE)
    assert not startup_trace.tracing()
