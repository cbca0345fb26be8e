"""``localmind export`` / ``localmind import`` run as a user would: separate processes, real files."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from localmind.core.store import ConversationStore


def localmind(data: Path, *args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    # An ASCII-only stdout (a Windows console's code page, a bare C locale) must not break Chinese output.
    env = {**os.environ, "PYTHONIOENCODING": "ascii"}
    return subprocess.run(
        [sys.executable, "-m", "localmind", "--data-dir", str(data), *args],
        input=stdin,
        capture_output=True,
        env=env,
        timeout=60,
        check=False,
    )


@pytest.fixture
def source(tmp_path: Path) -> tuple[Path, list[str]]:
    data = tmp_path / "source"
    with ConversationStore(data / "conversations.sqlite3") as store:
        a = store.create_conversation(
            "长城 trip", system_prompt="Be brief.", settings={"preset": "creative"}, model="phi"
        )
        store.append_message(a.id, "user", "我想去看长城 🧱")
        store.append_message(a.id, "assistant", "Go early.\n\n```sh\necho hi\n```", stats={"tokens_per_second": 8.5})
        b = store.create_conversation("Second")
        store.append_message(b.id, "user", "hello")
        store.append_message(b.id, "assistant", "cut o", status="stopped")
    return data, [a.id, b.id]


def without_ids(export: bytes) -> list[dict[str, object]]:
    return [{k: v for k, v in c.items() if k != "id"} for c in json.loads(export)["conversations"]]


def test_json_to_stdout_then_import_elsewhere_round_trips(source: tuple[Path, list[str]], tmp_path: Path) -> None:
    data, ids = source
    out = localmind(data, "export", "--all", "--format", "json")
    assert out.returncode == 0, out.stderr
    assert "我想去看长城 🧱".encode() in out.stdout
    exported = tmp_path / "backup.json"
    exported.write_bytes(out.stdout)

    target = tmp_path / "target"
    result = localmind(target, "import", str(exported))
    assert result.returncode == 0, result.stderr
    assert b"Imported: 2 conversations" in result.stdout and "长城 trip".encode() in result.stdout

    again = localmind(target, "export", "--format", "json")  # --all is the default
    assert again.returncode == 0, again.stderr
    assert without_ids(again.stdout) == without_ids(out.stdout)
    assert {c["id"] for c in json.loads(again.stdout)["conversations"]} == set(ids)

    # Importing the same export again (from stdin) changes nothing, and says so.
    twice = localmind(target, "import", "-", stdin=out.stdout)
    assert twice.returncode == 0, twice.stderr
    assert twice.stdout.startswith(b"Skipped (already here): 2 conversations\n"), twice.stdout
    listing = localmind(target, "export", "--list")
    assert listing.stdout.decode().count("长城 trip") == 1


def test_markdown_of_one_conversation_to_a_file(source: tuple[Path, list[str]], tmp_path: Path) -> None:
    data, ids = source
    target = tmp_path / "trip.md"
    result = localmind(data, "export", "--conversation", ids[0][:8], "--format", "md", "-o", str(target))
    assert result.returncode == 0, result.stderr
    assert result.stdout == b"" and b"Exported 1 conversation to" in result.stderr
    md = target.read_text(encoding="utf-8")
    assert md.startswith("# 长城 trip\n") and "```sh\necho hi\n```" in md and "Second" not in md


def test_output_suffix_picks_json(source: tuple[Path, list[str]], tmp_path: Path) -> None:
    data, _ = source
    target = tmp_path / "all.json"
    assert localmind(data, "export", "-o", str(target)).returncode == 0
    assert json.loads(target.read_text(encoding="utf-8"))["format"] == "localmind-conversations"


def test_errors_are_one_clear_line(source: tuple[Path, list[str]], tmp_path: Path) -> None:
    data, _ = source
    bad = tmp_path / "notes.md"
    bad.write_text("# not an export\n", encoding="utf-8")
    for args, says in [
        (("import", str(bad)), b"is not JSON"),
        (("import", str(tmp_path / "missing.json")), b"Cannot read"),
        (("export", "--conversation", "ffffffffff"), b"There is no conversation"),
    ]:
        result = localmind(data, *args)
        assert result.returncode == 1, result
        assert result.stderr.startswith(b"localmind: ") and says in result.stderr
        assert b"Traceback" not in result.stderr
    usage = localmind(data, "export", "--all", "--conversation", "x")
    assert usage.returncode == 2 and b"not allowed with" in usage.stderr


def test_a_link_to_a_file_stays_a_link_and_the_file_gets_the_export(
    source: tuple[Path, list[str]], tmp_path: Path
) -> None:
    data, _ = source
    real = tmp_path / "exports" / "chats.json"
    real.parent.mkdir()
    real.write_text("old", encoding="utf-8")
    link = tmp_path / "latest.json"
    link.symlink_to(real)
    proc = localmind(data, "export", "--all", "-o", str(link))
    assert proc.returncode == 0, proc.stderr
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert len(json.loads(real.read_bytes())["conversations"]) == 2


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_pipe_or_device_is_written_to_never_replaced(source: tuple[Path, list[str]], tmp_path: Path) -> None:
    """`-o /dev/full` as root used to put a file in the device's place (write aside, then rename over it). A named
    pipe stands in for the device here: the export must come through it, and it must still be a pipe after."""
    data, _ = source
    pipe = tmp_path / "pipe.json"
    os.mkfifo(pipe)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(pipe.read_bytes()), daemon=True)
    reader.start()
    proc = localmind(data, "export", "--all", "-o", str(pipe))
    reader.join(30)
    assert proc.returncode == 0, proc.stderr
    assert stat.S_ISFIFO(pipe.lstat().st_mode)
    assert len(json.loads(received[0])["conversations"]) == 2


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_a_full_stdout_is_one_line(source: tuple[Path, list[str]]) -> None:
    data, _ = source
    command = [sys.executable, "-m", "localmind", "--data-dir", str(data), "export", "--all"]
    with open("/dev/full", "wb") as full:
        proc = subprocess.run(command, stdout=full, stderr=subprocess.PIPE, timeout=60, check=False)
    assert proc.returncode == 1 and b"Traceback" not in proc.stderr
    assert proc.stderr.decode().startswith("localmind: Cannot write the output: No space left on device.")
