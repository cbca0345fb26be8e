"""How long hostile message content holds the window; prints JSON.

    python bench/ui_hostile.py [--repeat 3] [--quick]

For each case, a conversation of one user message and one answer with that content is opened in the real
chat view (set_messages, then events until it is laid out and painted) and the longest single main-thread
stall is reported (ms), alternating the cases' order between repeats. Cases (issue 10.8): 2,000 nested list
levels; 10,000 nested list markers on one line (``* * * … x``); 10,000 nested quote markers (``> > … x``);
20,000 ``*`` around a word; a 2,000-line title shown in the header and the sidebar, then a new chat (Ctrl+N).
``baseline_answer`` is an ordinary answer (headings, lists, code, a table; ~4,000 characters) for scale: on a
busy machine every figure grows, so compare with it. Goal: every stall <= 100 ms on an idle machine.

Runs offscreen unless QT_QPA_PLATFORM is set. Uses no model.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtWidgets import QApplication


@dataclass
class BenchMessage:
    id: int
    role: str
    content: str
    status: str = "complete"


BASELINE = (
    "## Plan\n\nFirst **install** the package, then `run` it.\n\n- one\n- two\n  - nested\n\n"
    "```python\nprint('hello')\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n> a note\n\n"
) * 30


def cases(scale: float) -> dict[str, str]:
    n = lambda k: max(10, int(k * scale))  # noqa: E731
    return {
        "nested_lists_2000": "\n".join("  " * i + f"- level {i}" for i in range(n(2000))),
        "list_markers_10000": "* " * n(10000) + "x",
        "quote_markers_10000": "> " * n(10000) + "x",
        "stars_20000": "*" * n(10000) + "word" + "*" * n(10000),
        "baseline_answer": BASELINE,
        "deep_quote_50": "\n".join("> " * (i + 1) + f"quote level {i + 1} with a few words" for i in range(50)),
    }


def settle(app: QApplication) -> None:
    for _ in range(3):
        app.processEvents()


def timed(app: QApplication, action: Callable[[], None]) -> float:
    started = time.perf_counter()
    action()
    settle(app)
    return (time.perf_counter() - started) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="a tenth of each size (a smoke run)")
    args = parser.parse_args()
    scale = 0.1 if args.quick else 1.0

    from localmind.app import create_app
    from localmind.core.store import ConversationStore
    from localmind.engine.fake import FakeEngine
    from localmind.settings import Settings
    from localmind.ui.chat_view import ChatView

    app = QApplication.instance() or QApplication(sys.argv[:1])
    assert isinstance(app, QApplication)
    view = ChatView()
    view.resize(900, 700)
    view.show()
    settle(app)
    texts = cases(scale)
    results: dict[str, list[float]] = {name: [] for name in texts}
    for round_ in range(args.repeat):
        order = list(texts) if round_ % 2 == 0 else list(reversed(texts))
        for name in order:
            messages = [BenchMessage(1, "user", "show me"), BenchMessage(2, "assistant", texts[name])]
            results[name].append(timed(app, lambda m=messages: view.set_messages(m)))  # type: ignore[misc]
            view.set_messages([])
            settle(app)

    # A 2,000-line title: open its chat, then start a new chat.
    import tempfile
    from pathlib import Path

    from localmind import paths

    folder = Path(tempfile.mkdtemp(prefix="localmind-hostile-"))
    paths.set_data_dir(folder)
    store = ConversationStore(folder / "conversations.sqlite3")
    title = "\n".join(f"title line {i}" for i in range(int(2000 * scale) or 10))
    conversation = store.create_conversation(title=title)
    store.append_message(conversation.id, "user", "hi")
    store.close()
    mind = create_app(None, engine_factory=FakeEngine, settings=Settings(language="en"), load_last_model=False)
    mind.window.show()
    settle(app)
    title_open, title_new = [], []
    for _ in range(args.repeat):
        title_open.append(timed(app, lambda: mind.open_conversation(conversation.id)))
        title_new.append(timed(app, mind.new_chat))
    mind.window.close()

    report = {
        "scale": scale,
        "stall_ms": {name: round(max(values), 1) for name, values in results.items()},
        "median_ms": {name: round(statistics.median(values), 1) for name, values in results.items()},
        "title_2000_lines": {"open_ms": round(max(title_open), 1), "new_chat_ms": round(max(title_new), 1)},
        "goal_ms": 100,
    }
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
