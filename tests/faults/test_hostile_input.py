"""Issue 10 items 9 and 10, issue 9 item 9: hostile imports and bad numbers get one clear line, never a traceback."""

from __future__ import annotations

import json
import struct
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from localmind.core import chat_files
from localmind.core.store import ConversationStore
from localmind.errors import UserFacingError
from tests.faults import helpers


def localmind(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "localmind", *args],
        capture_output=True,
        text=True,
        input=stdin.decode() if stdin else None,
        timeout=120,
    )


def one(title: str = "ok", created_at: float = 1_700_000_000, **extra: object) -> str:
    conversation = {"title": title, "created_at": created_at, "messages": [{"role": "user", "content": "hi"}], **extra}
    return json.dumps({"format": "localmind-conversations", "version": 1, "conversations": [conversation]})


def test_titles_become_one_sane_line(data_dir: Path) -> None:
    hostile = "\n\n  first   line\u0007 <b>x</b>\nsecond line\n" + "y" * 5000 + "\n" * 2000
    with ConversationStore() as store:
        [c] = chat_files.import_json(store, one(hostile))
        assert c.title == "first line <b>x</b>"
        [long] = chat_files.import_json(store, one("z" * 5000))
        assert len(long.title) == chat_files.TITLE_MAX_CHARS and long.title.endswith("…")


@pytest.mark.parametrize("when", [1e308, -1, 1e12 * 1000])
def test_times_out_of_range_are_refused(data_dir: Path, when: float) -> None:
    with ConversationStore() as store, pytest.raises(UserFacingError, match="not a time between 1970 and 9999"):
        chat_files.import_json(store, one(created_at=when))
        # Before: 1e308 was stored and later crashed ``export --list`` and ``--format md``.


def test_a_100k_deep_json_is_a_clear_error(data_dir: Path, tmp_path: Path) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    result = localmind("import", str(deep))
    assert result.returncode == 1 and "Traceback" not in result.stderr and "RecursionError" not in result.stderr
    assert result.stderr.startswith("localmind: ") and "nested too deeply" in result.stderr
    assert result.stderr.count("\n") == 1


def lying_zip(path: Path, declared: int) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("m/genai_config.json", "{}")
        z.writestr("m/model.onnx", b"x" * 100_000)
    data = bytearray(path.read_bytes())
    i = data.find(b"PK\x01\x02")
    while i != -1:  # the central directory's uncompressed size of model.onnx
        name_len = struct.unpack("<H", data[i + 28 : i + 30])[0]
        if data[i + 46 : i + 46 + name_len] == b"m/model.onnx":
            struct.pack_into("<I", data, i + 24, declared)
        i = data.find(b"PK\x01\x02", i + 4)
    path.write_bytes(bytes(data))
    return path


@pytest.mark.parametrize("declared", [10, 200_000], ids=["smaller", "larger"])
def test_a_zip_whose_sizes_lie_is_a_clear_error(data_dir: Path, tmp_path: Path, declared: int) -> None:
    result = localmind("models", "import", str(lying_zip(tmp_path / "model.zip", declared)))
    assert result.returncode == 1 and "Traceback" not in result.stderr and "BadZipFile" not in result.stderr
    assert "does not match its recorded size" in result.stderr and "Nothing was imported" in result.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--seed", "-5"], "localmind: --seed must be 0 or more (got -5).\n"),
        (["--context", "-5"], "localmind: --context must be at least 64 tokens (got -5)."),
        (["--threads", "-1"], "localmind: --threads must be 1 or more (got -1)."),
        (["--threads", "0"], "localmind: --threads must be 1 or more (got 0)."),
    ],
)
def test_chat_numbers_out_of_range_are_one_line_errors(tiny_model: Path, args: list[str], message: str) -> None:
    result = localmind("chat", "--model", str(tiny_model), "--prompt", "hi", *args)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert result.stderr.startswith(message) and result.stderr.count("\n") == 1 and result.stdout == ""


def test_import_and_export_wording(data_dir: Path, tmp_path: Path) -> None:
    empty = localmind("export")
    assert empty.returncode == 0 and "There are no conversations to export" in empty.stderr
    nothing = helpers.write_json(
        tmp_path / "none.json", {"format": "localmind-conversations", "version": 1, "conversations": []}
    )
    result = localmind("import", str(nothing))
    assert result.stdout == "The file holds no conversations; nothing was imported.\n"
    wrong = helpers.write_json(
        tmp_path / "wrong.json", {"format": "localmind-conversations", "version": 1, "conversations": "x"}
    )
    result = localmind("import", str(wrong))
    assert '"conversations" should be a list, not text.' in result.stderr and "the file." not in result.stderr
    bad_time = tmp_path / "time.json"
    bad_time.write_text(one(created_at=True))  # type: ignore[arg-type]
    result = localmind("import", str(bad_time))
    assert "should be a number, not true/false" in result.stderr and "a number or a number" not in result.stderr


def test_the_same_export_imported_twice_changes_nothing_and_says_so(data_dir: Path, tmp_path: Path) -> None:
    source = helpers.write_json(tmp_path / "in.json", helpers.export_data(3))
    first = localmind("import", str(source))
    assert first.stdout.startswith("Imported: 3 conversations\n")
    second = localmind("import", str(source))
    assert second.stdout.startswith("Skipped (already here): 3 conversations\n")
    data = helpers.export_data(3)
    data["conversations"][0]["messages"].append({"role": "user", "content": "one more"})
    data["conversations"][1]["messages"][0]["content"] = "changed on another computer"
    third = localmind("import", str(helpers.write_json(tmp_path / "later.json", data)))
    assert "Updated (new messages added): 1 conversation\n" in third.stdout
    assert "Imported as a copy (it differs from the one already here): 1 conversation\n" in third.stdout
    assert "Skipped (already here): 1 conversation\n" in third.stdout
    with ConversationStore() as store:
        assert len(store.list_conversations()) == 4
