"""``kill -9`` in the middle of indexing: the index stays sound and the same command finishes the job."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]


def test_kill_9_while_indexing_then_run_again(tmp_path: Path) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    for n in range(400):
        (folder / f"n{n:03}.md").write_text(f"# Note {n}\n\nHarbour item {n * 7} was logged.\n\n" + "Filler. " * 300)
    data = tmp_path / "data"
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    argv = [sys.executable, "-m", "localmind", "--data-dir", str(data), "docs", "add", str(folder), "--json"]
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    database = data / "documents.sqlite3"

    def indexed() -> int:
        try:
            with sqlite3.connect(database, timeout=5) as db:
                return int(db.execute("SELECT count(*) FROM files WHERE state = 'indexed'").fetchone()[0])
        except sqlite3.Error:
            return 0

    deadline = time.monotonic() + 60
    while indexed() < 20 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    done = indexed()
    assert 0 < done < 400, done  # killed part way

    with sqlite3.connect(database) as db:
        assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        pending = db.execute("SELECT count(*) FROM files WHERE state = 'pending'").fetchone()[0]
        assert pending == 400 - done  # the rest is recorded as waiting
        # Whole files only: every indexed file has exactly the passages it says.
        assert (
            db.execute(
                "SELECT count(*) FROM files f WHERE f.chunks != (SELECT count(*) FROM chunks c WHERE c.file_id = f.id)"
            ).fetchone()[0]
            == 0
        )

    again = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert again.returncode == 0, again.stderr
    counts = json.loads(again.stdout)
    assert counts["added_files"] == 400 - done and counts["removed_chunks"] == 0
    with sqlite3.connect(database) as db:
        assert db.execute("SELECT count(*) FROM files WHERE state = 'indexed'").fetchone()[0] == 400
        assert (
            db.execute("SELECT count(*) FROM chunks").fetchone()[0]
            == db.execute("SELECT count(*) FROM chunk_search").fetchone()[0]
        )
