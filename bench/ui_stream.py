"""Chat view streaming and opening costs; prints JSON.

    python bench/ui_stream.py [--tokens-per-batch 8] [--answer-tokens 4000] [--quick]

- batch_ms: time to apply one token batch (append_to_last + the layout and paint it causes) around
  answer token 100 and token 4,000, for four answer shapes: mixed Markdown, one long code block, one
  long paragraph, one long table. Goal: ratio <= 2.
- lag_ms: main-thread lateness of a 5 ms probe timer while a QTimer streams a long answer into the view
  every 30 ms (goal p99 <= 16 ms); complete_ms: the one Markdown render when the answer completes.
- open_ms: set_messages() of a 2,000-message conversation until laid out and painted (goal <= 300 ms).

Runs offscreen unless QT_QPA_PLATFORM is set. Uses no model: the text is synthetic.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import time
from dataclasses import dataclass

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication

from localmind.ui.chat_view import ChatView


@dataclass
class BenchMessage:
    id: int
    role: str
    content: str
    status: str = "complete"


_SECTIONS = [
    "## Step {n}: set up the project\n\nFirst create a virtual environment and install the package. The "
    "**important** part is to pin the version so that a later release cannot break your build, and to keep "
    "`requirements.txt` under version control together with the code.\n",
    "- Use `python -m venv .venv` to create it\n- Activate it with `source .venv/bin/activate`\n"
    "- Install with `pip install -e .`\n  and check the result with `pip list`\n",
    "```python\ndef load(path: str) -> dict[str, int]:\n    counts: dict[str, int] = {{}}\n"
    '    with open(path, encoding="utf-8") as f:\n        for line in f:\n'
    "            word = line.strip()\n            counts[word] = counts.get(word, 0) + 1  # step {n}\n"
    "    return counts\n```\n",
    "| Option | Default | Meaning |\n|---|---|---|\n| `--threads` | 4 | worker threads |\n"
    "| `--verbose` | off | more output |\n",
    "> Note: this works on Linux, macOS and Windows alike. See [the guide](https://example.org/guide/{n}).\n",
]


def markdown_answer(min_chars: int) -> str:
    parts: list[str] = []
    n = 0
    while sum(map(len, parts)) < min_chars:
        parts.append(_SECTIONS[n % len(_SECTIONS)].format(n=n))
        n += 1
    return "\n".join(parts)


def code_answer(min_chars: int) -> str:
    lines = ["```python"]
    i = 0
    while sum(map(len, lines)) < min_chars:
        lines.append(f"    result_{i} = compute(values[{i}], factor={i % 7}) + offset  # line {i}")
        i += 1
    return "\n".join(lines)


def paragraph_answer(min_chars: int) -> str:
    words = [
        "the",
        "model",
        "writes",
        "one",
        "very",
        "long",
        "paragraph",
        "with",
        "**bold**",
        "and",
        "`code`",
        "but",
        "no",
        "line",
        "break",
        "at",
        "all",
    ]
    out: list[str] = []
    i = 0
    while sum(len(w) + 1 for w in out) < min_chars:
        out.append(words[i % len(words)])
        i += 1
    return "Intro line.\n\n" + " ".join(out)


def table_answer(min_chars: int) -> str:
    rows = ["| # | Name | Value | Note |", "|---|---|---|---|"]
    i = 0
    while sum(map(len, rows)) < min_chars:
        rows.append(f"| {i} | item {i} | {i * 37 % 1000} | `ok` |")
        i += 1
    return "A table:\n\n" + "\n".join(rows)


def tokens_of(text: str) -> list[str]:
    """Roughly LLM-sized pieces (about 4 characters), keeping every character."""
    return re.findall(r"\s*[^\s]{1,5}|\s+", text)


def history(count: int) -> list[BenchMessage]:
    messages = []
    for i in range(count):
        if i % 2 == 0:
            messages.append(BenchMessage(i + 1, "user", f"Question number {i}: how do I do step {i} of the setup?"))
        else:
            messages.append(BenchMessage(i + 1, "assistant", markdown_answer(600 + (i % 5) * 300)))
    return messages


def settle(app: QApplication) -> None:
    app.sendPostedEvents()
    app.processEvents()


def new_view(app: QApplication, history_count: int) -> ChatView:
    view = ChatView()
    view.resize(1000, 900)
    view.show()
    view.set_messages(history(history_count))
    settle(app)
    return view


def batch_costs(app: QApplication, text: str, per_batch: int, points: list[int], window: int) -> dict[str, float]:
    """Median and mean ms per batch for batches whose first token lies within ``window`` tokens of each point."""
    tokens = tokens_of(text)
    view = new_view(app, 40)
    view.append_message(BenchMessage(10_000, "assistant", "", "streaming"))
    settle(app)
    samples: dict[int, list[float]] = {p: [] for p in points}
    for start in range(0, len(tokens), per_batch):
        batch = "".join(tokens[start : start + per_batch])
        t0 = time.perf_counter()
        view.append_to_last(batch)
        settle(app)
        elapsed = (time.perf_counter() - t0) * 1000
        for p in points:
            if p - window <= start < p + window:
                samples[p].append(elapsed)
        if start > max(points) + window:
            break
    view.close()
    view.deleteLater()
    settle(app)
    first, last = samples[points[0]], samples[points[-1]]
    return {
        f"median_at_{points[0]}": round(statistics.median(first), 3),
        f"median_at_{points[-1]}": round(statistics.median(last), 3),
        f"mean_at_{points[0]}": round(statistics.mean(first), 3),
        f"mean_at_{points[-1]}": round(statistics.mean(last), 3),
        # Means count the occasional throttled re-render of a growing table that medians skip.
        "ratio_median": round(statistics.median(last) / statistics.median(first), 2),
        "ratio_mean": round(statistics.mean(last) / statistics.mean(first), 2),
    }


def streaming_lag(app: QApplication, text: str, per_batch: int) -> dict[str, float | int]:
    tokens = tokens_of(text)
    view = new_view(app, 40)
    view.append_message(BenchMessage(10_000, "assistant", "", "streaming"))
    settle(app)
    lateness: list[float] = []
    batch_ms: list[float] = []
    state = {"next": 0, "last_probe": time.perf_counter()}

    def feed() -> None:
        start = int(state["next"])
        if start >= len(tokens):
            feeder.stop()
            probe.stop()
            app.quit()
            return
        t0 = time.perf_counter()
        view.append_to_last("".join(tokens[start : start + per_batch]))
        batch_ms.append((time.perf_counter() - t0) * 1000)
        state["next"] = start + per_batch

    def on_probe() -> None:
        now = time.perf_counter()
        lateness.append(max(0.0, (now - state["last_probe"]) * 1000 - 5.0))
        state["last_probe"] = now

    feeder = QTimer()
    feeder.setTimerType(Qt.TimerType.PreciseTimer)
    feeder.setInterval(30)
    feeder.timeout.connect(feed)
    probe = QTimer()
    probe.setTimerType(Qt.TimerType.PreciseTimer)
    probe.setInterval(5)
    probe.timeout.connect(on_probe)
    state["last_probe"] = time.perf_counter()
    feeder.start()
    probe.start()
    app.exec()
    t0 = time.perf_counter()
    view.update_message(10_000, status="complete")
    settle(app)
    complete_ms = (time.perf_counter() - t0) * 1000
    view.close()
    view.deleteLater()
    settle(app)
    lateness.sort()
    return {
        "answer_tokens": len(tokens),
        "batches": len(batch_ms),
        "probe_samples": len(lateness),
        "p50": round(lateness[len(lateness) // 2], 2),
        "p99": round(lateness[int(len(lateness) * 0.99)], 2),
        "max": round(lateness[-1], 2),
        "append_call_p99": round(sorted(batch_ms)[int(len(batch_ms) * 0.99)], 3),
        "complete_ms": round(complete_ms, 1),
    }


def open_conversation(app: QApplication, count: int, runs: int) -> dict[str, float | int]:
    messages = history(count)
    view = ChatView()
    view.resize(1000, 900)
    view.show()
    settle(app)
    call_ms: list[float] = []
    painted_ms: list[float] = []
    for _ in range(runs):
        view.clear()
        settle(app)
        t0 = time.perf_counter()
        view.set_messages(messages)
        call_ms.append((time.perf_counter() - t0) * 1000)
        settle(app)
        view.repaint()  # the first frame the user sees
        painted_ms.append((time.perf_counter() - t0) * 1000)
    built = view.built_message_count()
    view.close()
    return {
        "messages": count,
        "built_widgets": built,
        "set_messages_median": round(statistics.median(call_ms), 1),
        "until_painted_median": round(statistics.median(painted_ms), 1),
        "until_painted_max": round(max(painted_ms), 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tokens-per-batch", type=int, default=8)
    parser.add_argument("--answer-tokens", type=int, default=4000)
    parser.add_argument("--quick", action="store_true", help="shorter lag run (1,000 tokens)")
    args = parser.parse_args(argv)
    app = QApplication.instance() or QApplication(sys.argv[:1])
    assert isinstance(app, QApplication)
    per_batch = args.tokens_per_batch
    long_chars = args.answer_tokens * 5
    points = [100, args.answer_tokens]
    window = 10 * per_batch
    result = {
        "platform": QApplication.platformName(),
        "tokens_per_batch": per_batch,
        "batch_ms": {
            "markdown_mix": batch_costs(app, markdown_answer(long_chars), per_batch, points, window),
            "one_code_block": batch_costs(app, code_answer(long_chars), per_batch, points, window),
            "one_paragraph": batch_costs(app, paragraph_answer(long_chars), per_batch, points, window),
            "one_table": batch_costs(app, table_answer(long_chars), per_batch, points, window),
        },
        "lag_ms": streaming_lag(app, markdown_answer((1000 if args.quick else args.answer_tokens) * 4), per_batch),
        "open_ms": open_conversation(app, 2000, 5),
    }
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
