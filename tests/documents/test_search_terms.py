"""Keyword search leaves out words that are in very many passages when rarer words remain (the bench at 100k passages:
such a word made most of the search time, for little weight in the ranking)."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

import pytest

from localmind.documents import search
from localmind.documents.index import DocumentIndex
from localmind.documents.search import Retriever


def test_common_words_are_left_out_when_rarer_ones_remain(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search, "COMMON_MATCHES", 3)
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(20):  # more than 4 x COMMON_MATCHES passages: below that every word is searched
        extra = " The glacier moved forty metres." if i == 5 else ""
        (docs / f"note-{i}.md").write_text(f"# Note {i}\n\nThe lighthouse keeper wrote entry {i}.{extra}\n")
    index = DocumentIndex(tmp_path / "index.sqlite3")
    index.add([docs])
    retriever = Retriever(index)

    def files(ids: list[int]) -> list[str]:
        marks = ",".join("?" * len(ids))
        rows = index.db.execute(
            f"SELECT f.path FROM chunks c JOIN files f ON f.id = c.file_id WHERE c.id IN ({marks})", ids
        )
        return sorted(Path(r[0]).name for r in rows)

    # "lighthouse" is in all 20 passages (more than 3): with "glacier" beside it, only "glacier" is searched.
    assert files(retriever.keyword("lighthouse glacier")) == ["note-5.md"]
    # Alone, a common word is still searched (nothing rarer to search instead).
    assert len(retriever.keyword("lighthouse keeper")) == 20
    monkeypatch.setattr(search, "COMMON_MATCHES", 5000)
    retriever = Retriever(index)
    assert len(retriever.keyword("lighthouse glacier")) == 20  # below the threshold every word counts
    # Hybrid search still finds the passage with both words first.
    assert Path(retriever.search("lighthouse glacier")[0].file).name == "note-5.md"
    index.close()


def test_the_dense_half_runs_beside_the_keyword_half_with_the_same_result(
    corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading

    from localmind.documents.embed import Embedder
    from localmind.documents.library import Library
    from tests.documents.embedding_model import build_embedding_model
    from tests.documents.files import FACTS, FILLER

    model = build_embedding_model(tmp_path / "embedder", [FILLER, *(f for _, f, _ in FACTS.values())] * 3)

    class Recording(Embedder):
        threads: ClassVar[list[str]] = []

        def embed_query(self, text: str):  # type: ignore[no-untyped-def]
            self.threads.append(threading.current_thread().name)
            return super().embed_query(text)

    library = Library(DocumentIndex(tmp_path / "index.sqlite3"), Recording(model))
    library.add([corpus])
    questions = [question for _, _, question in FACTS.values()]
    monkeypatch.setattr(search, "PARALLEL_FROM", 10**9)
    inline = [[(p.chunk_id, round(p.score, 9)) for p in library.search(q)] for q in questions]
    assert set(Recording.threads) == {threading.current_thread().name}
    Recording.threads.clear()
    monkeypatch.setattr(search, "PARALLEL_FROM", 0)
    beside = [[(p.chunk_id, round(p.score, 9)) for p in library.search(q)] for q in questions]
    assert beside == inline and all(inline)
    assert Recording.threads and all(name.startswith("documents-dense") for name in Recording.threads)
    library.close()
