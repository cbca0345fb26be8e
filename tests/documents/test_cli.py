"""``localmind docs …`` and ``localmind chat --docs`` in the terminal, with the tiny model end to end."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from localmind.cli import main
from tests.documents.files import write_scanned_pdf


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_add_list_search_remove(corpus: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "docs", "add", str(corpus), "--json")
    assert code == 0, err
    first = json.loads(out)
    assert first["added_files"] == 5 and first["updated_files"] == 0 and first["added_chunks"] > 5
    assert first["removed_chunks"] == 0
    code, out, _ = run(capsys, "docs", "add", str(corpus), "--json")
    assert json.loads(out) == {"added_files": 0, "updated_files": 0, "added_chunks": 0, "removed_chunks": 0}

    code, out, _ = run(capsys, "docs", "search", "Kestrel Ridge rain gauge", "--json")
    hits = json.loads(out)
    assert hits[0]["file"] == str(corpus / "field-notes.pdf") and hits[0]["page"] == 3
    assert "417 millimetres" in hits[0]["text"] and hits[0]["score"] > 0
    assert hits == sorted(hits, key=lambda h: -h["score"])
    _, out, _ = run(capsys, "docs", "search", "lighthouse restoration budget", "--json")
    assert Path(json.loads(out)[0]["file"]).name == "budget.docx" and json.loads(out)[0]["page"] is None
    _, out, _ = run(capsys, "docs", "search", "长城的总长度", "--json")
    assert Path(json.loads(out)[0]["file"]).name == "长城.txt"
    _, out, _ = run(capsys, "docs", "search", "Kestrel Ridge")
    assert out.startswith("[1] field-notes.pdf p. 3")

    _, out, _ = run(capsys, "docs", "list", "--json")
    assert sorted(Path(r["file"]).name for r in json.loads(out)) == sorted(p.name for p in corpus.iterdir())
    code, out, _ = run(capsys, "docs", "remove", str(corpus / "field-notes.pdf"))
    assert code == 0 and out.startswith("Removed 1 file(s)")
    _, out, _ = run(capsys, "docs", "search", "Kestrel Ridge", "--json")
    assert json.loads(out) == []
    code, _, err = run(capsys, "docs", "remove", str(corpus / "field-notes.pdf"))
    assert code == 1 and "Nothing indexed" in err


def test_a_scan_is_reported_and_listed_as_failed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    scan = write_scanned_pdf(tmp_path / "scan.pdf")
    code, out, err = run(capsys, "docs", "add", str(scan))
    assert code == 1 and "scan.pdf: no text found" in err
    _, out, _ = run(capsys, "docs", "list")
    assert out.startswith("failed") and "OCR" in out


def test_chat_with_docs_prints_the_sources(corpus: Path, tiny_model: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run(capsys, "docs", "add", str(corpus))
    code, out, err = run(
        capsys, "chat", "--model", str(tiny_model), "--docs", "--temperature", "0", "--max-new-tokens", "20",
        "--prompt", "What did the Kestrel Ridge rain gauge record?",
    )  # fmt: skip
    assert code == 0, err
    assert out.rstrip().splitlines()[-1].startswith("Sources: [1] field-notes.pdf p. 3")
    code, out, _ = run(
        capsys, "chat", "--model", str(tiny_model), "--docs", "--temperature", "0", "--max-new-tokens", "5",
        "--prompt", "zebracorn quasar",
    )  # fmt: skip
    assert out.rstrip().splitlines()[-1] == "Sources: no matching passages"


def test_chat_with_docs_in_a_256_token_context_answers_with_the_passages_that_fit(
    corpus: Path, tiny_model: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 19: the passages (and the instruction to cite them) overflowed a small context, and a short question
    was refused as "This message is too long … needs 393 tokens". They are fitted to what is left now."""
    run(capsys, "docs", "add", str(corpus))
    code, out, err = run(
        capsys, "chat", "--model", str(tiny_model), "--context", "256", "--docs", "--temperature", "0",
        "--max-new-tokens", "20", "--prompt", "What did the Kestrel Ridge rain gauge record?",
    )  # fmt: skip
    assert code == 0, err
    assert "too long" not in err
    assert out.rstrip().splitlines()[-1].startswith("Sources: [1] field-notes.pdf p. 3")
    # With the reply's room as large as the engine keeps it (a quarter of the context), still an answer.
    code, out, err = run(
        capsys, "chat", "--model", str(tiny_model), "--context", "128", "--docs", "--temperature", "0",
        "--max-new-tokens", "1024", "--prompt", "What did the Kestrel Ridge rain gauge record?",
    )  # fmt: skip
    assert code == 0, err
    assert out.rstrip().splitlines()[-1] == "Sources: no passages fit the context (1 found)"  # says what was used


def test_chat_with_docs_and_nothing_indexed_says_how_to_add(
    tiny_model: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(
        capsys, "chat", "--model", str(tiny_model), "--docs", "--max-new-tokens", "3", "--prompt", "hello there"
    )
    assert code == 0 and "localmind docs add PATH" in err


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_named_pipe_in_a_folder_is_skipped_and_named_alone_is_refused(tmp_path: Path) -> None:
    """Reading a named pipe waits for a writer forever: `docs add FOLDER` hung on one (and the window's indexer)."""
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "llamas.txt").write_text("Llamas hum when they are curious.", encoding="utf-8")
    os.mkfifo(folder / "pipe.txt")
    (folder / "gone.txt").symlink_to(tmp_path / "nowhere.txt")  # a dangling link: skipped too

    def localmind(*argv: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "localmind", *argv]
        return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)

    added = localmind("docs", "add", str(folder), "--json")
    assert added.returncode == 0, added.stderr
    assert json.loads(added.stdout)["added_files"] == 1
    listed = localmind("docs", "list", "--json")
    assert [Path(r["file"]).name for r in json.loads(listed.stdout)] == ["llamas.txt"]
    alone = localmind("docs", "add", str(folder / "pipe.txt"))
    assert alone.returncode == 1 and "Traceback" not in alone.stderr
    assert "pipe.txt is not a file LocalMind can read (a named pipe, a device or a socket)." in alone.stderr


def test_a_damaged_pdf_is_said_once_in_words(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    damaged = tmp_path / "broken.pdf"
    damaged.write_bytes(b"\xff\xfe\x00 not a pdf at all")
    code, _, err = run(capsys, "docs", "add", str(damaged))
    assert code == 1 and "broken.pdf: the file looks damaged" in err
    assert "EOF marker" not in err and "invalid pdf header" not in err  # pypdf's own log lines stay out
