"""A documents question typed at a person's speed, and pasted, against the bare og loop (issue 19). Prints JSON.

    python bench/docs_typeahead.py --model bench/models/smollm2-135m [--model bench/models/qwen3-0.6b] [--rounds 3]

Twenty Markdown files are indexed (keyword search, the model's tokenizer counting the passages), the app is started
as the user starts it (``create_app``: the window, the engine service and its child process) with "Use my documents"
and "Prepare replies while I type" on, and a question is written into the real composer. Per round, in an order that
rotates every round:
- ``typed``: the question typed at ``--cps`` characters a second (7: a fast typist), one key at a time, Enter
  ``--enter-pause-ms`` (500) after the last key: type-ahead searches the draft and reads its passages, then the
  question, while it is typed (issue 19);
- ``pasted``: the same question pasted, Enter at once: nothing is read ahead, the passages are found at Enter;
- ``bare_og``: the plainest og loop (one ``append_tokens`` of the whole prompt, then one token) reading the same
  final prompt (the system part with the documents' instruction, the passages and the question, as tokens).
Enter → first token is the reply's own ``time_to_first_token_s`` (it counts from the Enter key press). Goals:
≤ 0.4 s on the SmolLM2-135M shape, ≤ 1.5 s on the Qwen3-0.6B shape. The load average is printed with each run: the
machine is shared, so the ratios within one run are the figures to read.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from bench.longprompt import bare_og_first_token_s, load_average
from bench.typeahead import pump, wait_until
from localmind import paths
from localmind.app import create_app, create_application
from localmind.documents.chat import PROMPT_KEY, READ_AHEAD_KEY
from localmind.documents.chunking import tokenizer_counter
from localmind.documents.library import Library, index_path
from localmind.engine.devices import physical_cores
from localmind.engine.local import LocalEngine
from localmind.engine.types import ChatMessage, LoadOptions
from localmind.settings import Settings

NEW_TOKENS = 4
QUESTION = "What did the Kestrel survey find about the lighthouse budget and the glacier rain gauge?"
TOPICS = ["kestrel", "lighthouse", "budget", "glacier", "gauge", "survey", "rain"]
FILLER = str.split(
    "the team walked along the coast path every morning and wrote down what they saw in the notebook while the "
    "weather changed from clear to grey and back again before noon when the boats came in with their catch and "
    "the harbour office opened its doors to visitors who asked about the tide tables the ferry times and the "
    "history of the old stone buildings near the quay where fishermen mended their nets"
)


def write_corpus(folder: Path, files: int = 20, seed: int = 3) -> None:
    """``files`` Markdown notes: fifteen of four ~150-word parts, and five short ones (one passage each) about the
    question's subject, so once its first keyword is typed the search finds those five (~1,050 tokens of passages,
    ~1,400 in the prompt with the instruction and the question); later words only reorder them."""
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    for n in range(files):
        sections = []
        for s in range(1 if n < 5 else 4):
            words = [rng.choice(FILLER) for _ in range(165 if n < 5 else 150)]
            if n < 5:
                for _ in range(10):
                    words[rng.randrange(50)] = rng.choice(TOPICS)  # in its first passage only
                words[0] = "kestrel"
            sections.append(f"## Part {s + 1}\n\n" + " ".join(words) + ".")
        (folder / f"note-{n:02d}.md").write_text(f"# Field note {n}\n\n" + "\n\n".join(sections), encoding="utf-8")


def index_documents(model: str, data: Path) -> None:
    corpus = data / "corpus"
    write_corpus(corpus)
    library = Library.open(index_path(), use_embeddings=False)
    library.add([corpus], count=tokenizer_counter(model))
    library.close()


def type_question(box: Any, question: str, cps: float) -> None:
    key_ms = max(1, round(1000 / cps))
    for i, char in enumerate(question):
        box.textCursor().insertText(char)
        if i + 1 < len(question):
            pump(key_ms)


def one_run(model: str, mode: str, args: argparse.Namespace) -> dict[str, Any]:
    data = Path(tempfile.mkdtemp(prefix="docs-typeahead-"))
    paths.set_data_dir(data)
    index_documents(model, data)
    settings = Settings(
        theme="light", language="en", context_budget=args.context, prepare_replies=True, use_documents=True
    )
    settings.generation.temperature = 0.0
    settings.generation.max_new_tokens = NEW_TOKENS
    mind = create_app(model, settings=settings, load_last_model=False)
    mind.window.show()
    try:
        wait_until(lambda: mind.session.model is not None, 300, "the model to load")
        pump(300)
        box = mind.window.composer.input
        box.setFocus()
        started = time.perf_counter()
        if mode == "typed":
            type_question(box, QUESTION, args.cps)
            pump(args.enter_pause_ms)
        else:
            box.textCursor().insertText(QUESTION)
        typing_s = time.perf_counter() - started
        finished: list[Any] = []
        mind.session.turn_finished.connect(finished.append)
        QTest.keyClick(box, Qt.Key.Key_Return)
        wait_until(lambda: bool(finished), 900, "the reply")
        assert mind.session.conversation_id is not None
        question, reply = mind.store.messages(mind.session.conversation_id)[-2:]
        stats = dict(reply.stats or {})
        turn = str((question.stats or {}).get(PROMPT_KEY, ""))
        return {
            "mode": mode,
            "enter_to_first_token_s": round(stats.get("time_to_first_token_s", 0.0), 4),
            "prompt_tokens": stats.get("prompt_tokens"),
            "reused_tokens": stats.get("reused_tokens"),
            "read_after_enter": (stats.get("prompt_tokens") or 0) - (stats.get("reused_tokens") or 0),
            READ_AHEAD_KEY: stats.get(READ_AHEAD_KEY),
            "passages": turn.count("\n["),
            "typing_s": round(typing_s, 2),
            "prefills": mind.typeahead.requests,
            "system": mind.session.engine_history()[0].content,
            "turn": turn,
        }
    finally:
        mind.window.close()
        pump(50)
        paths.set_data_dir(None)


def bare_run(model: Any, og: Any, sizer: LocalEngine, system: str, turn: str, budget: int) -> dict[str, Any]:
    messages = [ChatMessage("system", system), ChatMessage("user", turn)]
    ids = np.asarray(sizer.prompts.encode(sizer.prompts.render(messages)), dtype=np.int32)
    return {"mode": "bare_og", "enter_to_first_token_s": round(bare_og_first_token_s(model, og, ids, budget), 4)}


def bench_model(model_dir: str, args: argparse.Namespace) -> dict[str, Any]:
    import onnxruntime_genai as og

    sizer = LocalEngine()
    sizer.load(model_dir, LoadOptions(device="cpu", context_budget=args.context))
    config = og.Config(model_dir)
    config.clear_providers()
    threads = json.dumps({"model": {"decoder": {"session_options": {"intra_op_num_threads": physical_cores()}}}})
    config.overlay(threads)  # as many threads as LocalMind's engine uses
    bare = og.Model(config)
    entry: dict[str, Any] = {"model": model_dir, "load_average_before": load_average(), "rounds": []}
    modes = ["typed", "pasted", "bare_og"]
    last: dict[str, Any] | None = None
    for r in range(args.rounds):
        for mode in modes[r % 3 :] + modes[: r % 3]:
            if mode == "bare_og":
                if last is None:  # the final prompt comes from a run of the app: run one first
                    last = one_run(model_dir, "pasted", args)
                run = bare_run(bare, og, sizer, last["system"], last["turn"], args.context)
            else:
                run = last = one_run(model_dir, mode, args)
            run = {k: v for k, v in run.items() if k not in ("system", "turn")}
            run["round"], run["load_average_1min"] = r, round(os.getloadavg()[0], 2)
            entry["rounds"].append(run)
            print(json.dumps({"model": Path(model_dir).name, **run}), file=sys.stderr)
    if last is not None:
        passages = last["turn"][: last["turn"].find("My question:")]
        entry["passage_tokens"] = sizer.count_tokens(
            [ChatMessage("system", last["system"]), ChatMessage("user", passages)]
        ) - sizer.count_tokens([ChatMessage("system", last["system"])])
    sizer.unload()
    medians = {
        mode: statistics.median(r["enter_to_first_token_s"] for r in entry["rounds"] if r["mode"] == mode)
        for mode in modes
    }
    entry["median_enter_to_first_token_s"] = medians
    entry["typed_vs_bare"] = round(medians["typed"] / medians["bare_og"], 3)
    entry["pasted_vs_bare"] = round(medians["pasted"] / medians["bare_og"], 3)
    entry["load_average_after"] = load_average()
    return entry


def question_arguments(description: str, rounds: int) -> argparse.ArgumentParser:
    """The arguments of a bench that types QUESTION (this one and docs_typeahead_x.py)."""
    ap = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", action="append", required=True)
    ap.add_argument("--rounds", type=int, default=rounds)
    ap.add_argument("--cps", type=float, default=7.0, help="typing speed, characters a second")
    ap.add_argument("--enter-pause-ms", type=int, default=500, help="from the last key to Enter")
    return ap


def main() -> None:
    ap = question_arguments(__doc__ or "", rounds=3)
    ap.add_argument("--context", type=int, default=8192, help="the passages may take a quarter of it")
    args = ap.parse_args()
    create_application()
    results = {
        "question": QUESTION,
        "cps": args.cps,
        "enter_pause_ms": args.enter_pause_ms,
        "models": [bench_model(m, args) for m in args.model],
    }
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
