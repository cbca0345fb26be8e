"""How fast the documents index is: indexing throughput and search latency. Prints JSON.

    .venv/bin/python bench/docs.py [--sizes 1000,10000,100000] [--pdf-pages 200] [--embedder DIR]

Indexing: a generated PDF of ``--pdf-pages`` pages (fpdf2) and as many Markdown files, indexed keyword-only and
then with embeddings (pages/s, passages/s). The embedder is ``--embedder DIR`` or, by default, a random-weight
encoder of multilingual-e5-small's shape (12 layers, 384 wide; built with torch + transformers from the bench
extras, cached under bench/models/) — speed does not depend on weight values.
Search: indexes of 1k/10k/100k synthetic passages (made-up Latin and Chinese words with Zipf frequencies, as in
real text; random unit vectors of 384 dimensions), timing keyword, dense and hybrid search (median and p95 of 30 queries), and the memory the vector
matrix takes. Goal (issue 13): search ≤ 100 ms at 100k passages.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from localmind.documents.chunking import search_text
from localmind.documents.index import DocumentIndex
from localmind.documents.library import Library
from localmind.documents.search import CANDIDATES, RRF_K, Retriever, keyword_expression

DIM = 384
_SYLLABLES = [
    "ka",
    "ri",
    "to",
    "mu",
    "sen",
    "dal",
    "vor",
    "pen",
    "lis",
    "tra",
    "gho",
    "bel",
    "nim",
    "sur",
    "fa",
    "qui",
    "ox",
    "lem",
    "dor",
    "an",
]
_HANZI = "长城报告会议预算项目设计冰川博物馆灯塔合同发票季度年度结果搜索记忆河流山脉港口调查站雨量"


def _vocabulary(rng: random.Random) -> list[str]:
    """5,000 made-up Latin words and 800 Chinese two-character words, the order being their frequency rank."""
    latin = {"".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 4))) for _ in range(8000)}
    hanzi = {rng.choice(_HANZI) + rng.choice(_HANZI) for _ in range(1500)}
    words = sorted(latin)[:5000] + sorted(hanzi)[:800]
    rng.shuffle(words)
    return words


_RNG = random.Random(7)
WORDS = _vocabulary(_RNG)
# Zipf-like word frequencies (s = 1.05), as in real text: a few words everywhere, most words rare.
_WEIGHTS = [1.0 / (rank + 1) ** 1.05 for rank in range(len(WORDS))]
MODELS = Path(__file__).resolve().parent / "models"


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def sentence(rng: random.Random, n: int = 40) -> str:
    return " ".join(rng.choices(WORDS, weights=_WEIGHTS, k=n)) + "."


def query(rng: random.Random) -> str:
    """Four content words: from frequency ranks 20-2,000 (the most common ones are like stopwords, dropped anyway)."""
    return " ".join(rng.choice(WORDS[20:2000]) for _ in range(4))


class RandomVectors:
    """Stands in for an embedder in the search timing: unit vectors, and a fixed cost-free query vector."""

    model_id = "bench"

    def __init__(self, seed: int = 0) -> None:
        self.rng = np.random.default_rng(seed)

    def embed_query(self, text: str) -> np.ndarray[Any, np.dtype[np.float32]]:
        v = self.rng.standard_normal(DIM).astype(np.float32)
        return v / np.linalg.norm(v)


def build_search_index(path: Path, size: int, seed: int = 0) -> DocumentIndex:
    rng = random.Random(seed)
    vectors = np.random.default_rng(seed).standard_normal((size, DIM)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    index = DocumentIndex(path)
    per_file = 100
    with index.transaction():
        for f in range(0, size, per_file):
            cur = index.db.execute(
                "INSERT INTO files (path, collection, state) VALUES (?, 'default', 'indexed')", (f"/bench/{f}.md",)
            )
            file_id = cur.lastrowid
            for i in range(f, min(size, f + per_file)):
                text = sentence(rng, 60)
                chunk = index.db.execute(
                    "INSERT INTO chunks (file_id, ord, page, text, tokens) VALUES (?, ?, NULL, ?, 200)",
                    (file_id, i - f, text),
                ).lastrowid
                index.db.execute("INSERT INTO vectors VALUES (?, 'bench', ?)", (chunk, vectors[i].tobytes()))
                index.db.execute("INSERT INTO chunk_search (rowid, text) VALUES (?, ?)", (chunk, search_text(text)))
    return index


def timed(fn: Any, repeat: int) -> dict[str, float]:
    samples = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t) * 1000)
    samples.sort()
    return {
        "median_ms": round(statistics.median(samples), 2),
        "p95_ms": round(samples[int(len(samples) * 0.95) - 1], 2),
    }


def legacy_keyword(r: Retriever, q: str) -> list[int]:
    """Keyword search as it was before the second round: every query word, however common, in the FTS5 query."""
    expression = keyword_expression(q)
    sql = "SELECT rowid FROM chunk_search WHERE chunk_search MATCH ? ORDER BY bm25(chunk_search) LIMIT ?"
    return [row[0] for row in r.index.db.execute(sql, (expression, CANDIDATES))] if expression else []


def legacy_hybrid(r: Retriever, q: str, e: RandomVectors) -> object:
    """Hybrid search as it was: all words, then the dense half after the keyword half (not beside it)."""
    ranked: dict[int, float] = {}
    for rank, chunk_id in enumerate(legacy_keyword(r, q)):
        ranked[chunk_id] = ranked.get(chunk_id, 0.0) + 1.0 / (RRF_K + rank + 1)
    for rank, (chunk_id, _) in enumerate(r.dense(q, e, CANDIDATES * 4)):
        ranked[chunk_id] = ranked.get(chunk_id, 0.0) + 1.0 / (RRF_K + rank + 1)
    best = sorted(ranked, key=lambda c: -ranked[c])[:10]
    return r._passages({c: ranked[c] for c in best}, None)


def paired(before: Any, after: Any, queries: list[str]) -> dict[str, Any]:
    """Both versions on the same queries, alternating which runs first (this machine is noisy)."""
    times: dict[str, list[float]] = {"before": [], "after": []}
    for i, q in enumerate(queries):
        for name in ("before", "after") if i % 2 == 0 else ("after", "before"):
            t = time.perf_counter()
            (before if name == "before" else after)(q)
            times[name].append((time.perf_counter() - t) * 1000)
    out: dict[str, Any] = {}
    for name, samples in times.items():
        samples.sort()
        out[name] = {
            "median_ms": round(statistics.median(samples), 2),
            "p95_ms": round(samples[int(len(samples) * 0.95) - 1], 2),
        }
    out["median_ratio_after_before"] = round(out["after"]["median_ms"] / max(out["before"]["median_ms"], 1e-9), 3)
    out["p95_ratio_after_before"] = round(out["after"]["p95_ms"] / max(out["before"]["p95_ms"], 1e-9), 3)
    return out


def bench_search(sizes: list[int], folder: Path) -> dict[str, Any]:
    out: dict[str, Any] = {}
    rng = random.Random(1)
    queries = [query(rng) for _ in range(30)]
    for size in sizes:
        t = time.perf_counter()
        index = build_search_index(folder / f"search-{size}.sqlite3", size)
        build_s = time.perf_counter() - t
        retriever = Retriever(index)
        embedder = RandomVectors()
        before = rss_mb()
        t = time.perf_counter()
        retriever.dense("warm", embedder)  # loads the matrix
        load_ms = (time.perf_counter() - t) * 1000
        matrix_mb = rss_mb() - before
        it = iter(queries * 10)
        assert all(retriever.keyword(q) for q in queries[:5]), "keyword search found nothing: the index is not filled"

        def keyword(r: Retriever = retriever, q: Any = it) -> object:
            return r.keyword(next(q))

        def dense(r: Retriever = retriever, q: Any = it, e: RandomVectors = embedder) -> object:
            return r.dense(next(q), e)

        def hybrid(r: Retriever = retriever, q: Any = it, e: RandomVectors = embedder) -> object:
            return r.search(next(q), 5, None, e)

        out[str(size)] = {
            "build_s": round(build_s, 2),
            "vector_matrix_load_ms": round(load_ms, 1),
            "vector_matrix_rss_mb": round(matrix_mb, 1),
            "keyword": timed(keyword, 30),
            "dense": timed(dense, 30),
            "hybrid_top5": timed(hybrid, 30),
            "db_mb": round((folder / f"search-{size}.sqlite3").stat().st_size / 1e6, 1),
        }
        # The second round's changes (common words left out, dense beside keyword) against the code before, on 30
        # fresh queries (their words not yet probed), and how often the keyword top 5 stayed the same.
        fresh = [query(random.Random(100 + i)) for i in range(30)]
        out[str(size)]["hybrid_before_after"] = paired(
            lambda q, r=retriever, e=embedder: legacy_hybrid(r, q, e),
            lambda q, r=retriever, e=embedder: r.search(q, 5, None, e),
            fresh,
        )
        same = [len(set(legacy_keyword(retriever, q)[:5]) & set(retriever.keyword(q)[:5])) / 5 for q in fresh]
        out[str(size)]["keyword_top5_kept"] = round(statistics.mean(same), 3)
        index.close()
    return out


def e5_shaped_encoder(folder: Path) -> Path:
    """A random-weight BERT encoder of multilingual-e5-small's size (vocab cut to 30k), exported to ONNX once."""
    target = folder / "e5-small-shape"
    if (target / "onnx" / "model.onnx").is_file():
        return target
    import torch
    from transformers import BertConfig, BertModel

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from tests.documents.embedding_model import build_embedding_model

    build_embedding_model(target, [sentence(random.Random(i), 80) for i in range(200)])  # tokenizer (+ a tiny graph)
    config = BertConfig(vocab_size=30000, hidden_size=384, num_hidden_layers=12, num_attention_heads=12,
                        intermediate_size=1536, max_position_embeddings=512)  # fmt: skip
    bert = BertModel(config).eval()

    class Encoder(torch.nn.Module):  # keyword arguments: BertModel.forward's positional order varies by version
        def __init__(self) -> None:
            super().__init__()
            self.bert = bert

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            out = self.bert(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids)
            return out.last_hidden_state

    ids = torch.ones((2, 16), dtype=torch.long)
    with torch.no_grad():
        torch.onnx.export(
            Encoder().eval(), (ids, ids, torch.zeros_like(ids)), str(target / "onnx" / "model.onnx"),
            input_names=["input_ids", "attention_mask", "token_type_ids"], output_names=["last_hidden_state"],
            dynamic_axes={n: {0: "batch", 1: "tokens"} for n in ("input_ids", "attention_mask", "token_type_ids")},
            opset_version=17, dynamo=False,
        )  # fmt: skip
    return target


def bench_indexing(folder: Path, pdf_pages: int, embedder_dir: Path | None) -> dict[str, Any]:
    from tests.documents.files import FILLER, write_pdf

    docs = folder / "docs"
    docs.mkdir()
    rng = random.Random(2)
    write_pdf(docs / "long.pdf", [f"Page {n}. " + FILLER * 4 for n in range(pdf_pages)])
    for n in range(pdf_pages):
        (docs / f"note-{n}.md").write_text(f"# Note {n}\n\n" + "\n\n".join(sentence(rng) for _ in range(8)))
    out: dict[str, Any] = {}
    runs = [("keyword_only", None)] + ([("with_embeddings", embedder_dir)] if embedder_dir is not None else [])
    for label, embed in runs:
        from localmind.documents.embed import Embedder

        library = Library(DocumentIndex(folder / f"{label}.sqlite3"), Embedder(embed) if embed else None)
        t = time.perf_counter()
        result = library.add([docs / "long.pdf"])
        pdf_s = time.perf_counter() - t
        t = time.perf_counter()
        result_md = library.add([docs])
        md_s = time.perf_counter() - t
        out[label] = {
            "pdf_pages_per_s": round(pdf_pages / pdf_s, 1),
            "pdf_chunks_per_s": round(result.added_chunks / pdf_s, 1),
            "markdown_files_per_s": round(result_md.added_files / md_s, 1),
            "markdown_chunks_per_s": round(result_md.added_chunks / md_s, 1),
            "chunks": result.added_chunks + result_md.added_chunks,
        }
        library.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--pdf-pages", type=int, default=100)
    parser.add_argument("--embedder", type=Path)
    parser.add_argument("--skip-indexing", action="store_true")
    parser.add_argument("--keyword-only", action="store_true", help="index without embeddings only")
    args = parser.parse_args()
    result: dict[str, Any] = {
        "machine": platform.processor() or platform.machine(),
        "python": platform.python_version(),
    }
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        if not args.skip_indexing:
            embedder = None if args.keyword_only else (args.embedder or e5_shaped_encoder(MODELS))
            result["indexing"] = bench_indexing(folder, args.pdf_pages, embedder)
            result["indexing"]["embedder"] = str(embedder)
        result["search"] = bench_search([int(s) for s in args.sizes.split(",")], folder)
    result["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
