"""A documents question typed into the real window with real keys (issue 19's "done when"). Prints JSON.

    python bench/docs_typeahead_x.py --model bench/models/qwen3-0.6b [--model bench/models/smollm2-135m] [--rounds 2]

The real app (``localmind --data-dir D --model M``) under Xvfb with a window manager, as a user starts it, with
bench/docs_typeahead.py's twenty Markdown notes added by ``localmind docs add``, the default settings (type-ahead
on) but for a short answer (16 tokens: the answer's length does not change when its first token comes). "Use my
documents" is turned on with its shortcut (Ctrl+Shift+D), the question is typed with real X key events (xdotool) at
``--cps`` keys a second, and Enter comes ``--enter-pause-ms`` after the last key. Read from what the app stored:
Enter → first token (the answer's own ``time_to_first_token_s``, counted from the Enter key), the prompt's tokens
and how many were read before Enter (``reused_tokens``), how many passages the read-ahead had in place
(``passages_read_ahead``), and the files the answer cites. A screenshot of each model's last round goes to
build/screenshots/. Goals: ≤ 1.5 s on the Qwen3-0.6B shape, ≤ 0.4 s on the SmolLM2-135M shape, with the load
average of each run (the machine is shared). Needs Xvfb, openbox and xdotool (tests/helpers/xwindow.py).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))

from tests.helpers.xwindow import XDisplay, require_x  # noqa: E402

from bench.docs_typeahead import QUESTION, question_arguments, write_corpus  # noqa: E402
from localmind.settings import GenerationDefaults, Settings, save_settings  # noqa: E402

SHOTS = ROOT / "build" / "screenshots"


def one_round(model: Path, cps: float, enter_pause_ms: int, shot: Path) -> dict[str, Any]:
    data = Path(tempfile.mkdtemp(prefix="docs-x-")) / "data"
    data.mkdir(parents=True)
    save_settings(Settings(generation=GenerationDefaults(max_new_tokens=16)), data / "settings.json")
    corpus = data.parent / "corpus"
    write_corpus(corpus)
    added = subprocess.run(
        [sys.executable, "-m", "localmind", "--data-dir", str(data), "docs", "add", str(corpus), "--json"],
        capture_output=True, text=True, timeout=300, check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
    )  # fmt: skip
    if added.returncode != 0:
        raise RuntimeError(added.stderr[-2000:])
    with XDisplay() as x:
        app = x.start_app(data, model)
        app.wait_model_loaded(model, timeout=600)
        app.activate()
        time.sleep(1.0)
        x.key("ctrl+shift+d")  # "Use my documents" on
        time.sleep(0.5)
        load_before = os.getloadavg()[0]
        started = time.perf_counter()
        x.type(QUESTION, delay_ms=max(1, round(2000 / cps)))  # xdotool: half the delay per key
        typing_s = time.perf_counter() - started
        time.sleep(enter_pause_ms / 1000)
        x.key("Return")
        app.wait_until(lambda: [m for m in app.messages("assistant") if m[2] == "complete"], 900, "the answer")
        x.screenshot(shot)
        (raw_question, _), (raw_answer, _) = app.query("SELECT stats, content FROM messages ORDER BY position")
        app.close()
    question, answer = json.loads(raw_question or "{}"), json.loads(raw_answer or "{}")
    turn = str(question.get("documents_prompt", ""))
    return {
        "enter_to_first_token_s": round(float(answer.get("time_to_first_token_s", 0.0)), 4),
        "prompt_tokens": answer.get("prompt_tokens"),
        "reused_tokens": answer.get("reused_tokens"),
        "read_after_enter": (answer.get("prompt_tokens") or 0) - (answer.get("reused_tokens") or 0),
        "passages_read_ahead": answer.get("passages_read_ahead"),
        "passages": turn.count("\n["),
        "cited": sorted({str(s.get("file", "")).rsplit("/", 1)[-1] for s in answer.get("sources", [])}),
        "typing_s": round(typing_s, 2),
        "load_average_1min": [round(load_before, 2), round(os.getloadavg()[0], 2)],
    }


def main() -> None:
    args = question_arguments(__doc__ or "", rounds=2).parse_args()
    require_x()
    report: dict[str, Any] = {"question": QUESTION, "cps": args.cps, "enter_pause_ms": args.enter_pause_ms}
    goals = {"qwen3-0.6b": 1.5, "smollm2-135m": 0.4}
    for name in args.model:
        model = Path(name).resolve()
        shot = SHOTS / f"documents-x-read-ahead-{model.name}.png"
        runs = []
        for r in range(args.rounds):
            run = one_round(model, args.cps, args.enter_pause_ms, shot)
            print(json.dumps({"model": model.name, "round": r, **run}), file=sys.stderr, flush=True)
            runs.append(run)
        firsts = sorted(run["enter_to_first_token_s"] for run in runs)
        goal = goals.get(model.name)
        report[model.name] = {
            "runs": runs,
            "median_enter_to_first_token_s": firsts[len(firsts) // 2],
            "goal_s": goal,
            "screenshot": str(shot.relative_to(ROOT)),
        }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
