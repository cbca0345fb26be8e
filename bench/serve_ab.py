"""``localmind serve``'s cold start, two source trees alternating: e.g. main before a change and the working tree.

    git worktree add --detach /tmp/before <commit>
    python bench/serve_ab.py --before /tmp/before/src --rounds 6 --model bench/models/smollm2-135m [--tiny]

Each round runs the bare og loop and serve from both trees (``--before`` and this checkout's ``src``), in an order
that changes every round (four orders: each tree as often first, second and last; this machine is noisy), with bench/coldstart.py's own serve measurement (spawn → first
``/health`` ok and → first streamed token, the start-up trace's steps). Prints JSON: medians, each tree's extra over
the bare loop, the paired differences (after − before, per round), each run, and the load average. Check ``uptime``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import coldstart  # noqa: E402  (after the path: run as a script)


def _median(rows: list[dict[str, Any]], key: str) -> float | None:
    values = [r[key] for r in rows if isinstance(r.get(key), (int, float)) and not isinstance(r.get(key), bool)]
    return round(statistics.median(values), 3) if values else None


_ORDERS = (
    ("bare_og", "before", "after"),
    ("after", "before", "bare_og"),
    ("bare_og", "after", "before"),
    ("before", "after", "bare_og"),
)


def measure(model: Path, rounds: int, trees: dict[str, Path]) -> dict[str, Any]:
    data = Path(tempfile.mkdtemp(prefix="serve-ab-"))
    runs: dict[str, list[dict[str, Any]]] = {"bare_og": [], "before": [], "after": []}
    for round_ in range(rounds):
        # Each tree as often right after the bare loop as right after the other tree's serve (whose engine of
        # hundreds of MB has just exited): with one fixed order reversed, "before" was always in the middle.
        order = _ORDERS[round_ % len(_ORDERS)]
        for name in order:
            if name == "bare_og":
                runs[name].append(coldstart._run_to_first_byte([sys.executable, "-c", coldstart.BARE, str(model)]))
            else:
                coldstart.SRC = trees[name]  # coldstart._env() puts it on PYTHONPATH for the spawned serve
                runs[name].append(coldstart._serve_once(str(model), data))
    bare = _median(runs["bare_og"], "first_token_s") or 0.0
    out: dict[str, Any] = {"bare_og_first_token_s": bare}
    for name in ("before", "after"):
        keys = [k for k in runs[name][0] if k != "engine_reserved_kv"]
        out[name] = {k: _median(runs[name], k) for k in keys}
        out[name]["extra_s_over_bare"] = round((out[name]["first_token_s"] or 0.0) - bare, 3)
    out["paired_after_minus_before_s"] = [
        round(a["first_token_s"] - b["first_token_s"], 3) for a, b in zip(runs["after"], runs["before"], strict=True)
    ]
    out["runs"] = runs
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--before", type=Path, required=True, help="the other tree's src folder")
    ap.add_argument("--model", action="append", default=[])
    ap.add_argument("--tiny", action="store_true", help="also the tests' tiny model")
    ap.add_argument("--rounds", type=int, default=6)
    args = ap.parse_args()
    trees = {"before": args.before.resolve(), "after": ROOT / "src"}
    models = [Path(m) for m in args.model]
    if args.tiny:
        from tests.helpers.tiny_model import build_tiny_model

        models.insert(0, build_tiny_model(Path(tempfile.mkdtemp(prefix="serve-ab-tiny-")) / "tiny"))
    for tree in trees.values():  # as installed: with bytecode (see bench/coldstart.py)
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(tree)], check=True, capture_output=True)
    out: dict[str, Any] = {"rounds": args.rounds, "load_average_before": [round(x, 2) for x in os.getloadavg()]}
    out["trees"] = {k: str(v) for k, v in trees.items()}
    out["models"] = {}
    for model in models:
        name = "tiny" if args.tiny and model == models[0] else model.name
        out["models"][name] = measure(model, args.rounds, trees)
        shown = {k: v for k, v in out["models"][name].items() if k != "runs"}
        print(json.dumps({name: shown}), file=sys.stderr, flush=True)
    out["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
