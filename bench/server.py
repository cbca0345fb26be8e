"""The API server against the engine it wraps, as clients see it. Prints JSON.

    python bench/server.py --model bench/models/smollm2-135m [--runs 3] [--new-tokens 128]

- decode: TTFT and decode tok/s of one streamed reply through HTTP+SSE (`localmind serve`, a real subprocess, read
  with a plain HTTP client) vs the same turn on the engine in this process, and on the engine in a child process
  (as the window and the server run it); rotating order, fresh prompts each run, the server's own sampling settings.
- turns: TTFT of turn 10 vs turn 1 of a conversation the client resends whole each turn (KV reuse through the API).
- concurrency: total tok/s for 1, 2 and 4 clients streaming at once, and the latency the server adds per request
  (client time minus the server's own queue + engine time, from the response's "timings") — p50/p99 under 4 clients.
- og_engine_batching: og 0.18's Engine API on the same model in this process: total tok/s with 1/2/4 requests
  batched, whether a turn can be stopped mid-decode and mid-prefill, and what that costs.
Fixed lengths use the server's `min_tokens` extension (random weights would otherwise end turns at random).
"""

from __future__ import annotations

import argparse
import json
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx2 as httpx
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from engine import text_of_tokens
from localmind.engine.devices import physical_cores
from localmind.engine.local import LocalEngine
from localmind.engine.process import EngineProcess
from localmind.engine.types import ChatMessage, GenerationOptions, LoadOptions, TextDelta, TurnFinished

MODEL_ID = ""  # set by start_server


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(model: str, threads: int, budget: int, max_queue: int = 16) -> tuple[subprocess.Popen[bytes], str]:
    global MODEL_ID
    port = free_port()
    MODEL_ID = Path(model).resolve().name  # the served id is the folder's name
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "localmind",
            "serve",
            "--model",
            model,
            "--port",
            str(port),
            "--threads",
            str(threads),
            "--context",
            str(budget),
            "--max-queue",
            str(max_queue),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            if httpx.get(url + "/health", timeout=1).status_code == 200:
                return proc, url
        except httpx.TransportError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit("the server did not start")


def api_turn(client: httpx.Client, url: str, messages: list[ChatMessage], n: int) -> dict[str, Any]:
    """One streamed turn, timed by the client."""
    body = {
        "model": MODEL_ID,
        "messages": [{"role": m.role, "content": m.content} for m in messages],
        "stream": True,
        "stream_options": {"include_usage": True},
        "temperature": 0,
        "max_tokens": n,
        "min_tokens": n,
    }
    text: list[str] = []
    usage: dict[str, Any] = {}
    timings: dict[str, Any] = {}
    first = last = None
    started = time.perf_counter()
    with client.stream("POST", url + "/v1/chat/completions", json=body) as response:
        response.raise_for_status()
        for line in response.iter_lines():
            if not line.startswith("data: ") or line == "data: [DONE]":
                continue
            chunk = json.loads(line[6:])
            for choice in chunk.get("choices") or []:
                piece = choice["delta"].get("content")
                if piece:
                    last = time.perf_counter()
                    first = first or last
                    text.append(piece)
            if chunk.get("usage"):
                usage, timings = chunk["usage"], chunk.get("timings", {})
    ended = time.perf_counter()
    assert first is not None and last is not None and usage["completion_tokens"] == n, usage
    return {
        "ttft_s": first - started,
        "tok_s": (n - 1) / (last - first),
        "total_s": ended - started,
        "text": "".join(text),
        "cached": usage.get("prompt_tokens_details", {}).get("cached_tokens", 0),
        "added_s": (ended - started) - (timings["queued_ms"] + timings["engine_ms"]) / 1000,
    }


def same_as_server(n: int) -> GenerationOptions:
    """What ``localmind serve`` runs for the API arm's request: its defaults, greedy, exactly ``n`` tokens."""
    return GenerationOptions(temperature=0, max_new_tokens=n, min_new_tokens=n)


def local_turn(engine: LocalEngine | EngineProcess, messages: list[ChatMessage], n: int) -> dict[str, Any]:
    first = last = None
    finished = None
    started = time.perf_counter()
    for event in engine.generate(messages, same_as_server(n)):
        if isinstance(event, TextDelta):
            last = time.perf_counter()
            first = first or last
        elif isinstance(event, TurnFinished):
            finished = event
    assert finished is not None and finished.stats.generated_tokens == n and first and last
    return {"ttft_s": first - started, "tok_s": (n - 1) / (last - first)}


def compare_decode(
    url: str, engine: LocalEngine, child: EngineProcess, runs: int, n: int, prompt_tokens: int
) -> dict[str, Any]:
    """Three arms, in a rotating order: the API (HTTP+SSE to ``localmind serve``, whose engine is a child process),
    the engine in this process (the goal's reference), and the engine in a child process of this one (what the
    window runs: it tells the process boundary's share of the API's cost from HTTP's)."""
    arms: dict[str, list[dict[str, Any]]] = {"api": [], "local": [], "child": []}
    with httpx.Client(timeout=600) as client:

        def turn(which: str, messages: list[ChatMessage], tokens: int) -> dict[str, Any]:
            if which == "api":
                return api_turn(client, url, messages, tokens)
            return local_turn(engine if which == "local" else child, messages, tokens)

        for which in arms:
            turn(which, [ChatMessage("user", "warm up")], 8)
        names = list(arms)
        for run in range(runs):
            messages = [ChatMessage("user", text_of_tokens(engine, prompt_tokens, seed=100 + run))]
            for which in names[run % 3 :] + names[: run % 3]:
                arms[which].append(turn(which, messages, n))
    med = statistics.median
    tok_s = {which: med(r["tok_s"] for r in results) for which, results in arms.items()}
    return {
        "prompt_tokens": prompt_tokens,
        "new_tokens": n,
        "runs": runs,
        "api_tok_s": round(tok_s["api"], 1),
        "local_tok_s": round(tok_s["local"], 1),
        "child_tok_s": round(tok_s["child"], 1),
        "decode_ratio_api_over_local": round(tok_s["api"] / tok_s["local"], 3),
        "decode_ratio_child_over_local": round(tok_s["child"] / tok_s["local"], 3),
        "per_run_api_over_local": [
            round(a["tok_s"] / b["tok_s"], 3) for a, b in zip(arms["api"], arms["local"], strict=True)
        ],
        "api_ttft_s": round(med(r["ttft_s"] for r in arms["api"]), 3),
        "local_ttft_s": round(med(r["ttft_s"] for r in arms["local"]), 3),
        "child_ttft_s": round(med(r["ttft_s"] for r in arms["child"]), 3),
    }


def turns_through_api(url: str, engine: LocalEngine, turns: int = 10) -> dict[str, Any]:
    messages = [ChatMessage("system", "You are a helpful assistant.")]
    ttft: list[float] = []
    cached: list[int] = []
    with httpx.Client(timeout=600) as client:
        for turn in range(turns):
            messages.append(ChatMessage("user", text_of_tokens(engine, 60, seed=turn)))
            result = api_turn(client, url, messages, 48)
            ttft.append(result["ttft_s"])
            cached.append(result["cached"])
            messages.append(ChatMessage("assistant", result["text"]))
    return {
        "turns": turns,
        "ttft_s": [round(t, 3) for t in ttft],
        "cached_tokens": cached,
        "turn10_over_turn1": round(ttft[-1] / ttft[0], 2),
    }


def concurrency(url: str, engine: LocalEngine, n: int, rounds: int = 3) -> dict[str, Any]:
    out: dict[str, Any] = {}
    added: list[float] = []
    for clients in (1, 2, 4):
        walls: list[float] = []
        for r in range(rounds):
            prompts = [text_of_tokens(engine, 100, seed=1000 * clients + 10 * r + i) for i in range(clients)]
            results: list[dict[str, Any]] = []

            def one(prompt: str, results: list[dict[str, Any]] = results) -> None:
                with httpx.Client(timeout=600) as client:
                    results.append(api_turn(client, url, [ChatMessage("user", prompt)], n))

            started = time.perf_counter()
            threads = [threading.Thread(target=one, args=(p,)) for p in prompts]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            walls.append(time.perf_counter() - started)
            assert len(results) == clients
            if clients == 4:
                added.extend(r["added_s"] for r in results)
        out[f"{clients}_clients_total_tok_s"] = round(clients * n / statistics.median(walls), 1)
    added.sort()
    out["added_latency_4_clients_ms"] = {
        "samples": len(added),
        "p50": round(added[len(added) // 2] * 1000, 1),
        "p99": round(added[min(len(added) - 1, int(len(added) * 0.99))] * 1000, 1),
        "max": round(added[-1] * 1000, 1),
    }
    return out


def og_engine_batching(model: str, threads: int, budget: int, n: int, engine: LocalEngine) -> dict[str, Any]:
    import onnxruntime_genai as og

    config = og.Config(model)
    config.overlay(
        json.dumps(
            {
                "model": {"decoder": {"session_options": {"intra_op_num_threads": threads}}},
                "search": {"max_length": budget},
            }
        )
    )
    og_model = og.Model(config)
    tokenizer = og.Tokenizer(og_model)
    og_engine = og.Engine(og_model)
    buffer = og_engine.create_event_buffer(64)
    token_flag = og.EngineEventFlags.TOKEN.value
    done_flag = og.EngineEventFlags.TURN_FINISHED.value

    def ids(seed: int, length: int) -> Any:
        text = text_of_tokens(engine, length, seed=seed)
        return np.asarray(tokenizer.encode(text), dtype=np.int32)

    def begin(prompt: Any, tokens: int) -> tuple[Any, int]:
        options = og.RequestOptions()
        options.set_max_session_tokens(budget)
        request = og_engine.create_request(options=options)
        turn = og.TurnOptions(request)
        turn.set_max_generated_tokens(tokens)
        turn.set_min_generated_tokens(tokens)
        turn.set_do_sample(False)
        return request, request.begin_turn(prompt, turn)

    def drive(on_token: Any = None) -> tuple[dict[int, int], dict[int, str]]:
        counts: dict[int, int] = {}
        reasons: dict[int, str] = {}
        while og_engine.has_pending_requests():
            for event in og_engine.run(buffer):
                key = hash(event.request)  # pybind hands back the same Python object for a live request
                flags = int(event.flags.value) if hasattr(event.flags, "value") else int(event.flags)
                if flags & token_flag:
                    counts[key] = counts.get(key, 0) + 1
                    if on_token is not None:
                        on_token(key, counts[key])
                if flags & done_flag:
                    reasons[key] = str(event.finish_reason)
        return counts, reasons

    result: dict[str, Any] = {}
    for k in (1, 2, 4):
        prompts = [ids(2000 + 10 * k + i, 100) for i in range(k)]
        started = time.perf_counter()
        requests = [begin(p, n) for p in prompts]
        counts, _ = drive()
        wall = time.perf_counter() - started
        for request, _ in requests:
            request.close()
        result[f"{k}_requests_total_tok_s"] = round(sum(counts.values()) / wall, 1)
    # Stop mid-decode (from the thread running the engine: og's cancel is not thread-safe to call from another).
    first, turn_a = begin(ids(3000, 100), n)
    second, _ = begin(ids(3001, 100), n)
    key_a = hash(first)
    stopped_at: list[int] = []

    def stop_a(key: int, count: int) -> None:
        if key == key_a and count == 5 and not stopped_at:
            first.cancel_turn(turn_a)
            stopped_at.append(count)

    counts, reasons = drive(stop_a)
    result["stop_mid_decode"] = {
        "stopped_after": stopped_at,
        "tokens_of_stopped": counts.get(key_a),
        "tokens_of_other": counts.get(hash(second)),
        "finish_reasons": sorted(reasons.values()),
    }
    first.close()
    second.close()
    # A 1,000-token prompt: how long the first run() call (the prefill) holds the engine — no Stop inside it.
    request, _ = begin(ids(4000, 1000), 4)
    started = time.perf_counter()
    og_engine.run(buffer)
    result["prefill_1000_first_run_call_s"] = round(time.perf_counter() - started, 2)
    while og_engine.has_pending_requests():
        og_engine.run(buffer)
    request.close()
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", required=True)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--new-tokens", type=int, default=128)
    ap.add_argument("--threads", type=int, default=physical_cores())
    ap.add_argument("--budget", type=int, default=4096)
    ap.add_argument("--skip", action="append", default=[], choices=["decode", "turns", "concurrency", "og"])
    args = ap.parse_args()
    engine = LocalEngine()
    engine.load(args.model, LoadOptions(device="cpu", threads=args.threads, context_budget=args.budget))
    report: dict[str, Any] = {"model": args.model, "threads": args.threads}
    proc, url = start_server(args.model, args.threads, args.budget)
    try:
        if "decode" not in args.skip:
            child = EngineProcess()
            try:
                child.load(args.model, LoadOptions(device="cpu", threads=args.threads, context_budget=args.budget))
                report["decode"] = compare_decode(url, engine, child, args.runs, args.new_tokens, 100)
            finally:
                child.close()
        if "turns" not in args.skip:
            report["turns"] = turns_through_api(url, engine)
        if "concurrency" not in args.skip:
            report["concurrency"] = concurrency(url, engine, 64)
    finally:
        proc.terminate()
        proc.wait(30)
    if "og" not in args.skip:
        report["og_engine_batching"] = og_engine_batching(args.model, args.threads, args.budget, 64, engine)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
