"""onnx-community q4 as downloaded vs after LocalMind's rewrites vs og's model builder int4: decode and prefill.

Random-weight models of the exact SmolLM2-135M and Qwen3-0.6B shapes (speed does not depend on the weight
values): the onnx-community layout from a real Optimum export quantized with onnxruntime's MatMulNBits
quantizer (tests/helpers/community_model.py), and og's builder int4 (bench/make_models.py). Built once under
bench/models/ and reused.

Candidates, all loaded by LocalMind's engine (og, the same threads and context budget):
  community_q4        the q4 graph as the Hub ships it (LocalMind's generated config, no rewrite)
  community_q4_level4 the previous release's rewrite: accuracy_level=4 on MatMulNBits, attention as exported
  community_q4_gqa    accuracy_level=4 and every layer's attention as one GroupQueryAttention node with a
                      shared KV buffer, rotary and RMSNorm as exported (engine/formats/gqa.py alone)
  community_q4_fused  what LocalMind installs now: the above plus the rotary inside GroupQueryAttention
                      (rotary.py) and RMSNorm with its residual Add as (Skip)SimplifiedLayerNormalization (rmsnorm.py)
  community_q4_packed the above plus Q/K/V and gate/up packed into one 4-bit matrix each (packing.py; measured,
                      off by default: optimize.PACK_PROJECTIONS)
  og_builder_int4     og's own model builder output of the same shape

Each round runs every candidate once, in a rotated order (this machine is noisy); figures are medians.
Prints JSON. ``python bench/variants.py [--shapes smollm2-135m qwen3-0.6b] [--rounds 3]``
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

MODELS = ROOT / "bench" / "models"
PROMPT = (
    "Please summarise the following notes in three short bullet points, keeping every number exact. "
    "The quick brown fox jumps over the lazy dog; the lazy dog sleeps in the warm afternoon sun while the fox "
    "runs across the wide green field towards the old red barn at the edge of the quiet village near the river. "
)


def community_model(shape: str) -> Path:
    from tests.helpers import community_model as cm

    out = MODELS / "community" / shape
    marker = out.with_name(shape + ".done")
    if not marker.is_file():
        cm.build(shape, out, variants=("q4",))
        marker.write_text("ok", encoding="utf-8")
    return out


def builder_model(shape: str) -> Path:
    from bench.make_models import build

    out = MODELS / shape
    if not (out / "genai_config.json").is_file():
        build(shape, MODELS)
    return out


def level4_copy(source: Path, prepared: Path, dest: Path) -> Path:
    """The previous release's rewrite: a prepared folder whose graph has accuracy_level=4 and nothing else."""
    import os
    import shutil

    from localmind.engine.formats.genai_config import write_genai_config
    from localmind.engine.formats.optimize import rewrite_graph

    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(prepared, dest, symlinks=True, ignore=shutil.ignore_patterns("model_q4.onnx*"))
    rewrite_graph(source / "onnx" / "model_q4.onnx", dest / "onnx" / "model_q4.onnx")  # no config: no attention
    # onnxruntime refuses symlinked external data next to a real graph file: hard link, as prepare does.
    os.link(source / "onnx" / "model_q4.onnx.data", dest / "onnx" / "model_q4.onnx.data")
    write_genai_config(dest, "onnx/model_q4.onnx")
    return dest


def measure(engine: Any, round_no: int, new_tokens: int) -> dict[str, float]:
    from localmind.engine.types import ChatMessage, GenerationOptions, TurnFinished

    options = GenerationOptions(temperature=0, max_new_tokens=new_tokens, min_new_tokens=new_tokens)
    # A different first message each round: nothing is reused from the previous round's cache.
    messages = [ChatMessage("user", f"Round {round_no}. {PROMPT}")]
    finished = [e for e in engine.generate(messages, options) if isinstance(e, TurnFinished)][-1]
    s = finished.stats
    if finished.error:
        raise RuntimeError(finished.error)
    return {
        "prompt_tokens": s.prompt_tokens - s.reused_tokens,
        "prefill_tok_s": (s.prompt_tokens - s.reused_tokens) / s.time_to_first_token_s,
        "decode_tok_s": s.tokens_per_second,
        "generated": s.generated_tokens,
    }


def bench_shape(
    shape: str, rounds: int, new_tokens: int, threads: int, only: list[str] | None = None
) -> dict[str, Any]:
    from localmind.engine.formats import prepare
    from localmind.engine.local import LocalEngine
    from localmind.engine.types import LoadOptions

    load_start = [round(x, 2) for x in os.getloadavg()]
    t0 = time.perf_counter()
    community, builder = community_model(shape), builder_model(shape)
    build_s = time.perf_counter() - t0
    with tempfile.TemporaryDirectory() as tmp:
        raw = prepare.prepare_folder(community, variant="q4", optimize=False, data_dir=Path(tmp) / "raw")
        level4 = level4_copy(community, raw.path, Path(tmp) / "level4")
        from localmind.engine.formats import optimize

        shipped = (optimize.FUSE_ROTARY, optimize.FUSE_RMSNORM, optimize.PACK_PROJECTIONS)
        optimize.FUSE_ROTARY = optimize.FUSE_RMSNORM = optimize.PACK_PROJECTIONS = False
        attention_only = prepare.prepare_folder(community, variant="q4", data_dir=Path(tmp) / "gqa")
        optimize.FUSE_ROTARY = optimize.FUSE_RMSNORM = optimize.PACK_PROJECTIONS = True
        packed = prepare.prepare_folder(community, variant="q4", data_dir=Path(tmp) / "packed")
        optimize.FUSE_ROTARY, optimize.FUSE_RMSNORM, optimize.PACK_PROJECTIONS = shipped
        started = time.perf_counter()
        tuned = prepare.prepare_folder(community, variant="q4", data_dir=Path(tmp) / "tuned")
        rewrite_s = time.perf_counter() - started
        folders = {
            "community_q4": raw.path,
            "community_q4_level4": level4,
            "community_q4_gqa": attention_only.path,
            "community_q4_packed": packed.path,
            "community_q4_fused": tuned.path,
            "og_builder_int4": builder,
        }
        folders = {k: v for k, v in folders.items() if not only or k in only or k == "og_builder_int4"}
        engines: dict[str, Any] = {}
        for name, folder in folders.items():
            engine = LocalEngine()
            engine.load(str(folder), LoadOptions(device="cpu", threads=threads, context_budget=1024))
            engines[name] = engine
        runs: dict[str, list[dict[str, float]]] = {name: [] for name in folders}
        names = list(folders)
        for r in range(rounds):
            order = names[r % len(names) :] + names[: r % len(names)]
            for name in order:
                runs[name].append(measure(engines[name], r, new_tokens))
        for engine in engines.values():
            engine.close()
    result: dict[str, Any] = {"shape": shape, "build_s": round(build_s, 1), "rewrite_s": round(rewrite_s, 2)}
    result["rewrites"] = tuned.notes
    result["load_average_start_end"] = [load_start, [round(x, 2) for x in os.getloadavg()]]
    for name, values in runs.items():
        result[name] = {
            "decode_tok_s": round(statistics.median(v["decode_tok_s"] for v in values), 1),
            "prefill_tok_s": round(statistics.median(v["prefill_tok_s"] for v in values), 1),
            "prompt_tokens": int(values[0]["prompt_tokens"]),
            "runs_decode": [round(v["decode_tok_s"], 1) for v in values],
        }
    builder_decode = result["og_builder_int4"]["decode_tok_s"]
    for name in [n for n in runs if n != "og_builder_int4"]:
        result[name]["builder_decode_ratio"] = round(builder_decode / result[name]["decode_tok_s"], 2)
        # The same ratio round by round (both measured back to back): steadier than a ratio of medians here.
        result[name]["builder_decode_ratio_per_round"] = round(
            statistics.median(
                b["decode_tok_s"] / c["decode_tok_s"] for b, c in zip(runs["og_builder_int4"], runs[name], strict=True)
            ),
            2,
        )
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shapes", nargs="+", default=["smollm2-135m", "qwen3-0.6b"])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--new-tokens", type=int, default=128)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--only", nargs="*", help="candidates to measure (og_builder_int4 always is)")
    ap.add_argument("--build-only", action="store_true", help="build the models and stop")
    args = ap.parse_args()
    if args.build_only:
        for shape in args.shapes:
            print(
                json.dumps(
                    {"shape": shape, "community": str(community_model(shape)), "builder": str(builder_model(shape))}
                )
            )
        return
    results = []
    for shape in args.shapes:
        results.append(bench_shape(shape, args.rounds, args.new_tokens, args.threads, args.only))
        print(json.dumps(results[-1]), file=sys.stderr, flush=True)  # each shape as soon as it is measured
    print(json.dumps({"threads": args.threads, "new_tokens": args.new_tokens, "results": results}, indent=2))


if __name__ == "__main__":
    main()
