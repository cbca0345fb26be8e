"""First paint: how long from launching ``localmind`` until its window is on screen, while the model loads behind it.

    python bench/firstpaint.py [--model bench/models/smollm2-135m ...] [--runs 5] [--store-mb 12]

Starts the real app (``python -m localmind --data-dir D --model M``) under Xvfb + openbox (tests/helpers/xwindow.py)
and reads the times it traces (the test switches of tests/helpers/app_hooks.py: ``LOCALMIND_TEST_TRACE``): its first
paint of the main window and the moment the model is loaded. Beside it, alternating, a bare PySide6 window (a
QMainWindow with a text box) on the same display: what Python + Qt alone take to paint.

Per model, ``--runs`` launches each. The data folder is kept between launches, as a user's is: with
``--store-mb`` it holds a conversation database of about that size (the start-up quick_check runs only when due:
the first launch; later ones exit cleanly, so theirs is skipped — each run says which). Prints JSON: launch ->
window mapped (as the window manager sees it; polled), launch -> first paint, launch -> model loaded. The goal:
first paint <= 1 s, with the model still loading. Check ``uptime`` first; the load average is printed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))

from tests.helpers.xwindow import XDisplay, wait_until  # noqa: E402

BARE_QT = (
    "import time, sys\n"
    "from PySide6.QtCore import QEvent, QObject\n"
    "from PySide6.QtWidgets import QApplication, QMainWindow, QPlainTextEdit\n"
    "app = QApplication(sys.argv)\n"
    "window = QMainWindow(); window.setCentralWidget(QPlainTextEdit()); window.resize(1000, 700)\n"
    "class First(QObject):\n"
    "    def eventFilter(self, obj, event):\n"
    "        if event.type() == QEvent.Type.Paint and getattr(obj, 'window', lambda: None)() is window:\n"
    "            print('painted', f'{time.time():.4f}', flush=True); app.removeEventFilter(self)\n"
    "        return False\n"
    "f = First(); app.installEventFilter(f)\n"
    "window.show(); app.exec()\n"
)


def _trace_time(log: Path, what: str, timeout: float) -> float:
    def found() -> float | None:
        for line in log.read_text(errors="replace").splitlines():
            parts = line.split()
            if len(parts) >= 2 and parts[0] == what:
                return float(parts[1])
        return None

    return float(wait_until(found, timeout, f"'{what}' in {log.name}", poll=0.02))


def _launch_app(x: XDisplay, data: Path, model: Path | None) -> dict[str, Any]:
    from localmind.core.store import quick_check_due

    due = quick_check_due(data / "conversations.sqlite3")
    env = {"LOCALMIND_TEST_HOOKS": "1", "LOCALMIND_TEST_TRACE": "1"}
    started = time.time()
    app = x.start_app(data, model, env=env)  # returns once the window is mapped
    mapped = time.time() - started
    painted = _trace_time(app.log, "painted", 60) - started
    loaded = _trace_time(app.log, "loaded", 600) - started if model is not None else None
    app.close()
    return {
        "window_mapped_s": round(mapped, 3),
        "first_paint_s": round(painted, 3),
        "model_loaded_s": round(loaded, 3) if loaded is not None else None,
        "painted_before_model_loaded": loaded is None or painted < loaded,
        "store_quick_check_due": due,
    }


def _launch_bare(x: XDisplay, scratch: Path) -> dict[str, Any]:
    log = scratch / f"bare-{time.monotonic_ns()}.log"
    started = time.time()
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-c", BARE_QT], env=x.env(), stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    try:
        painted = _trace_time(log, "painted", 60) - started
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    return {"first_paint_s": round(painted, 3)}


def _store(data: Path, megabytes: int) -> None:
    """A conversation database of about ``megabytes`` MB in ``data`` (as a long-time user's)."""
    from tests.faults.helpers import export_data

    from localmind import paths
    from localmind.core import chat_files
    from localmind.core.store import ConversationStore

    paths.set_data_dir(data)
    with ConversationStore() as store:
        while paths.database_path().stat().st_size < megabytes * 2**20:
            chat_files.import_json(store, json.dumps(export_data(100, seed=int(time.monotonic_ns() % 10**6))))
    paths.set_data_dir(None)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", action="append", default=[], help="model folders (default: the tests' tiny model)")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--store-mb", type=int, default=0)
    args = ap.parse_args()
    # As installed: with bytecode. (This machine sets PYTHONDONTWRITEBYTECODE, so a source checkout would compile
    # every module at every start and the figures would be those of a first start after an upgrade.)
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "src")], check=True, capture_output=True)
    scratch = Path(tempfile.mkdtemp(prefix="firstpaint-"))
    models = [Path(m) for m in args.model]
    if not models:
        from tests.helpers.tiny_model import build_tiny_model

        models = [build_tiny_model(scratch / "tiny")]
    out: dict[str, Any] = {
        "runs": args.runs,
        "store_mb": args.store_mb,
        "load_average_before": [round(v, 2) for v in os.getloadavg()],
        "models": {},
    }
    with XDisplay() as x:
        for model in models:
            data = scratch / f"data-{model.name}"
            data.mkdir()
            if args.store_mb:
                _store(data, args.store_mb)
            app_runs: list[dict[str, Any]] = []
            bare_runs: list[dict[str, Any]] = []
            for i in range(args.runs):
                order = ("app", "bare") if i % 2 == 0 else ("bare", "app")
                for what in order:
                    if what == "app":
                        app_runs.append(_launch_app(x, data, model))
                    else:
                        bare_runs.append(_launch_bare(x, scratch))
            paints = [r["first_paint_s"] for r in app_runs]
            bare = [r["first_paint_s"] for r in bare_runs]
            out["models"][model.name] = {
                "first_paint_s_median": round(statistics.median(paints), 3),
                "window_mapped_s_median": round(statistics.median(r["window_mapped_s"] for r in app_runs), 3),
                "model_loaded_s_median": round(statistics.median(r["model_loaded_s"] for r in app_runs), 3),
                "bare_qt_first_paint_s_median": round(statistics.median(bare), 3),
                "goal_first_paint_le_1s": statistics.median(paints) <= 1.0,
                "app": app_runs,
                "bare_qt": bare_runs,
            }
            print(json.dumps({model.name: out["models"][model.name]}), file=sys.stderr)
    out["load_average_after"] = [round(v, 2) for v in os.getloadavg()]
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
