"""Long prompts: a pasted 2,000-token text read by LocalMind (as the app hosts it) against the bare og loop.

    python bench/longprompt.py --model bench/models/smollm2-135m --model bench/models/qwen3-0.6b [--rounds 3]

Prints JSON, one entry per model, with the load average before and after each. In one run, alternating the order
every round (these machines are noisy; the ratios are the figures to read):
- ``bare_og_original_s``: the plainest og loop on the model's original graph — one ``append_tokens`` of the whole
  prompt, then the first token (og's own greedy pick);
- ``localmind_s``: the engine child process as the window and ``serve`` host it (``EngineProcess``), the default
  preset's sampling, from the request to the first text — with the graph LocalMind loads (logits for the last
  position only, ``engine/formats/last_logits.py``);
- ``localmind_original_graph_s``: the same with the original graph (what the rewrite brings);
- ``peak_rss_mb``: peak RSS of ``localmind chat --prompt`` with the 2,000-token prompt (one process, the model in
  it), with and without the rewrite, beside the model's files and the turn's KV cache.
Each prompt is new (other words each round), so nothing is reused from a cache.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np

from bench.engine import default_preset, text_of_tokens
from localmind.engine.devices import physical_cores
from localmind.engine.formats.prepared import prepared_root
from localmind.engine.local import LocalEngine
from localmind.engine.process import EngineProcess
from localmind.engine.types import ChatMessage, LoadOptions, TurnFinished


def load_average() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


@contextlib.contextmanager
def original_folder(model_dir: str) -> Iterator[str]:
    """A hard-linked copy of ``model_dir`` inside LocalMind's prepared-models folder, which the engine loads as it
    is (a folder there counts as prepared already). For the engine child process, which a patch in this process
    cannot reach (it is spawned, not forked), and for any other process (``chat --prompt``)."""
    target = prepared_root() / f"bench-original-{Path(model_dir).name}"
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    try:
        for file in Path(model_dir).iterdir():
            if file.is_file():
                os.link(file, target / file.name)
        yield str(target)
    finally:
        shutil.rmtree(target, ignore_errors=True)


def first_token_s(engine: Any, prompt: str, seed: int) -> float:
    """From the request to the first token's end of turn (one token asked: random weights may decode it to no
    visible text, so the turn's end is the reliable mark; it comes right after the token)."""
    options = dataclasses.replace(default_preset(1, seed), min_new_tokens=1)
    started = time.perf_counter()
    for event in engine.generate([ChatMessage("user", prompt)], options):
        if isinstance(event, TurnFinished):
            assert event.stats.generated_tokens == 1, event
            return time.perf_counter() - started
    raise RuntimeError("the turn did not finish")


def bare_og_first_token_s(model: Any, og: Any, ids: np.ndarray, budget: int) -> float:
    started = time.perf_counter()
    params = og.GeneratorParams(model)
    params.set_search_options(max_length=budget, do_sample=False)
    generator = og.Generator(model, params)
    generator.append_tokens(ids)
    generator.generate_next_token()
    generator.get_next_tokens()
    return time.perf_counter() - started


def engine_process(model_dir: str, threads: int, budget: int) -> EngineProcess:
    engine = EngineProcess()
    engine.load(model_dir, LoadOptions(device="cpu", threads=threads, context_budget=budget))
    return engine


def prefill(model_dir: str, tokens: int, rounds: int, threads: int) -> dict[str, Any]:
    import onnxruntime_genai as og

    budget = tokens + 64
    counter = LocalEngine()
    counter.load(model_dir, LoadOptions(device="cpu", threads=threads, context_budget=budget))
    prompts = [text_of_tokens(counter, tokens, seed=100 + r) for r in range(rounds)]
    counter.unload()
    config = og.Config(model_dir)
    config.clear_providers()
    config.overlay(json.dumps({"model": {"decoder": {"session_options": {"intra_op_num_threads": threads}}}}))
    bare = og.Model(config)
    tokenizer = og.Tokenizer(bare)  # the plain text, no chat template: a dozen tokens fewer than LocalMind reads
    ids = [np.asarray(tokenizer.encode(p), dtype=np.int32) for p in prompts]
    rewritten = engine_process(model_dir, threads, budget)
    with original_folder(model_dir) as untouched:
        plain = engine_process(untouched, threads, budget)
    arms = {
        "bare_og_original_s": lambda r: bare_og_first_token_s(bare, og, ids[r], budget),
        "localmind_s": lambda r: first_token_s(rewritten, prompts[r], r),
        "localmind_original_graph_s": lambda r: first_token_s(plain, prompts[r], r),
    }
    times: dict[str, list[float]] = {name: [] for name in arms}
    names = list(arms)
    for r in range(rounds):
        for name in names[r % len(names) :] + names[: r % len(names)]:
            times[name].append(round(arms[name](r), 3))
    rewritten.close()
    plain.close()
    med = {name: statistics.median(v) for name, v in times.items()}
    return {
        "prompt_tokens_bare": len(ids[0]),
        "rounds": times,
        "median_s": med,
        "localmind_vs_bare_original": round(med["localmind_s"] / med["bare_og_original_s"], 3),
        "localmind_original_graph_vs_bare": round(med["localmind_original_graph_s"] / med["bare_og_original_s"], 3),
        "rewrite_speedup": round(med["localmind_original_graph_s"] / med["localmind_s"], 3),
    }


def chat_peak_rss_mb(model_dir: str, prompt: str, threads: int) -> float:
    code = (
        "import sys\n"
        "sys.argv = ['localmind', 'chat', '--model', sys.argv[1], '--prompt', sys.argv[2], '--max-new-tokens', '1',"
        " '--threads', sys.argv[3], '--device', 'cpu']\n"
        "from localmind.cli import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        # VmHWM, not ru_maxrss: Linux keeps ru_maxrss across exec, so it would count this bench's own memory.
        "print('PEAK', [l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM')][0], file=sys.stderr)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, model_dir, prompt, str(threads)],
        capture_output=True,
        text=True,
        timeout=900,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "src")},
    )
    peak = [line for line in out.stderr.splitlines() if line.startswith("PEAK")]
    if not peak:
        raise RuntimeError(out.stderr[-2000:])
    return round(int(peak[-1].split()[1]) / 1024, 1)


def model_files_mb(model_dir: str) -> float:
    return round(sum(p.stat().st_size for p in Path(model_dir).rglob("*") if p.is_file()) / 2**20, 1)


def memory(model_dir: str, tokens: int, threads: int) -> dict[str, Any]:
    counter = LocalEngine()
    counter.load(model_dir, LoadOptions(device="cpu", threads=threads, context_budget=tokens + 64))
    prompt = text_of_tokens(counter, tokens, seed=7)
    kv_per_token = getattr(counter.info, "kv_bytes_per_token", 0) or 0
    counter.unload()
    with_rewrite = chat_peak_rss_mb(model_dir, prompt, threads)
    with original_folder(model_dir) as untouched:
        without = chat_peak_rss_mb(untouched, prompt, threads)
    files = model_files_mb(model_dir)
    kv_mb = round(kv_per_token * (tokens + 64) / 2**20, 1)
    return {
        "peak_rss_mb": {"last_position_logits": with_rewrite, "original_graph": without},
        "model_files_mb": files,
        "kv_for_the_turn_mb": kv_mb,
        "goal_mb": round(files + kv_mb + 150, 1) if kv_mb else None,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", action="append", required=True)
    ap.add_argument("--tokens", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", type=int, default=physical_cores())
    ap.add_argument("--skip-memory", action="store_true")
    args = ap.parse_args()
    results = []
    for model_dir in args.model:
        entry: dict[str, Any] = {"model": model_dir, "load_average_before": load_average()}
        entry["pasted_prompt"] = prefill(model_dir, args.tokens, args.rounds, args.threads)
        if not args.skip_memory:
            entry["memory"] = memory(model_dir, args.tokens, args.threads)
        entry["load_average_after"] = load_average()
        results.append(entry)
        print(json.dumps(entry), file=sys.stderr)
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
