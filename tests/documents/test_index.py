"""Extraction, chunking, keyword retrieval, incremental re-index, removal and resume on real generated files."""

from __future__ import annotations

import itertools
import os
from pathlib import Path

import pytest

from localmind.documents.chunking import approximate_tokens, chunk_pages
from localmind.documents.extract import NoTextFound, Page, extract
from localmind.documents.index import DocumentIndex
from localmind.documents.library import Library
from tests.documents.files import FACTS, write_scanned_pdf


def test_each_format_yields_its_planted_fact_on_the_right_page(corpus: Path) -> None:
    for name, (page, fact, _) in FACTS.items():
        pages = extract(corpus / name)
        holding = [p for p in pages if fact in " ".join(p.text.split()) or fact in p.text.replace("\n", "")]
        assert [p.number for p in holding] == [page], (name, pages)
    pdf = extract(corpus / "field-notes.pdf")
    assert [p.number for p in pdf] == [1, 2, 3, 4]
    html = " ".join(p.text for p in extract(corpus / "museum.html"))
    assert "zebracorn" not in html and "color: red" not in html  # scripts and styles are not text
    assert "Harbourline Masonry" in extract(corpus / "budget.docx")[0].text  # tables too
    assert "**" not in extract(corpus / "glacier.md")[0].text


def test_a_pdf_without_a_text_layer_says_no_text_found(tmp_path: Path) -> None:
    scan = write_scanned_pdf(tmp_path / "scan.pdf")
    with pytest.raises(NoTextFound, match="no text found"):
        extract(scan)


def test_passages_respect_size_boundaries_and_overlap() -> None:
    sentences = [f"Sentence number {i} talks about topic {i * 7}." for i in range(200)]
    chunks = chunk_pages([Page(5, " ".join(sentences))], max_tokens=60, overlap_tokens=15)
    assert len(chunks) > 5 and all(c.page == 5 for c in chunks)
    assert all(approximate_tokens(c.text) <= 60 for c in chunks)
    for chunk in chunks:  # whole sentences only
        assert chunk.text.startswith("Sentence number") and chunk.text.endswith(".")
    for a, b in itertools.pairwise(chunks):  # consecutive passages share their boundary sentence
        assert a.text.split("\n")[-1] == b.text.split("\n")[0]
    joined = "\n".join(c.text for c in chunks)
    assert all(s in joined for s in sentences)
    cjk = chunk_pages([Page(None, "长城是中国古代的军事防御工程。" * 100)], max_tokens=50, overlap_tokens=10)
    assert len(cjk) > 5 and all(c.text.endswith("。") for c in cjk)


def test_the_models_own_tokenizer_sizes_passages(tmp_path: Path) -> None:
    from localmind.documents.chunking import tokenizer_counter
    from tests.helpers.tiny_model import train_tokenizer

    tokenizer = train_tokenizer()
    tokenizer.save(str(tmp_path / "tokenizer.json"))  # type: ignore[attr-defined]
    count = tokenizer_counter(tmp_path)
    text = "The quick brown fox jumps over the lazy dog."
    assert count(text) == len(tokenizer.encode(text).ids)  # type: ignore[attr-defined]
    assert tokenizer_counter(tmp_path / "missing") is approximate_tokens


def test_keyword_search_finds_each_fact_in_the_right_file_and_page(corpus: Path, tmp_path: Path) -> None:
    library = Library(DocumentIndex(tmp_path / "index.sqlite3"))
    result = library.add([corpus])
    assert (result.added_files, result.updated_files, result.removed_chunks) == (5, 0, 0)
    assert result.added_chunks == library.index.chunk_count() > 5
    for name, (page, _, question) in FACTS.items():
        top = library.search(question, limit=3)[0]
        assert (Path(top.file).name, top.page) == (name, page), (question, top)
    assert library.search("zebracorn scriptword") == []
    assert library.search("a an of") == []  # nothing searchable: no passages rather than everything


def test_re_adding_is_incremental(corpus: Path, tmp_path: Path) -> None:
    library = Library(DocumentIndex(tmp_path / "index.sqlite3"))
    first = library.add([corpus])
    again = library.add([corpus])
    assert again.as_json() == {"added_files": 0, "updated_files": 0, "added_chunks": 0, "removed_chunks": 0}
    assert again.unchanged_files == 5
    md = corpus / "glacier.md"
    os.utime(md, (md.stat().st_atime, md.stat().st_mtime + 10))  # touched, same content: not re-read
    assert library.add([corpus]).as_json()["updated_files"] == 0
    md.write_text("# Glacier\n\nThe glacier now advances 4 metres a year near Skaftafell.\n", encoding="utf-8")
    changed = library.add([corpus])
    assert (changed.added_files, changed.updated_files, changed.added_chunks, changed.removed_chunks) == (0, 1, 1, 1)
    assert library.search("Vatnajokull") == []
    assert Path(library.search("Skaftafell")[0].file).name == "glacier.md"
    assert library.index.chunk_count() == first.added_chunks


def test_removal_removes_text_and_vectors(corpus: Path, tmp_path: Path) -> None:
    library = Library(DocumentIndex(tmp_path / "index.sqlite3"))
    library.add([corpus])
    db = library.index.db
    db.execute("INSERT INTO vectors SELECT id, 'm', zeroblob(16) FROM chunks")
    pdf_chunks = db.execute("SELECT chunks FROM files WHERE path LIKE '%field-notes.pdf'").fetchone()[0]
    before = db.execute("SELECT count(*) FROM vectors").fetchone()[0]
    files, chunks = library.remove([corpus / "field-notes.pdf"])
    assert (files, chunks) == (1, pdf_chunks)
    assert library.search("Kestrel Ridge") == []
    assert db.execute("SELECT count(*) FROM vectors").fetchone()[0] == before - pdf_chunks
    assert db.execute("SELECT count(*) FROM chunk_search WHERE chunk_search MATCH '\"Kestrel\"'").fetchone()[0] == 0
    assert library.remove([corpus]) == (4, library.index.chunk_count() or before - pdf_chunks)
    assert library.index.chunk_count() == 0 and db.execute("SELECT count(*) FROM vectors").fetchone()[0] == 0


def test_a_killed_indexing_run_resumes(corpus: Path, tmp_path: Path) -> None:
    path = tmp_path / "index.sqlite3"
    index = DocumentIndex(path)
    queued = index.enqueue([corpus])  # the run records its files first, indexes two, then is killed
    from localmind.documents.index import AddResult

    for file in queued[:2]:
        index.index_file(file, AddResult(failed=[]))
    index.db.close()  # no clean shutdown

    library = Library(DocumentIndex(path))
    assert [p for p, _ in library.index.pending_files()] == queued[2:]
    resumed = library.resume()
    assert resumed.added_files == 3 and library.index.pending_files() == []
    assert {r.state for r in library.index.files()} == {"indexed"}


def test_failed_files_are_listed_with_why_and_the_rest_indexed(corpus: Path, tmp_path: Path) -> None:
    write_scanned_pdf(corpus / "scan.pdf")
    (corpus / "broken.docx").write_bytes(b"PK\x03\x04 not really a zip")
    library = Library(DocumentIndex(tmp_path / "index.sqlite3"))
    result = library.add([corpus])
    assert result.added_files == 5
    failed = {Path(p).name: why for p, why in result.failed or []}
    assert "no text found" in failed["scan.pdf"] and "OCR" in failed["scan.pdf"]
    assert "damaged" in failed["broken.docx"]
    states = {r.name: (r.state, r.error) for r in library.index.files()}
    assert states["scan.pdf"][0] == "failed" and "no text found" in states["scan.pdf"][1]


def test_two_character_chinese_words_and_word_forms_are_found(corpus: Path, tmp_path: Path) -> None:
    library = Library(DocumentIndex(tmp_path / "index.sqlite3"))
    library.add([corpus])
    assert Path(library.search("长城")[0].file).name == "长城.txt"  # two characters: a trigram index cannot
    assert Path(library.search("公里")[0].file).name == "长城.txt"
    assert library.search("gauges")[0].page == 3  # "gauge" in the text: stems match
    assert library.search("长城 Kestrel", limit=10)  # mixed scripts in one query


def test_an_index_from_the_first_version_is_rebuilt_on_open(corpus: Path, tmp_path: Path) -> None:
    path = tmp_path / "index.sqlite3"
    index = DocumentIndex(path)
    index.add([corpus])
    db = index.db  # make it look like schema 1: a trigram table kept by triggers
    db.execute("DROP TABLE chunk_search")
    db.execute("CREATE VIRTUAL TABLE chunk_search USING fts5 (text, content = 'chunks', content_rowid = 'id')")
    db.execute("CREATE TRIGGER chunks_ai AFTER INSERT ON chunks BEGIN SELECT 1; END")
    db.execute("PRAGMA user_version = 1")
    index.close()
    library = Library(DocumentIndex(path))
    assert library.index.db.execute("PRAGMA user_version").fetchone()[0] == 2
    assert library.search("Kestrel Ridge")[0].page == 3
    assert library.index.db.execute("SELECT count(*) FROM sqlite_master WHERE type = 'trigger'").fetchone()[0] == 0
