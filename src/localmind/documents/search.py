"""Hybrid retrieval: FTS5 keyword search and dense vectors, fused by reciprocal rank.

Keyword search is FTS5 over words (porter stems, accents folded) with Chinese, Japanese and Korean cut into
overlapping two-character words (``chunking.search_text``): the chat search's trigram tokenizer was measured 15x
slower at 100k passages and cannot find two-character words. Common function words are dropped. Dense search is a brute
force cosine over all vectors, held in memory as one float32 matrix and reloaded only when the index changed
(``bench/docs.py`` measures it at 100k passages). Reciprocal-rank fusion needs no score calibration between the two.
"""

from __future__ import annotations

import re
import sqlite3
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from localmind.documents.chunking import search_text
from localmind.documents.index import DocumentIndex

if TYPE_CHECKING:  # imported where vectors are read: the window's start-up does not need numpy (issue 12)
    import numpy as np

RRF_K = 60
CANDIDATES = 50  # from each retriever, before fusion
# A query word in more passages than this is left out of the keyword query when rarer words remain: BM25 must score
# every passage that matches, so one such word made most of the search time at 100k passages (bench/docs.py: p95
# 146 ms -> see the README), while its weight in the ranking is small (its inverse document frequency is low).
COMMON_MATCHES = 5000
# From this many vectors on, the dense half runs on a helper thread beside the keyword half. Below, both are a few
# milliseconds and handing work to a thread cost more than it saved (bench/docs.py at 1k and 10k passages).
PARALLEL_FROM = 30_000

_WORD = re.compile(r"\w+")
_CJK_RUN = re.compile(r"[\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\u3040-\u30ff]+")
_STOPWORDS = frozenset(
    [
        "the",
        "and",
        "for",
        "are",
        "but",
        "not",
        "you",
        "all",
        "any",
        "can",
        "had",
        "her",
        "was",
        "one",
        "our",
        "out",
        "has",
        "him",
        "his",
        "how",
        "its",
        "may",
        "new",
        "now",
        "see",
        "two",
        "who",
        "did",
        "get",
        "let",
        "put",
        "say",
        "she",
        "too",
        "use",
        "what",
        "when",
        "where",
        "which",
        "while",
        "with",
        "would",
        "about",
        "after",
        "again",
        "also",
        "been",
        "before",
        "being",
        "between",
        "both",
        "could",
        "does",
        "doing",
        "down",
        "during",
        "each",
        "from",
        "further",
        "have",
        "having",
        "here",
        "into",
        "just",
        "more",
        "most",
        "other",
        "over",
        "same",
        "should",
        "some",
        "such",
        "than",
        "that",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "under",
        "until",
        "very",
        "were",
        "whom",
        "why",
        "will",
        "your",
        "yours",
        "does",
        "tell",
        "give",
        "please",
        "find",
        "show",
        "什么",
        "怎么",
        "哪里",
        "哪个",
        "为什么",
        "多少",
    ]
)


@dataclass(frozen=True)
class Passage:
    chunk_id: int
    file: str
    page: int | None
    text: str
    score: float
    collection: str = ""

    @property
    def file_name(self) -> str:
        return Path(self.file).name

    def label(self) -> str:
        """``field-notes.pdf p. 3`` — how a source is cited."""
        return f"{self.file_name} p. {self.page}" if self.page is not None else self.file_name

    def as_json(self) -> dict[str, Any]:
        return {"file": self.file, "page": self.page, "text": self.text, "score": round(self.score, 6)}


class QueryEmbedder(Protocol):
    model_id: str

    def embed_query(self, text: str) -> np.ndarray[Any, np.dtype[np.float32]]: ...


def keyword_expression(query: str) -> str | None:
    """An FTS5 ``OR`` of the query's words (Latin ≥ 3 letters or any number, no stopwords) and CJK bigrams."""
    terms: list[str] = []
    for word in search_text(query.lower()).split():
        for part in _WORD.findall(word):
            if _CJK_RUN.fullmatch(part):
                if part not in _STOPWORDS:
                    terms.append(part)
            elif (len(part) >= 3 or part.isdigit()) and part not in _STOPWORDS:
                terms.append(part)
    unique = list(dict.fromkeys(terms))
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in unique) or None


_HELPER: ThreadPoolExecutor | None = None
_HELPER_LOCK = threading.Lock()


def _helper() -> ThreadPoolExecutor:
    """One thread for the dense half of every search (searches are rare and short; it idles otherwise)."""
    global _HELPER
    with _HELPER_LOCK:
        if _HELPER is None:
            _HELPER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="documents-dense")
        return _HELPER


def _nearest(
    matrix: np.ndarray[Any, np.dtype[np.float32]],
    ids: np.ndarray[Any, np.dtype[np.int64]],
    query: str,
    embedder: QueryEmbedder,
    limit: int,
    min_similarity: float | None,
) -> list[tuple[int, float]]:
    """(chunk id, cosine) of the ``limit`` vectors nearest the query's, best first."""
    import numpy as np

    if not len(ids):
        return []
    q = embedder.embed_query(query).astype(np.float32)
    if q.shape[0] != matrix.shape[1]:
        return []  # vectors from another model of another size: keyword search still works
    scores = matrix @ q
    k = min(limit, len(scores))
    top = np.argpartition(scores, len(scores) - k)[len(scores) - k :]
    top = top[np.argsort(-scores[top])]
    return [(int(ids[i]), float(scores[i])) for i in top if min_similarity is None or scores[i] >= min_similarity]


class Retriever:
    """Searches one ``DocumentIndex``; keeps the vector matrix between searches."""

    def __init__(self, index: DocumentIndex) -> None:
        self.index = index
        self._common: dict[str, bool] = {}  # term -> in more than COMMON_MATCHES passages (for this generation)
        self._common_generation = -1
        self._passages_count = 0
        self._matrix: np.ndarray[Any, np.dtype[np.float32]] | None = None
        self._matrix_ids: np.ndarray[Any, np.dtype[np.int64]] | None = None
        self._matrix_key: tuple[int, str] | None = None

    def _is_common(self, term: str) -> bool:
        generation = self.index.generation()
        if generation != self._common_generation:
            self._common, self._common_generation = {}, generation
            self._passages_count = int(self.index.db.execute("SELECT count(*) FROM chunks").fetchone()[0])
        if self._passages_count <= 4 * COMMON_MATCHES:
            return False  # a small index: ranking every match is cheap, and probing would cost more than it saves
        common = self._common.get(term)
        if common is None:
            # Counting stops at the threshold: a common word costs a short scan of its posting list, not a ranking.
            row = self.index.db.execute(
                "SELECT count(*) FROM (SELECT rowid FROM chunk_search WHERE chunk_search MATCH ? LIMIT ?)",
                (term, COMMON_MATCHES + 1),
            ).fetchone()
            common = self._common[term] = int(row[0]) > COMMON_MATCHES
        return common

    def _expression(self, query: str) -> str | None:
        expression = keyword_expression(query)
        if expression is None:
            return None
        terms = expression.split(" OR ")
        try:
            rare = [t for t in terms if not self._is_common(t)]
        except sqlite3.OperationalError:
            return expression
        return " OR ".join(rare) if rare else expression

    def keyword(self, query: str, limit: int = CANDIDATES, collections: list[str] | None = None) -> list[int]:
        expression = self._expression(query)
        if expression is None:
            return []
        sql = "SELECT rowid FROM chunk_search WHERE chunk_search MATCH ? ORDER BY bm25(chunk_search) LIMIT ?"
        params: tuple[Any, ...] = (expression, limit)
        if collections:
            marks = ",".join("?" * len(collections))
            sql = (
                "SELECT s.rowid FROM chunk_search s JOIN chunks c ON c.id = s.rowid JOIN files f ON f.id = c.file_id"
                f" WHERE chunk_search MATCH ? AND f.collection IN ({marks}) ORDER BY bm25(chunk_search) LIMIT ?"
            )
            params = (expression, *collections, limit)
        try:
            return [r[0] for r in self.index.db.execute(sql, params)]
        except sqlite3.OperationalError:  # an expression FTS5 cannot parse: treat as no keyword hits
            return []

    def _vectors(self, model: str) -> tuple[np.ndarray[Any, np.dtype[np.float32]], np.ndarray[Any, np.dtype[np.int64]]]:
        key = (self.index.generation(), model)
        if self._matrix is None or self._matrix_ids is None or key != self._matrix_key:
            import numpy as np

            db = self.index.db
            count = int(db.execute("SELECT count(*) FROM vectors WHERE model = ?", (model,)).fetchone()[0])
            first = db.execute("SELECT vector FROM vectors WHERE model = ? LIMIT 1", (model,)).fetchone()
            width = len(first[0]) // 4 if first else 1
            # Filled row by row into one preallocated array: no list of blobs and no joined copy (3x the memory).
            matrix = np.zeros((count, width), dtype=np.float32)
            id_array = np.zeros(count, dtype=np.int64)
            rows = db.execute("SELECT chunk_id, vector FROM vectors WHERE model = ? ORDER BY chunk_id", (model,))
            n = 0
            for chunk_id, blob in rows:
                if n == count or len(blob) != width * 4:
                    continue  # written meanwhile, or from a model of another width: skipped
                matrix[n] = np.frombuffer(blob, dtype=np.float32)
                id_array[n] = chunk_id
                n += 1
            matrix, id_array = matrix[:n], id_array[:n]
            self._matrix, self._matrix_ids, self._matrix_key = matrix, id_array, key
        return self._matrix, self._matrix_ids

    def dense(
        self,
        query: str,
        embedder: QueryEmbedder,
        limit: int = CANDIDATES,
        min_similarity: float | None = None,
    ) -> list[tuple[int, float]]:
        matrix, ids = self._vectors(embedder.model_id)
        return _nearest(matrix, ids, query, embedder, limit, min_similarity)

    def search(
        self,
        query: str,
        limit: int = 5,
        collections: list[str] | None = None,
        embedder: QueryEmbedder | None = None,
        min_similarity: float | None = None,
    ) -> list[Passage]:
        ranked: dict[int, float] = {}
        keyword_rank: dict[int, int] = {}
        dense: Future[list[tuple[int, float]]] | None = None
        if embedder is not None:
            # Embedding the query and scoring every vector (numpy and onnxruntime release the GIL) run on a helper
            # thread while SQLite ranks the keyword hits here: the search takes the longer of the two, not the sum.
            # The matrix is read here: the SQLite connection belongs to this thread.
            matrix, ids = self._vectors(embedder.model_id)
            if len(ids) >= PARALLEL_FROM:
                dense = _helper().submit(_nearest, matrix, ids, query, embedder, CANDIDATES * 4, min_similarity)
            else:
                dense = Future()
                dense.set_result(_nearest(matrix, ids, query, embedder, CANDIDATES * 4, min_similarity))
        for rank, chunk_id in enumerate(self.keyword(query, CANDIDATES, collections)):
            ranked[chunk_id] = ranked.get(chunk_id, 0.0) + 1.0 / (RRF_K + rank + 1)
            keyword_rank[chunk_id] = rank
        if dense is not None:
            for rank, (chunk_id, _) in enumerate(dense.result()):
                ranked[chunk_id] = ranked.get(chunk_id, 0.0) + 1.0 / (RRF_K + rank + 1)
        if not ranked:
            return []
        # On equal fused scores an exact keyword hit wins: it contains the words asked about.
        order = sorted(ranked, key=lambda c: (-round(ranked[c], 12), keyword_rank.get(c, CANDIDATES), c))
        # Read the text of the best ones only (not all 250 candidates), more if a collection filter drops some.
        passages: list[Passage] = []
        for start in range(0, len(order), limit * 2):
            batch = order[start : start + limit * 2]
            found = {p.chunk_id: p for p in self._passages({c: ranked[c] for c in batch}, collections)}
            passages.extend(found[c] for c in batch if c in found)
            if len(passages) >= limit:
                break
        return passages[:limit]

    def _passages(self, scores: dict[int, float], collections: list[str] | None) -> list[Passage]:
        ids = list(scores)
        out: list[Passage] = []
        for start in range(0, len(ids), 500):
            batch = ids[start : start + 500]
            rows = self.index.db.execute(
                "SELECT c.id, f.path, c.page, c.text, f.collection FROM chunks c JOIN files f ON f.id = c.file_id"
                f" WHERE c.id IN ({','.join('?' * len(batch))})",
                batch,
            )
            for chunk_id, path, page, text, collection in rows:
                if collections and collection not in collections:
                    continue
                out.append(Passage(chunk_id, path, page, text, scores[chunk_id], collection))
        return out
