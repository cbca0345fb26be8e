"""Documents under hostile input: splitting is linear and cancellable inside one file, bombs and huge files are
refused with bounded memory, and what is not text (binary data, a locked or garbled PDF) is said, not indexed."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from localmind.documents.chunking import CHUNK_TOKENS, Cancelled, approximate_tokens, chunk_pages
from localmind.documents.extract import MAX_TEXT_BYTES, ExtractionError, Page, extract, html_to_text
from localmind.documents.index import DocumentIndex
from tests.documents.hostile_files import (
    deep_html,
    log_text,
    write_binary_txt,
    write_docx_bomb,
    write_docx_with_big_part,
    write_log,
)


class CountingCounter:
    """approximate_tokens, recording how many characters it was asked to count."""

    def __init__(self) -> None:
        self.chars = 0
        self.calls = 0

    def __call__(self, text: str) -> int:
        self.chars += len(text)
        self.calls += 1
        return approximate_tokens(text)


def _work(text: str) -> int:
    counter = CountingCounter()
    chunks = chunk_pages([Page(None, text)], counter)
    assert all(c.tokens <= CHUNK_TOKENS for c in chunks)
    return counter.chars


@pytest.mark.parametrize(
    "make",
    [
        log_text,  # log lines: one paragraph, no sentence ends
        lambda n: "x" * n,  # no spaces at all (a base64 blob)
        lambda n: ("长城是中国古代的军事防御工程" * (n // 14 + 1))[:n],  # CJK without full stops
    ],
    ids=["log", "blob", "cjk"],
)
def test_splitting_counts_each_character_a_bounded_number_of_times(make: object) -> None:
    """Counting work grows with the text's size, not its square (the old splitter: 16x for 4x the text)."""
    small, large = 50_000, 200_000
    work_small, work_large = _work(make(small)), _work(make(large))  # type: ignore[operator]
    assert work_large / work_small < 4.6, (work_small, work_large)
    assert work_large / large < 60  # each character counted a bounded number of times


def test_passages_of_a_run_on_text_are_full_and_cut_at_spaces() -> None:
    chunks = chunk_pages([Page(None, log_text(100_000))])
    assert len(chunks) > 10
    for chunk in chunks[:-1]:
        assert CHUNK_TOKENS * 0.6 <= chunk.tokens <= CHUNK_TOKENS
    words = set(log_text(100_000).split())
    assert all(w in words for c in chunks for w in c.text.split()[1:-1])  # no word cut mid-way


def test_the_model_tokenizer_splits_a_large_file_with_bounded_work(tmp_path: Path) -> None:
    from localmind.documents.chunking import tokenizer_counter
    from tests.helpers.tiny_model import train_tokenizer

    train_tokenizer().save(str(tmp_path / "tokenizer.json"))  # type: ignore[attr-defined]
    count = tokenizer_counter(tmp_path)
    seen = [0]

    def counting(text: str) -> int:
        seen[0] += len(text)
        return count(text)

    text = log_text(200_000)
    chunks = chunk_pages([Page(None, text)], counting)
    assert all(count(c.text) <= CHUNK_TOKENS for c in chunks)
    assert seen[0] / len(text) < 60


def test_cancel_is_asked_within_one_passage_of_work() -> None:
    """Between two looks at cancelled() the splitter counts a bounded amount of text, however large the file."""
    counter = CountingCounter()
    gaps: list[int] = []
    last = [0]

    def cancelled() -> bool:
        gaps.append(counter.chars - last[0])
        last[0] = counter.chars
        return False

    chunk_pages([Page(None, log_text(400_000))], counter, cancelled=cancelled)
    assert len(gaps) > 100 and max(gaps) < CHUNK_TOKENS * 64 * 20


def test_cancel_during_one_big_file_returns_promptly(tmp_path: Path) -> None:
    """Cancel while one 4 MB log is split (the old splitter took over two minutes on it, asking only between files)."""
    log = write_log(tmp_path / "server.log", 4 << 20)
    index = DocumentIndex(tmp_path / "index.sqlite3")
    stop = threading.Event()
    outcome: list[object] = []
    asked = threading.Event()

    def cancelled() -> bool:
        asked.set()
        return stop.is_set()

    def run() -> None:
        try:
            outcome.append(index.add([log], cancelled=cancelled))
        except Cancelled as exc:
            outcome.append(exc)

    worker = threading.Thread(target=run)
    worker.start()
    assert asked.wait(30)
    time.sleep(0.3)  # inside the file's splitting now
    stop.set()
    since = time.monotonic()
    worker.join(30)
    assert not worker.is_alive() and isinstance(outcome[0], Cancelled), outcome
    assert time.monotonic() - since < 5  # within a second unloaded; generous for a shared machine
    assert [f.state for f in index.files()] == ["pending"]  # nothing half-indexed: it resumes later
    index.close()


def _peak_rss_mb(code: str) -> tuple[float, str]:
    """Run ``code`` in a fresh interpreter; its peak RSS in MB and what it printed."""
    # VmHWM where there is /proc: Linux keeps ru_maxrss across exec, so it would count the test runner's memory.
    script = code + (
        "\nimport resource\ntry:\n    kb = [int(x.split()[1]) for x in open('/proc/self/status') if x.startswith('VmHWM')][0]"
        "\nexcept OSError:\n    kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss"
        "\nprint('RSS', kb / 1024)"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True)
    lines = done.stdout.strip().splitlines()
    return float(lines[-1].split()[1]), "\n".join(lines[:-1])


def test_a_docx_zip_bomb_is_refused_without_unpacking_it(tmp_path: Path) -> None:
    bomb = write_docx_bomb(tmp_path / "bomb.docx", unpacked_mb=(MAX_TEXT_BYTES >> 20) * 2)
    assert bomb.stat().st_size < 1 << 20
    with pytest.raises(ExtractionError, match="too large to index") as caught:
        extract(bomb)
    assert caught.value.kind == "too_large"


def test_a_docx_with_a_huge_picture_part_is_read_without_loading_it(tmp_path: Path) -> None:
    docx = write_docx_with_big_part(tmp_path / "photo.docx", "The harbour crane lifts 40 tonnes.", part_mb=400)
    assert docx.stat().st_size < 4 << 20
    rss, out = _peak_rss_mb(
        "from pathlib import Path; from localmind.documents.extract import extract;"
        f" print(extract(Path({str(docx)!r}))[0].text)"
    )
    assert out == "The harbour crane lifts 40 tonnes."
    assert rss < 250, rss  # python-docx loaded every part: over 400 MB here


def test_a_text_file_over_the_limit_is_refused_before_it_is_read(tmp_path: Path) -> None:
    huge = tmp_path / "huge.txt"
    with huge.open("wb") as f:
        f.truncate(MAX_TEXT_BYTES + 1)  # sparse: no disk used
    with pytest.raises(ExtractionError, match=r"too large to index.*Split it") as caught:
        extract(huge)
    assert caught.value.kind == "too_large"


def test_binary_data_named_txt_is_said_to_be_binary_and_not_indexed(tmp_path: Path) -> None:
    index = DocumentIndex(tmp_path / "index.sqlite3")
    for name in ("random.txt", "program.log"):
        write_binary_txt(tmp_path / name)
    (tmp_path / "nul.txt").write_bytes(b"MZ\x90\x00\x03\x00" + b"ok text " * 1000)
    result = index.add([tmp_path])
    assert index.chunk_count() == 0 and result.added_files == 0
    assert {f.error_kind for f in index.files()} == {"binary"}
    assert all("not text" in why for _, why in result.failed or [])
    index.close()


def test_text_in_other_encodings_is_still_text(tmp_path: Path) -> None:
    (tmp_path / "latin.txt").write_bytes("Café crème brûlée, naïve façade.\n".encode("latin-1") * 200)
    (tmp_path / "gbk.txt").write_bytes("长城的总长度约为两万一千公里。\n".encode("gb18030") * 200)
    (tmp_path / "utf16.txt").write_bytes("Unicode in UTF-16 with a BOM.\n".encode("utf-16") * 200)
    for name in ("latin.txt", "gbk.txt", "utf16.txt"):
        assert extract(tmp_path / name)[0].text


def test_html_nested_deeper_than_the_parser_limit_keeps_its_text() -> None:
    assert "The archive opens at noon." in html_to_text(deep_html(300, "The archive opens at noon."))
    assert "Deep text." in html_to_text(deep_html(5000, "Deep text."))


def test_a_password_protected_pdf_is_said_to_be_protected(tmp_path: Path) -> None:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_font("helvetica", size=11)
    pdf.add_page()
    pdf.multi_cell(0, 6, "The vault code is in this secret report.")
    pdf.set_encryption(owner_password="owner", user_password="secret")
    pdf.output(str(tmp_path / "locked.pdf"))
    with pytest.raises(ExtractionError, match="password-protected") as caught:
        extract(tmp_path / "locked.pdf")
    assert caught.value.kind == "password"


def test_a_pdf_whose_font_has_no_unicode_map_is_said_to_be_garbled(tmp_path: Path) -> None:
    from tests.documents.files import write_pdf_without_unicode_map

    pdf = write_pdf_without_unicode_map(tmp_path / "glyphs.pdf", "The harbour crane lifts forty tonnes every day.")
    with pytest.raises(ExtractionError, match="gibberish") as caught:
        extract(pdf)
    assert caught.value.kind == "garbled"


def _cli(*argv: str, data: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "localmind", "--data-dir", str(data), *argv],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_file_name_that_is_not_utf8_is_skipped_and_the_rest_indexed(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "notes.txt").write_text("The ferry leaves at seven from pier four.\n")
    with open(os.path.join(os.fsencode(folder), b"caf\xe9-menu.txt"), "wb") as f:
        f.write(b"Soup of the day.\n")
    done = _cli("docs", "add", str(folder), "--no-embeddings", data=tmp_path / "data")
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 0, done.stderr
    assert "1 added" in done.stdout and "1 failed" in done.stdout
    assert "caf\ufffd-menu.txt: the file's name is not valid text (UTF-8), so it was skipped." in done.stderr


def test_a_symlink_loop_argument_is_one_clear_line(tmp_path: Path) -> None:
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    done = _cli("docs", "add", str(loop), "--no-embeddings", data=tmp_path / "data")
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.strip().splitlines() == [
        f"localmind: {loop} cannot be opened: it is a link that leads back to itself (a symbolic link loop)."
        " Add the file or folder the link was meant to point to."
    ]


def test_a_locked_index_is_one_clear_line(tmp_path: Path) -> None:
    import sqlite3

    data = tmp_path / "data"
    (tmp_path / "a.txt").write_text("A first document about tides.\n")
    assert _cli("docs", "add", str(tmp_path / "a.txt"), "--no-embeddings", data=data).returncode == 0
    holder = sqlite3.connect(data / "documents.sqlite3", isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another writer holds the index
    try:
        (tmp_path / "b.txt").write_text("A second document about currents.\n")
        done = _cli("docs", "add", str(tmp_path / "b.txt"), "--no-embeddings", data=data)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.strip().splitlines() == [
        "localmind: The document index is in use by another program (another LocalMind?) and could not be written."
        " Wait for it to finish or close it, then try again."
    ]


def test_a_full_disk_is_one_clear_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """SQLite's own "database or disk is full" (its page limit stands in for a full disk)."""
    from localmind.cli import main

    opened = DocumentIndex.__init__

    def small_disk(self: DocumentIndex, path: Path, **options: bool) -> None:
        opened(self, path, **options)
        pages = self.db.execute("PRAGMA page_count").fetchone()[0]
        self.db.execute(f"PRAGMA max_page_count = {pages + 2}")

    monkeypatch.setattr(DocumentIndex, "__init__", small_disk)
    (tmp_path / "long.txt").write_text(log_text(300_000))
    code = main(["--data-dir", str(tmp_path / "data"), "docs", "add", str(tmp_path / "long.txt"), "--no-embeddings"])
    _, err = capsys.readouterr()
    assert code == 1
    assert (
        err.strip()
        .splitlines()[-1]
        .startswith(
            f"localmind: The disk holding the document index ({tmp_path / 'data'}) is full; nothing more could be indexed."
        )
    )
    assert "Traceback" not in err
