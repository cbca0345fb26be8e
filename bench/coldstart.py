"""Cold start: process start -> first token for ``localmind chat`` and ``localmind serve`` vs a bare og loop.

    python bench/coldstart.py --model bench/models/smollm2-135m [--model bench/models/qwen3-0.6b] [--tiny]
        [--runs 5] [--no-serve]

Per model, alternating the order every round (this machine is noisy), ``--runs`` times each:

* ``localmind chat --model M --prompt hi --max-new-tokens 1`` (what a script or a terminal user runs): wall time
  from spawning the process to the first byte it prints (the first token; the line ends right after it) and to its
  exit, and its peak RSS (``wait4``'s ru_maxrss).
* a bare og loop on the same model, as a developer would write it: og.Model(folder), og.Tokenizer, a Generator
  with max_length 256, append the encoded "hi", generate one token, print it (og's defaults otherwise).
* ``localmind serve --model M`` (what a scale-to-zero host pays at every wake-up): spawn -> first ``/health``
  200, and spawn -> the first streamed token of a ``/v1/chat/completions`` request sent as soon as ``/health``
  is ok; peak RSS of the server process and of its engine child (VmHWM, read while both run, once the engine has
  reserved the context's KV buffer after that first turn); and where the time went: ``at_<step>_s``, seconds from
  the spawn to each step of serve's start-up trace (``STEPS``; the test switch of localmind/startup_trace.py).

Prints JSON: medians, each run, and the goals (extra time over bare og <= 0.3 s; RSS <= the model as og holds it
(the bare loop's peak less its KV buffer) + LocalMind's KV buffer + 150 MB). ``bare_og_chat_prompt`` is the bare loop
reading the prompt LocalMind reads (the chat template around "hi", ~15 tokens): the difference to it is LocalMind's
own cost. ``--tiny`` adds the test suite's tiny model (built in a temporary folder). Check ``uptime`` first.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
# What users run: the `localmind` command installed beside this Python (it calls localmind.cli.main; `python -m
# localmind` also imports multiprocessing first, for the frozen app's sake); -m where there is none.
_COMMAND = Path(sys.executable).with_name("localmind")
LOCALMIND = [str(_COMMAND)] if _COMMAND.is_file() else [sys.executable, "-m", "localmind"]
BARE = (
    "import sys, onnxruntime_genai as og\n"
    "m = og.Model(sys.argv[1]); t = og.Tokenizer(m)\n"
    "p = og.GeneratorParams(m); p.set_search_options(max_length=256); g = og.Generator(m, p)\n"
    "g.append_tokens(t.encode('hi')); g.generate_next_token()\n"
    "sys.stdout.write(t.decode(g.get_next_tokens()) or '?'); sys.stdout.flush()\n"
)
# The same loop reading the prompt LocalMind reads for "hi": the model's chat template around it (~15 tokens, not 1).
BARE_CHAT = BARE.replace(
    "t.encode('hi')",
    't.encode(t.apply_chat_template(\'[{"role": "user", "content": "hi"}]\', template_str=('
    "open(sys.argv[1] + '/chat_template.jinja').read() if __import__('os').path.exists(sys.argv[1] + "
    "'/chat_template.jinja') else None), add_generation_prompt=True))",
)


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(SRC), "ORT_DISABLE_TELEMETRY": "1", "PYTHONUNBUFFERED": "1"}


def _run_to_first_byte(argv: list[str]) -> dict[str, Any]:
    """Spawn ``argv``; seconds to its first stdout byte and to its exit, and its peak RSS in MB."""
    started = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env())
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.read(1)
    first_at = time.perf_counter() - started
    out = proc.stdout.read()
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    exited = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0 or not first:
        raise RuntimeError(f"{argv[:4]} failed ({proc.returncode}): {(first + out).decode()} {err.decode()[-800:]}")
    return {
        "first_token_s": round(first_at, 3),
        "exit_s": round(exited, 3),
        "peak_rss_mb": round(usage.ru_maxrss / 1024, 1),  # Linux: kilobytes
    }


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _hwm_mb(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        return None
    return None


def _children(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        with contextlib.suppress(OSError):
            found += [int(c) for c in (task / "children").read_text().split()]
    return found


# Steps of serve's start-up trace (localmind/startup_trace.py), reported as seconds from spawning serve.
STEPS = (
    "serve-run",  # the server's Python started and parsed its arguments
    "serve-engine-started",  # the engine child forked (or spawned)
    "engine-loading",  # the child has imported what it needs and starts og's load
    "serve-framework-imported",  # the server has imported its web framework
    "engine-loaded",  # og's model and tokenizer are ready in the child
    "serve-model-loaded",  # the server knows: it starts listening
)


def _trace_steps(path: Path) -> dict[str, float]:
    steps: dict[str, float] = {}
    for line in path.read_text(errors="replace").splitlines():
        parts = line.split()
        if len(parts) >= 2 and (parts[0].startswith(("serve-", "engine-"))) and parts[0] not in steps:
            steps[parts[0]] = float(parts[1])
    return steps


def _serve_once(model: str, data: Path) -> dict[str, Any]:
    port = _free_port()
    argv = [*LOCALMIND, "--data-dir", str(data), "serve", "--model", model, "--port", str(port)]
    trace = data / f"serve-trace-{port}.txt"
    env = {**_env(), "LOCALMIND_TEST_HOOKS": "1", "LOCALMIND_TEST_TRACE": "1"}  # the start-up trace (stdout)
    with trace.open("wb") as out:
        wall0, started = time.time(), time.perf_counter()
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.PIPE, env=env)
    try:
        health_at = None
        while health_at is None:
            if proc.poll() is not None:
                raise RuntimeError(f"serve exited: {proc.stderr.read().decode()[-800:] if proc.stderr else ''}")
            try:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
                conn.request("GET", "/health")
                if conn.getresponse().status == 200:
                    health_at = time.perf_counter() - started
                conn.close()
            except OSError:
                time.sleep(0.01)
        body = json.dumps(
            {
                "model": Path(model).resolve().name,
                "messages": [{"role": "user", "content": "hi"}],
                "max_tokens": 1,
                "stream": True,
                "temperature": 0,
            }
        )
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
        conn.request("POST", "/v1/chat/completions", body=body, headers={"Content-Type": "application/json"})
        response = conn.getresponse()
        first_at = None
        while first_at is None:
            line = response.readline()
            if not line:
                raise RuntimeError(f"the stream ended before a token ({response.status})")
            if line.startswith(b"data: ") and b'"content"' in line:
                first_at = time.perf_counter() - started
        response.read()
        conn.close()
        # The engine reserves the context's KV buffer after the first turn: its peak RSS is read once it has.
        deadline = time.monotonic() + 60
        while "engine-reserved" not in _trace_steps(trace) and time.monotonic() < deadline:
            time.sleep(0.02)
        engines = _children(proc.pid)
        steps = _trace_steps(trace)
        return {
            "health_ok_s": round(health_at, 3),
            "first_token_s": round(first_at, 3),
            "server_peak_rss_mb": _hwm_mb(proc.pid),
            "engine_peak_rss_mb": max((_hwm_mb(p) or 0.0 for p in engines), default=None),
            "engine_reserved_kv": "engine-reserved" in steps,
        } | {f"at_{step.replace('-', '_')}_s": round(steps[step] - wall0, 3) for step in STEPS if step in steps}
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _model_bytes(model: Path) -> int:
    return sum(p.stat().st_size for p in model.iterdir() if p.name.endswith((".onnx", ".onnx.data", ".onnx_data")))


def _kv_per_token(model: Path) -> int:
    sys.path.insert(0, str(SRC))
    from localmind.engine.local import kv_bytes_per_token
    from localmind.engine.validate import validate_model_folder

    return kv_bytes_per_token(validate_model_folder(model, read_tokenizer=False), "cpu")


def _median(runs: list[dict[str, Any]], key: str) -> float | None:
    values = [r[key] for r in runs if r.get(key) is not None]
    return round(statistics.median(values), 3) if values else None


def measure(model: Path, runs: int, serve: bool) -> dict[str, Any]:
    chat = [*LOCALMIND, "chat", "--model", str(model), "--prompt", "hi", "--max-new-tokens", "1"]
    bare = [sys.executable, "-c", BARE, str(model)]
    bare_chat = [sys.executable, "-c", BARE_CHAT, str(model)]
    data = Path(tempfile.mkdtemp(prefix="coldstart-"))
    results: dict[str, list[dict[str, Any]]] = {
        "localmind_chat": [],
        "bare_og": [],
        "bare_og_chat_prompt": [],
        "localmind_serve": [],
    }
    for round_ in range(runs):
        order = ["localmind_chat", "bare_og", "bare_og_chat_prompt", "localmind_serve"]
        if round_ % 2:
            order.reverse()
        for name in order:
            if name == "localmind_chat":
                results[name].append(_run_to_first_byte([*chat, "--data-dir", str(data)]))
            elif name == "bare_og":
                results[name].append(_run_to_first_byte(bare))
            elif name == "bare_og_chat_prompt":
                results[name].append(_run_to_first_byte(bare_chat))
            elif serve:
                results[name].append(_serve_once(str(model), data))
    per_token = _kv_per_token(model)
    model_mb = _model_bytes(model) / 2**20
    summary: dict[str, Any] = {
        "model_files_mb": round(model_mb, 1),
        "kv_bytes_per_token": per_token,
        "kv_mb_at_4096_tokens": round(per_token * 4096 / 2**20, 1),
    }
    for name, rows in results.items():
        if rows:
            summary[name] = {key: _median(rows, key) for key in rows[0]} | {"runs": rows}
    chat_s, bare_s = summary["localmind_chat"]["first_token_s"], summary["bare_og"]["first_token_s"]
    summary["chat_extra_s_over_bare"] = round(chat_s - bare_s, 3)
    summary["chat_goal_extra_s_le_0.3"] = chat_s - bare_s <= 0.3
    same_prompt_s = summary["bare_og_chat_prompt"]["first_token_s"]
    summary["chat_extra_s_over_bare_same_prompt"] = round(chat_s - same_prompt_s, 3)
    # What og itself holds for the model (more than the files: og unpacks some weights) is the bare loop's peak
    # less its 256-token KV buffer; chat --prompt sizes its buffer to its one turn (a few dozen tokens).
    og_model_mb = summary["bare_og"]["peak_rss_mb"] - per_token * 256 / 2**20
    summary["og_model_rss_mb"] = round(og_model_mb, 1)
    summary["chat_rss_goal_mb"] = round(og_model_mb + 150, 1)
    summary["chat_rss_within_goal"] = summary["localmind_chat"]["peak_rss_mb"] <= og_model_mb + 150
    if serve:
        serve_s = summary["localmind_serve"]["first_token_s"]
        summary["serve_extra_s_over_bare"] = round(serve_s - bare_s, 3)
        summary["serve_goal_extra_s_le_0.3"] = serve_s - bare_s <= 0.3
        summary["serve_extra_s_over_bare_same_prompt"] = round(serve_s - same_prompt_s, 3)
        # serve's engine reserves the default context budget (4,096 tokens) after its first request.
        goal = og_model_mb + per_token * 4096 / 2**20 + 150
        summary["serve_engine_rss_goal_mb"] = round(goal, 1)
        engine_rss = summary["localmind_serve"]["engine_peak_rss_mb"]
        summary["serve_engine_rss_within_goal"] = engine_rss is not None and engine_rss <= goal
    return summary


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", action="append", default=[])
    ap.add_argument("--tiny", action="store_true", help="also the tests' tiny model")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--no-serve", action="store_true")
    args = ap.parse_args()
    models = [Path(m) for m in args.model]
    if args.tiny:
        sys.path.insert(0, str(ROOT))
        from tests.helpers.tiny_model import build_tiny_model

        models.insert(0, build_tiny_model(Path(tempfile.mkdtemp(prefix="coldstart-tiny-")) / "tiny"))
    # As installed: with bytecode. (This machine sets PYTHONDONTWRITEBYTECODE, so a source checkout would compile
    # every module at every start and the figures would be those of a first start after an upgrade.)
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "src")], check=True, capture_output=True)
    load_before = os.getloadavg()
    out: dict[str, Any] = {"runs": args.runs, "load_average_before": [round(x, 2) for x in load_before], "models": {}}
    for model in models:
        name = "tiny" if args.tiny and model == models[0] else model.name
        out["models"][name] = measure(model, args.runs, not args.no_serve)
        print(json.dumps({name: out["models"][name]}), file=sys.stderr)
    out["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
