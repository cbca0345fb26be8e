"""The documents feature in one object: the index in the data folder, retrieval, and the embedder when installed."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from pathlib import Path

from localmind import paths
from localmind.documents.chunking import TokenCounter, approximate_tokens
from localmind.documents.embed import Embedder, EmbeddingModelError, installed_embedding_model
from localmind.documents.index import DEFAULT_COLLECTION, AddResult, DocumentIndex
from localmind.documents.search import Passage, Retriever

log = logging.getLogger(__name__)

TOP_PASSAGES = 5


def index_path() -> Path:
    return paths.data_dir() / "documents.sqlite3"


class Library:
    """Open with ``Library.open()``; ``embedder`` is None when no embedding model is installed (keyword search only)."""

    def __init__(self, index: DocumentIndex, embedder: Embedder | None = None) -> None:
        self.index = index
        self.embedder = embedder
        self.retriever = Retriever(index)

    @staticmethod
    def open(
        path: Path | None = None,
        embedding_model: Path | None = None,
        use_embeddings: bool = True,
        *,
        read_only: bool = False,
    ) -> Library:
        index = DocumentIndex(path or index_path(), read_only=read_only)
        embedder: Embedder | None = None
        folder = embedding_model or (installed_embedding_model() if use_embeddings else None)
        if folder is not None:
            try:
                embedder = Embedder(folder)
            except EmbeddingModelError as exc:
                log.warning("embedding model not used: %s", exc)
        return Library(index, embedder)

    def use_embedder(self, folder: Path) -> None:
        """Search and index with the embedding model in ``folder`` from now on (one just installed)."""
        self.embedder = Embedder(folder)

    @property
    def model_id(self) -> str:
        return self.embedder.model_id if self.embedder else ""

    def add(
        self,
        paths_: Iterable[Path],
        collection: str = DEFAULT_COLLECTION,
        count: TokenCounter = approximate_tokens,
        progress: Callable[[int, int, Path], None] | None = None,
        cancelled: Callable[[], bool] | None = None,
    ) -> AddResult:
        embed = self.embedder.embed_passages_bytes if self.embedder else None
        result = self.index.add(
            paths_, collection, count=count, embed=embed, model=self.model_id, progress=progress, cancelled=cancelled
        )
        self.embed_missing(cancelled)
        return result

    def resume(
        self,
        count: TokenCounter = approximate_tokens,
        progress: Callable[[int, int, Path], None] | None = None,
        cancelled: Callable[[], bool] | None = None,
    ) -> AddResult:
        """Index what a killed run left waiting."""
        embed = self.embedder.embed_passages_bytes if self.embedder else None
        files = [p for p, _ in self.index.pending_files()]
        return self.index.index_files(
            files, count=count, embed=embed, model=self.model_id, progress=progress, cancelled=cancelled
        )

    def embed_missing(self, cancelled: Callable[[], bool] | None = None) -> int:
        """Vectors for passages indexed before the embedding model was installed."""
        if self.embedder is None:
            return 0
        done = 0
        while not (cancelled and cancelled()):
            rows = self.index.chunks_without_vectors(self.model_id, 256)
            if not rows:
                break
            vectors = self.embedder.embed_passages_bytes([text for _, text in rows])
            self.index.add_vectors([(cid, vec) for (cid, _), vec in zip(rows, vectors, strict=True)], self.model_id)
            done += len(rows)
        return done

    def search(self, query: str, limit: int = TOP_PASSAGES, collections: list[str] | None = None) -> list[Passage]:
        min_similarity = self.embedder.config.min_similarity if self.embedder else None
        return self.retriever.search(query, limit, collections or None, self.embedder, min_similarity)

    def remove(self, paths_: Iterable[Path]) -> tuple[int, int]:
        return self.index.forget(paths_)

    def close(self) -> None:
        self.index.close()
