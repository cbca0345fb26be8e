"""``localmind chat`` and ``localmind info`` as a user runs them: real subprocesses."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.helpers.tiny_model import REPLIES


def localmind(*args: str, stdin: str | None = None, data_dir: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    if data_dir is not None:
        env["LOCALMIND_DATA_DIR"] = str(data_dir)
    return subprocess.run(
        [sys.executable, "-m", "localmind", *args], input=stdin, capture_output=True, text=True, timeout=120, env=env
    )


def test_prompt_prints_the_reply_and_exits_zero(tiny_model: Path) -> None:
    proc = localmind("chat", "--model", str(tiny_model), "--prompt", "hi", "--temperature", "0")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.rstrip("\n") in REPLIES
    assert proc.stderr == ""


def test_stats_go_to_stderr(tiny_model: Path) -> None:
    proc = localmind("chat", "--model", str(tiny_model), "--prompt", "hi", "--stats", "--device", "cpu")
    assert proc.returncode == 0
    assert proc.stdout.rstrip("\n") in REPLIES
    assert "ttft" in proc.stderr and "tok/s" in proc.stderr and "[cpu]" in proc.stderr


def test_prompt_from_stdin_and_system_prompt(tiny_model: Path) -> None:
    proc = localmind("chat", "--model", str(tiny_model), "--prompt", "-", "--system", "Be brief.", stdin="你好 🙂")
    assert proc.returncode == 0 and proc.stdout.rstrip("\n") in REPLIES


def test_prompt_from_stdin_that_is_not_utf8(tiny_model: Path) -> None:
    """A file in another encoding piped in (here Latin-1 "café"): its bad byte is read as U+FFFD, not a traceback."""
    proc = subprocess.run(
        [sys.executable, "-m", "localmind", "chat", "--model", str(tiny_model), "--prompt", "-"],
        input="caf\u00e9 au lait".encode("latin-1"), capture_output=True, timeout=120, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    assert proc.stdout.decode().rstrip("\n") in REPLIES and proc.stderr == b""


def test_interactive_chat_reuses_the_cache(tiny_model: Path) -> None:
    proc = localmind(
        "chat", "--model", str(tiny_model), "--stats", "--temperature", "0", stdin="hi\nand again\nthird\n"
    )
    assert proc.returncode == 0, proc.stderr
    replies = proc.stdout.strip("\n").split("\n")
    assert len(replies) == 3 and all(r in REPLIES for r in replies)
    stats = [line for line in proc.stderr.splitlines() if "ttft" in line]
    assert "(0 reused)" in stats[0]
    assert "(0 reused)" not in stats[1] and "(0 reused)" not in stats[2]


def test_bad_options_exit_nonzero_with_one_line(tiny_model: Path) -> None:
    proc = localmind("chat", "--model", str(tiny_model), "--prompt", "hi", "--temperature", "-1")
    assert proc.returncode == 1 and proc.stderr.count("\n") == 1 and "Temperature" in proc.stderr
    proc = localmind("chat", "--model", str(tiny_model), "--prompt", "   ")
    assert proc.returncode == 1 and "empty" in proc.stderr


def test_info_reports_versions_devices_and_folders(tiny_model: Path, tmp_path: Path) -> None:
    proc = localmind("--data-dir", str(tmp_path / "d"), "info", "--model", str(tiny_model), "--json")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["onnxruntime_genai"].startswith("0.18")
    assert report["data_dir"] == str((tmp_path / "d").resolve())
    devices = {d["device"]: d for d in report["devices"]}
    assert devices["cpu"]["ok"] is True
    assert devices["dml"]["ok"] is False and "DML" in devices["dml"]["reason"]
    human = localmind("info")
    assert human.returncode == 0 and "onnxruntime-genai 0.18" in human.stdout and "Data folder" in human.stdout


def test_data_dir_after_the_subcommand(tmp_path: Path) -> None:
    proc = localmind("info", "--json", "--data-dir", str(tmp_path / "late"))
    assert json.loads(proc.stdout)["data_dir"] == str((tmp_path / "late").resolve())


def test_data_dir_env_is_honoured(tmp_path: Path) -> None:
    proc = localmind("info", "--json", data_dir=tmp_path / "env-dir")
    assert json.loads(proc.stdout)["data_dir"] == str((tmp_path / "env-dir").resolve())
