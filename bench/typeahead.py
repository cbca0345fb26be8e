"""Enter → first token, with and without type-ahead, through the real window and the real engine process.

    python bench/typeahead.py --model bench/models/smollm2-135m [--model bench/models/qwen3-0.6b]
        [--history 0 2000] [--lengths 50 500 2000] [--only HISTORY:LENGTH ...] [--modes with without]
        [--cps 7] [--typed-chars 300] [--cold-start]

For each model, chat history size (tokens) and message length (tokens), the app is started as the user
starts it (``create_app``: the window, the inference worker, the engine child process), a conversation with
that much history is opened, and the message is written into the real composer (``insertText`` on the
composer's cursor, so the widget's own signals fire). Then Enter is pressed (a real key event) and the time
to the first token is taken from the reply's stats, which count from the Enter key press
(``time_to_first_token_s``), plus when the first text was shown.

Enter comes ``--enter-pause-ms`` after the last key (default: 250 and 500 ms, each a run with type-ahead; the
run without it uses the first): how long a person waits before pressing Enter decides how much of type-ahead's
last read (the last word and the reply header) is done by then.

Typing is at a person's speed: ``--cps`` characters a second (7: about 85 words a minute, a fast typist),
one character at a time, with a longer pause (``--pause-ms``) after every ``--pause-every`` words and after
each sentence, as people stop to think. A message longer than ``--typed-chars`` characters is pasted except its
last ``--typed-chars`` characters, which are typed: a person writing a 2,000-token message pastes most of it
(typing it would take half an hour) and types the question at the end. Each case runs with type-ahead on and
off (``--modes``), alternating which goes first. Prints JSON, with the load average before and after.

``--cold-start`` also times ``localmind chat --model M --prompt hi --max-new-tokens 1`` against a bare og
loop on the same model (process start to exit) and reads their peak RSS (bench/coldstart.py does this in
full).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from PySide6.QtCore import QEventLoop, Qt, QTimer
from PySide6.QtTest import QTest

from bench.engine import text_of_tokens
from localmind import paths
from localmind.app import create_app, create_application
from localmind.engine.local import LocalEngine
from localmind.engine.types import LoadOptions
from localmind.settings import Settings

NEW_TOKENS = 4


def pump(ms: int) -> None:
    """Run the event loop for ``ms`` as the app's own loop runs it. Not QTest.qWait: that holds Python's GIL the
    whole time (measured: a Python thread beside it ran ~1 % of its speed), which starves the app's inference
    thread — the type-ahead requests it forwards to the engine then leave late, and the send with them."""
    loop = QEventLoop()
    QTimer.singleShot(ms, loop.quit)
    loop.exec()


def wait_until(condition: Any, timeout_s: float, what: str) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out waiting for {what}")
        pump(5)


def history_turns(engine: LocalEngine, tokens: int) -> list[tuple[str, str]]:
    """User/assistant pairs of ~500 tokens each, ``tokens`` in all."""
    turns: list[tuple[str, str]] = []
    seed = 100
    while tokens > 0:
        size = min(250, tokens // 2) if tokens >= 100 else tokens
        turns.append(("user", text_of_tokens(engine, max(size, 8), seed)))
        turns.append(("assistant", text_of_tokens(engine, max(size, 8), seed + 1)))
        tokens -= 2 * size if tokens >= 100 else tokens
        seed += 2
    return turns


def type_like_a_person(box: Any, message: str, args: argparse.Namespace) -> None:
    """Paste all but the last ``typed_chars`` characters, then type those one by one at ``cps``, pausing to think."""
    cut = len(message) - args.typed_chars if 0 < args.typed_chars < len(message) else 0
    pasted, typed = message[:cut], message[cut:]
    if pasted:
        box.textCursor().insertText(pasted)
        pump(args.pause_ms)
    key_ms = max(1, round(1000 / args.cps))
    words = 0
    for i, char in enumerate(typed):
        box.textCursor().insertText(char)
        if char == " ":
            words += 1
        sentence_end = char in ".?!" and (i + 1 == len(typed) or typed[i + 1] == " ")
        thinking = (char == " " and args.pause_every and words % args.pause_every == 0) or sentence_end
        if i + 1 < len(typed):  # after the last key the caller waits --enter-pause-ms, and only that
            pump(args.pause_ms if thinking else key_ms)


def one_run(
    model: str,
    turns: list[tuple[str, str]],
    message: str,
    typeahead: bool,
    enter_pause_ms: int,
    args: argparse.Namespace,
) -> dict[str, Any]:
    data = Path(tempfile.mkdtemp(prefix="typeahead-"))
    paths.set_data_dir(data)
    settings = Settings(theme="light", language="en", context_budget=args.context, prepare_replies=typeahead)
    settings.generation.temperature = 0.0
    settings.generation.max_new_tokens = NEW_TOKENS
    mind = create_app(model, settings=settings, load_last_model=False)
    mind.window.show()
    try:
        wait_until(lambda: mind.session.model is not None, 300, "the model to load")
        prefilled: list[float] = []
        history_tokens = args.history_tokens_now

        def on_prefilled(tokens: int) -> None:
            if tokens >= 0.9 * history_tokens:  # the history was read (not an earlier, smaller request)
                prefilled.append(time.perf_counter())

        mind.service.prefilled.connect(on_prefilled)
        warm_s = None
        if turns:
            conversation = mind.store.create_conversation(title="bench", system_prompt="", settings={})
            for role, text in turns:
                mind.store.append_message(conversation.id, role, text)
            mind.reload_conversations()
            opened = time.perf_counter()
            mind.open_conversation(conversation.id)
            if typeahead:  # warm reopen: the history is read in the background
                wait_until(lambda: bool(prefilled), 600, "the history to be read")
                warm_s = prefilled[-1] - opened
        box = mind.window.composer.input
        box.setFocus()
        typing_started = time.perf_counter()
        type_like_a_person(box, message, args)
        typing_s = time.perf_counter() - typing_started
        pump(enter_pause_ms)
        shown: list[float] = []
        mind.session.reply_delta.connect(lambda _t: shown or shown.append(time.perf_counter()))
        finished: list[Any] = []
        mind.session.turn_finished.connect(finished.append)
        enter_at = time.perf_counter()
        QTest.keyClick(box, Qt.Key.Key_Return)
        wait_until(lambda: bool(finished), 900, "the reply")
        assert mind.session.conversation_id is not None
        reply = mind.store.messages(mind.session.conversation_id)[-1]
        stats = dict(reply.stats or {})
        return {
            "typeahead": typeahead,
            "enter_pause_ms": enter_pause_ms,
            "enter_to_first_token_s": round(stats.get("time_to_first_token_s", 0.0), 4),
            "enter_to_first_text_shown_s": round(shown[0] - enter_at, 4) if shown else None,
            "prompt_tokens": stats.get("prompt_tokens"),
            "reused_tokens": stats.get("reused_tokens"),
            "read_after_enter": (stats.get("prompt_tokens") or 0) - (stats.get("reused_tokens") or 0),
            "typing_s": round(typing_s, 2),
            "warm_reopen_s": round(warm_s, 3) if warm_s is not None else None,
            "prefills": mind.typeahead.requests,
        }
    finally:
        mind.window.close()
        pump(50)
        paths.set_data_dir(None)


def cold_start(model: str) -> dict[str, Any]:
    """``localmind chat … --max-new-tokens 1`` vs a bare og loop: wall time and peak RSS (VmHWM) of each."""
    bare = (
        "import sys,onnxruntime_genai as og;m=og.Model(sys.argv[1]);t=og.Tokenizer(m);"
        "p=og.GeneratorParams(m);p.set_search_options(max_length=256);g=og.Generator(m,p);"
        "g.append_tokens(t.encode('hi'));g.generate_next_token()"
    )
    wrapper = (  # prints the process's own peak RSS (VmHWM) at exit
        "import runpy,sys,atexit\n"
        "def _hwm():\n"
        "    for l in open('/proc/self/status'):\n"
        "        if l.startswith('VmHWM'): sys.stderr.write('HWM '+l.split()[1]+'\\n')\n"
        "atexit.register(_hwm)\n"
    )
    commands = {
        "localmind_chat": [
            "-c",
            wrapper + "sys.argv=['localmind','chat','--model',sys.argv[1],'--prompt','hi','--max-new-tokens','1'];"
            "runpy.run_module('localmind',run_name='__main__')",
            model,
        ],
        "bare_og": ["-c", wrapper + bare, model],
    }
    out: dict[str, Any] = {}
    for _round in range(3):
        for name, argv in commands.items():
            env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "src")}
            started = time.perf_counter()
            done = subprocess.run([sys.executable, *argv], capture_output=True, text=True, env=env, check=False)
            wall = time.perf_counter() - started
            rss = [int(line.split()[1]) for line in done.stderr.splitlines() if line.startswith("HWM ")]
            out.setdefault(name, []).append(
                {"wall_s": round(wall, 3), "peak_rss_mb": round(rss[-1] / 1024, 1) if rss else None}
            )
    summary = {
        name: {"wall_s_median": sorted(r["wall_s"] for r in runs)[1], "runs": runs} for name, runs in out.items()
    }
    summary["extra_s"] = round(summary["localmind_chat"]["wall_s_median"] - summary["bare_og"]["wall_s_median"], 3)
    return summary


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", action="append", required=True)
    ap.add_argument("--history", type=int, nargs="+", default=[0, 2000])
    ap.add_argument("--lengths", type=int, nargs="+", default=[50, 500, 2000])
    ap.add_argument("--only", nargs="*", default=[], help="HISTORY:LENGTH pairs to run (default: all)")
    ap.add_argument("--modes", nargs="+", choices=["with", "without"], default=["with", "without"])
    ap.add_argument("--cps", type=float, default=7.0, help="typing speed, characters a second")
    ap.add_argument("--pause-every", type=int, default=5, help="a thinking pause after this many words")
    ap.add_argument("--pause-ms", type=int, default=700, help="a thinking pause (also after a sentence or a paste)")
    ap.add_argument("--typed-chars", type=int, default=300, help="typed at the end of a longer, pasted message")
    ap.add_argument(
        "--enter-pause-ms",
        type=int,
        nargs="+",
        default=[250, 500],
        help="from the last key to Enter; type-ahead runs once per value, the run without it at the first",
    )
    ap.add_argument("--context", type=int, default=4608)
    ap.add_argument(
        "--end", default="", help='appended to each message, e.g. "?" (a question: type-ahead reads at once after it)'
    )
    ap.add_argument("--cold-start", action="store_true")
    args = ap.parse_args()
    create_application()
    results: dict[str, Any] = {
        "settings": {
            "cps": args.cps,
            "pause_every_words": args.pause_every,
            "pause_ms": args.pause_ms,
            "typed_chars": args.typed_chars,
            "enter_pause_ms": args.enter_pause_ms,
            "new_tokens": NEW_TOKENS,
            "message_ends_with": args.end,
        },
        "load_average_before": [round(v, 2) for v in os.getloadavg()],
        "models": {},
    }
    flip = False
    for model in args.model:
        name = Path(model).name
        sizer = LocalEngine()
        sizer.load(model, LoadOptions(device="cpu", context_budget=args.context))
        entry: dict[str, Any] = {"cases": []}
        for history in args.history:
            turns = history_turns(sizer, history) if history else []
            args.history_tokens_now = history
            for length in args.lengths:
                if args.only and f"{history}:{length}" not in args.only:
                    continue
                message = text_of_tokens(sizer, length, seed=7) + args.end
                # (type-ahead, pause before Enter): with it at every pause, without it at the first.
                modes = [(True, pause) for pause in args.enter_pause_ms] if "with" in args.modes else []
                if "without" in args.modes:
                    modes.append((False, args.enter_pause_ms[0]))
                runs: dict[tuple[bool, int], dict[str, Any]] = {}
                for mode in modes if not flip else modes[::-1]:
                    runs[mode] = one_run(model, turns, message, mode[0], mode[1], args)
                    runs[mode]["load_average_1min"] = round(os.getloadavg()[0], 2)
                    print(
                        json.dumps({"model": name, "history": history, "length": length, **runs[mode]}), file=sys.stderr
                    )
                flip = not flip
                off = runs.get((False, args.enter_pause_ms[0]))
                case: dict[str, Any] = {"history_tokens": history, "message_tokens": length}
                for (typeahead, pause), run in runs.items():
                    if not typeahead:
                        continue
                    on = case.setdefault("with_typeahead", {})[f"enter_after_{pause}_ms"] = dict(run)
                    on["goal_le_0.150_s"] = run["enter_to_first_token_s"] <= 0.150
                    if off and off["enter_to_first_token_s"]:
                        on["ttft_ratio_with_over_without"] = round(
                            run["enter_to_first_token_s"] / off["enter_to_first_token_s"], 4
                        )
                if off:
                    case["without"] = off
                entry["cases"].append(case)
        sizer.unload()
        if args.cold_start:
            entry["cold_start"] = cold_start(model)
        results["models"][name] = entry
    results["load_average_after"] = [round(v, 2) for v in os.getloadavg()]
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
