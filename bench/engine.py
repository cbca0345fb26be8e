"""Engine benchmark: LocalMind's engine against a bare og loop, KV reuse across turns, peak memory.

    python bench/engine.py --model bench/models/smollm2-135m [--runs 3] [--new-tokens 128]

Prints JSON. Every comparison is measured in the same run, alternating, median of ``--runs``.
- decode tok/s and TTFT for 100- and 1,000-token prompts: LocalMind (in-process LocalEngine) vs a bare
  og Generator loop (append the prompt, ``generate_next_token`` N times) with the same threads (goal >= 0.97x);
- TTFT of turns 1..10 of one chat with KV reuse vs a full re-prefill each turn (goal: turn 10 <= 1.5x turn 1);
- peak RSS of a process that loads the model and runs a 1,000-token turn with LocalMind's engine;
- ``as_users_run_it``: what the window runs — the engine child process (``EngineProcess``) with the default
  preset's sampling (temperature 0.7, top-p 0.9, top-k 40, repetition penalty 1.1), timed in the parent from
  the request to the text arriving — against og's own sampling of the same values in a bare loop, and the
  in-process engine with the same values (what the process boundary costs). Alternating order each run.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

import numpy as np

from localmind.engine.devices import physical_cores
from localmind.engine.local import LocalEngine
from localmind.engine.process import EngineProcess
from localmind.engine.types import ChatMessage, GenerationOptions, LoadOptions, TextDelta, TurnFinished
from localmind.settings import GenerationDefaults, generation_options

WORDS = [
    "the",
    "quick",
    "brown",
    "fox",
    "jumps",
    "over",
    "a",
    "lazy",
    "dog",
    "while",
    "seven",
    "wizards",
    "quietly",
    "box",
    "jam",
    "and",
    "pack",
    "liquor",
    "jugs",
]


def text_of_tokens(engine: LocalEngine, target: int, seed: int = 0) -> str:
    """ASCII words that, as one user message in the chat template, make a prompt of about ``target`` tokens."""
    rng = random.Random(seed)
    words: list[str] = []
    while engine.count_tokens([ChatMessage("user", " ".join(words))]) < target:
        words.extend(rng.choice(WORDS) for _ in range(max(1, (target - len(words)) // 4)))
    while len(words) > 1 and engine.count_tokens([ChatMessage("user", " ".join(words))]) > target:
        words.pop()
    return " ".join(words)


def fixed_length(n: int) -> GenerationOptions:
    """Greedy, exactly ``n`` tokens (random weights may otherwise end a turn early)."""
    return GenerationOptions(temperature=0, max_new_tokens=n, min_new_tokens=n, repetition_penalty=1.0)


def localmind_turn(engine: LocalEngine, messages: list[ChatMessage], new_tokens: int) -> TurnFinished:
    finished = None
    for event in engine.generate(messages, fixed_length(new_tokens)):
        if isinstance(event, TurnFinished):
            finished = event
    assert finished is not None and finished.stats.generated_tokens == new_tokens, finished
    return finished


def bare_og_turn(model: Any, og: Any, prompt_ids: np.ndarray, new_tokens: int, budget: int) -> tuple[float, float]:
    """The plainest og loop: returns (ttft_s, decode tok/s)."""
    started = time.perf_counter()
    params = og.GeneratorParams(model)
    params.set_search_options(max_length=budget, min_length=budget, do_sample=False)
    generator = og.Generator(model, params)
    generator.append_tokens(prompt_ids)
    generator.generate_next_token()
    generator.get_next_tokens()
    first = time.perf_counter()
    for _ in range(new_tokens - 1):
        generator.generate_next_token()
        generator.get_next_tokens()
    end = time.perf_counter()
    return first - started, (new_tokens - 1) / (end - first)


def compare_decode(model_dir: str, runs: int, new_tokens: int, threads: int, budget: int) -> dict[str, Any]:
    import onnxruntime_genai as og

    engine = LocalEngine()
    engine.load(model_dir, LoadOptions(device="cpu", threads=threads, context_budget=budget))
    # The bare loop runs on the engine's own og.Model: a second copy loaded later ran up to 8% faster
    # (memory placement), which would measure load order rather than the loops.
    bare_model = engine.kv.model
    tokenizer = engine.prompts.tokenizer
    results: dict[str, Any] = {}
    for size in (100, 1000):
        text = text_of_tokens(engine, size)
        messages = [ChatMessage("user", text)]
        prompt = engine.prompts.render(messages)
        ids = np.asarray(tokenizer.encode(prompt), dtype=np.int32)
        ours: list[TurnFinished] = []
        bare: list[tuple[float, float]] = []
        localmind_turn(engine, messages, 8)  # warm up both paths once
        bare_og_turn(bare_model, og, ids, 8, budget)
        for _ in range(runs):
            engine.kv.rewind(0, 0)  # a fresh prefill each run, like the bare loop
            ours.append(localmind_turn(engine, messages, new_tokens))
            bare.append(bare_og_turn(bare_model, og, ids, new_tokens, budget))
        ttft_ours = statistics.median(f.stats.time_to_first_token_s for f in ours)
        tps_ours = statistics.median(f.stats.tokens_per_second for f in ours)
        ttft_bare = statistics.median(t for t, _ in bare)
        tps_bare = statistics.median(r for _, r in bare)
        results[f"prompt_{size}"] = {
            "prompt_tokens": int(ids.size),
            "localmind": {"ttft_s": round(ttft_ours, 3), "decode_tok_s": round(tps_ours, 1)},
            "bare_og": {"ttft_s": round(ttft_bare, 3), "decode_tok_s": round(tps_bare, 1)},
            "decode_ratio": round(tps_ours / tps_bare, 3),
            "ttft_ratio": round(ttft_ours / ttft_bare, 3),
        }
    return results


def default_preset(n: int, seed: int) -> GenerationOptions:
    """The options a new chat gets from the app's defaults (the balanced preset), forced to exactly ``n`` tokens."""
    return dataclasses.replace(
        generation_options(GenerationDefaults(), None, seed=seed), max_new_tokens=n, min_new_tokens=n
    )


def timed_turn(engine: Any, messages: list[ChatMessage], options: GenerationOptions) -> tuple[float, float]:
    """(time to first text, decode tok/s) measured by the caller, as the window sees the stream."""
    started = time.perf_counter()
    first = end = 0.0
    finished = None
    for event in engine.generate(messages, options):
        now = time.perf_counter()
        if isinstance(event, TextDelta) and not first:
            first = now
        elif isinstance(event, TurnFinished):
            finished, end = event, now
    assert finished is not None and first, finished
    assert finished.stats.generated_tokens == options.max_new_tokens, finished
    return first - started, (options.max_new_tokens - 1) / (end - first)


def bare_og_sampled(
    model: Any, og: Any, prompt_ids: np.ndarray, options: GenerationOptions, budget: int
) -> tuple[float, float]:
    """og's own sampling with the same values, in the plainest loop."""
    n = options.max_new_tokens
    started = time.perf_counter()
    params = og.GeneratorParams(model)
    params.set_search_options(
        max_length=budget,
        do_sample=True,
        temperature=options.temperature,
        top_p=options.top_p,
        top_k=options.top_k,
        repetition_penalty=options.repetition_penalty,
        random_seed=options.seed if options.seed is not None else 0,
    )
    generator = og.Generator(model, params)
    generator.append_tokens(prompt_ids)
    generator.generate_next_token()
    generator.get_next_tokens()
    first = time.perf_counter()
    for _ in range(n - 1):
        generator.generate_next_token()
        generator.get_next_tokens()
    end = time.perf_counter()
    return first - started, (n - 1) / (end - first)


def as_users_run_it(model_dir: str, runs: int, new_tokens: int, threads: int, budget: int) -> dict[str, Any]:
    """The child-process engine with the default preset, vs og sampling the same way, vs the in-process engine.

    Each run uses a new prompt (another seed for its words), so no engine reuses a cached prefix: every
    contender prefills the whole prompt, as for the first message of a new chat.
    """
    import onnxruntime_genai as og

    load = LoadOptions(device="cpu", threads=threads, context_budget=budget)
    child = EngineProcess()
    child.load(model_dir, load)
    local = LocalEngine()
    local.load(model_dir, load)
    names = ("child_process", "in_process", "bare_og_sampling")

    def run_one(name: str, messages: list[ChatMessage], ids: np.ndarray, seed: int) -> tuple[float, float]:
        options = default_preset(new_tokens, seed)
        if name == "child_process":
            return timed_turn(child, messages, options)
        if name == "in_process":
            return timed_turn(local, messages, options)
        return bare_og_sampled(local.kv.model, og, ids, options, budget)

    results: dict[str, Any] = {}
    try:
        for size in (100, 1000):
            samples: dict[str, list[tuple[float, float]]] = {name: [] for name in names}
            prompt_tokens = 0
            for run in range(runs + 1):  # run 0 warms every path up and is not counted
                messages = [ChatMessage("user", text_of_tokens(local, size, seed=1000 * size + run))]
                ids = np.asarray(local.prompts.tokenizer.encode(local.prompts.render(messages)), dtype=np.int32)
                prompt_tokens = int(ids.size)
                # Alternate the order (forwards, then backwards): on a noisy machine a fixed order measures drift.
                for name in names if run % 2 == 0 else tuple(reversed(names)):
                    measured = run_one(name, messages, ids, seed=run + 1)
                    if run:
                        samples[name].append(measured)
            medians = {
                name: {
                    "ttft_s": round(statistics.median(t for t, _ in values), 3),
                    "decode_tok_s": round(statistics.median(r for _, r in values), 1),
                }
                for name, values in samples.items()
            }
            child_m, local_m, bare_m = (medians[n] for n in names)
            results[f"prompt_{size}"] = {
                "prompt_tokens": prompt_tokens,
                **medians,
                "decode_child_vs_bare_og": round(child_m["decode_tok_s"] / bare_m["decode_tok_s"], 3),
                "decode_child_vs_in_process": round(child_m["decode_tok_s"] / local_m["decode_tok_s"], 3),
                "ttft_child_vs_bare_og": round(child_m["ttft_s"] / bare_m["ttft_s"], 3),
            }
    finally:
        child.close()
        local.close()
    sampling = default_preset(new_tokens, 0)
    return {
        "sampling": {
            k: getattr(sampling, k) for k in ("temperature", "top_p", "top_k", "repetition_penalty", "max_new_tokens")
        },
        **results,
    }


def turns_with_and_without_reuse(model_dir: str, threads: int, budget: int, turns: int = 10) -> dict[str, Any]:
    engine = LocalEngine()
    engine.load(model_dir, LoadOptions(device="cpu", threads=threads, context_budget=budget))
    reply_tokens = 48
    messages = [ChatMessage("system", "You are a helpful assistant.")]
    reuse: list[float] = []
    fresh: list[float] = []
    reused_tokens: list[int] = []
    for turn in range(turns):
        messages.append(ChatMessage("user", text_of_tokens(engine, 60, seed=turn)))
        # Full re-prefill of the same history (what an app without KV reuse does every turn).
        saved = engine.kv.record, engine.kv.generator
        engine.kv.rewind(0, 0)
        fin = localmind_turn(engine, messages, reply_tokens)
        fresh.append(fin.stats.time_to_first_token_s)
        engine.kv.record, engine.kv.generator = saved
        # The same turn with the cache kept from the previous turn.
        reply_text: list[str] = []
        finished = None
        for event in engine.generate(messages, fixed_length(reply_tokens)):
            if isinstance(event, TextDelta):
                reply_text.append(event.text)
            else:
                finished = event
        assert finished is not None
        reuse.append(finished.stats.time_to_first_token_s)
        reused_tokens.append(finished.stats.reused_tokens)
        messages.append(ChatMessage("assistant", "".join(reply_text)))
    return {
        "turns": turns,
        "ttft_reuse_s": [round(t, 3) for t in reuse],
        "ttft_full_prefill_s": [round(t, 3) for t in fresh],
        "reused_tokens": reused_tokens,
        "turn10_over_turn1_reuse": round(reuse[-1] / reuse[0], 2),
        "turn10_over_turn1_full_prefill": round(fresh[-1] / fresh[0], 2),
    }


def peak_rss(model_dir: str, threads: int, budget: int) -> dict[str, Any]:
    """Run one 1,000-token turn in a fresh process (``--rss-probe``) and read its peak RSS."""
    cmd = [
        sys.executable,
        __file__,
        "--model",
        model_dir,
        "--threads",
        str(threads),
        "--budget",
        str(budget),
        "--rss-probe",
    ]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True, timeout=600)
    return json.loads(out.stdout)


def peak_rss_kb() -> int:
    """This process's peak RSS. Linux keeps ru_maxrss across exec (it would count the parent's fork), VmHWM not."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def rss_probe(model_dir: str, threads: int, budget: int) -> None:
    engine = LocalEngine()
    engine.load(model_dir, LoadOptions(device="cpu", threads=threads, context_budget=budget))
    after_load = peak_rss_kb()
    localmind_turn(engine, [ChatMessage("user", text_of_tokens(engine, 1000))], 64)
    peak = peak_rss_kb()
    print(json.dumps({"rss_after_load_mb": round(after_load / 1024), "peak_rss_mb": round(peak / 1024)}))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", required=True)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--new-tokens", type=int, default=128)
    ap.add_argument("--threads", type=int, default=physical_cores())
    ap.add_argument("--budget", type=int, default=4096)
    ap.add_argument("--skip", action="append", default=[], choices=["decode", "users", "turns", "rss"])
    ap.add_argument("--rss-probe", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.rss_probe:
        rss_probe(args.model, args.threads, args.budget)
        return
    report: dict[str, Any] = {
        "model": args.model,
        "threads": args.threads,
        "runs": args.runs,
        "new_tokens": args.new_tokens,
    }
    if "decode" not in args.skip:
        report["decode"] = compare_decode(args.model, args.runs, args.new_tokens, args.threads, args.budget)
    if "users" not in args.skip:
        report["as_users_run_it"] = as_users_run_it(args.model, args.runs, args.new_tokens, args.threads, args.budget)
    if "turns" not in args.skip:
        report["multi_turn"] = turns_with_and_without_reuse(args.model, args.threads, args.budget)
    if "rss" not in args.skip:
        report["memory"] = peak_rss(args.model, args.threads, args.budget)
    report["bench_process_peak_rss_mb"] = round(peak_rss_kb() / 1024)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
