"""Any bench in this folder, run from two source trees in one run, alternating: e.g. main before a change and now.

    git worktree add --detach /tmp/before <commit>
    python bench/tree_ab.py --before /tmp/before --rounds 4 \\
        --figure decode=as_users_run_it.prompt_100.child_process.decode_tok_s \\
        --figure bare=as_users_run_it.prompt_100.bare_og_sampling.decode_tok_s \\
        -- bench/engine.py --model bench/models/smollm2-135m --runs 1 --skip decode --skip turns --skip rss

Each round runs ``python <tree>/<bench> <args>`` once per tree (the bench imports its own tree's ``src``), the
order swapped every round (these machines are noisy). Paths among the arguments that exist here are made
absolute, so both trees read the same models. ``--figure NAME=PATH`` picks a number out of each run's JSON (a
dotted path; a number in it indexes a list). Prints JSON: per figure each tree's values and medians, and the
paired ratios after/before (per round; the same round shares the machine's state), with the load average of every
run. Divide by a figure the bench takes from the bare og loop in the same run (e.g. ``bare`` above) to cancel
drift: ``--ratio NAME=A/B`` adds A's value over B's, per run.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parents[1]


def pick(data: Any, path: str) -> float | None:
    for part in path.split("."):
        try:
            data = data[int(part)] if isinstance(data, list) else data[part]
        except (KeyError, IndexError, ValueError, TypeError):
            return None
    return float(data) if isinstance(data, (int, float)) else None


def absolute(arg: str) -> str:
    return str((HERE / arg).resolve()) if not arg.startswith("-") and (HERE / arg).exists() else arg


def run(tree: Path, bench: str, args: list[str]) -> dict[str, Any]:
    before = os.getloadavg()[0]
    out = subprocess.run(
        [sys.executable, str(tree / bench), *args],
        cwd=tree,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(tree / "src")},
        check=False,
    )
    if out.returncode != 0:
        raise RuntimeError(f"{tree}: {bench} failed:\n{out.stderr[-3000:]}")
    text = out.stdout
    report: dict[str, Any] = json.loads(text[text.index("{") :])
    report["_load_average_1min"] = [round(before, 2), round(os.getloadavg()[0], 2)]
    return report


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--before", required=True, help="the other tree's root (it has its own bench/ and src/)")
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--figure", action="append", default=[], help="NAME=dotted.path into the bench's JSON")
    ap.add_argument("--ratio", action="append", default=[], help="NAME=A/B: figure A over figure B, per run")
    ap.add_argument("bench", nargs=argparse.REMAINDER, help="-- bench/<script>.py and its arguments")
    args = ap.parse_args()
    command = [a for a in args.bench if a != "--"]
    bench, bench_args = command[0], [absolute(a) for a in command[1:]]
    trees = {"before": Path(args.before).resolve(), "after": HERE}
    figures = dict(f.split("=", 1) for f in args.figure)
    ratios = {name: spec.split("/", 1) for name, spec in (r.split("=", 1) for r in args.ratio)}
    values: dict[str, dict[str, list[float | None]]] = {n: {"before": [], "after": []} for n in [*figures, *ratios]}
    loads: dict[str, list[Any]] = {"before": [], "after": []}
    for r in range(args.rounds):
        for name in ("before", "after") if r % 2 == 0 else ("after", "before"):
            report = run(trees[name], bench, bench_args)
            loads[name].append(report["_load_average_1min"])
            picked = {figure: pick(report, path) for figure, path in figures.items()}
            for figure, value in picked.items():
                values[figure][name].append(value)
            for ratio, (a, b) in ratios.items():
                top, bottom = picked.get(a), picked.get(b)
                values[ratio][name].append(round(top / bottom, 4) if top is not None and bottom else None)
            print(json.dumps({"round": r, "tree": name, **picked}), file=sys.stderr, flush=True)
    summary: dict[str, Any] = {}
    for figure, by_tree in values.items():
        paired = [a / b for a, b in zip(by_tree["after"], by_tree["before"], strict=True) if a is not None and b]
        summary[figure] = {
            **by_tree,
            "median_before": statistics.median(v for v in by_tree["before"] if v is not None),
            "median_after": statistics.median(v for v in by_tree["after"] if v is not None),
            "paired_after_over_before": [round(p, 3) for p in paired],
            "median_paired_after_over_before": round(statistics.median(paired), 3) if paired else None,
        }
    print(
        json.dumps(
            {"bench": command, "before": str(trees["before"]), "figures": summary, "load_average_1min": loads},
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
