"""OpenAI's ``/v1/embeddings`` over the embedding model Documents uses (documents/embed.py), apart from the HTTP
layer: which model answers, the inputs checked, and the response (float lists or base64 of little-endian float32,
as OpenAI sends them; usage counts the model's tokens).

Texts are embedded as passages (E5's "passage: " prefix where the model's config has one), so vectors compare with
those Documents stores. The model is loaded on the first request and kept; the work runs off the event loop.
"""

from __future__ import annotations

import base64
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MAX_INPUTS = 2048
MAX_INPUT_CHARS = 100_000


class EmbeddingRequestError(Exception):
    """A request the server refuses: ``status`` (400 or 404), a message naming the field (``param``), a ``code``."""

    def __init__(self, status: int, message: str, param: str | None = None, code: str | None = None) -> None:
        super().__init__(message)
        self.status, self.message, self.param, self.code = status, message, param, code


@dataclass
class EmbeddingService:
    """The installed embedding model, loaded once and shared by requests (the Embedder is thread-safe)."""

    find_model: Callable[[], Path | None]
    _embedder: Any = None
    _folder: Path | None = None

    def __post_init__(self) -> None:
        self._lock = threading.Lock()

    def model_id(self) -> str | None:
        folder = self.find_model()
        return folder.name if folder is not None else None

    def embedder(self, model: str) -> Any:
        """The Embedder for ``model`` (the installed model's name); EmbeddingRequestError 404 when it is not one."""
        folder = self.find_model()
        if folder is None:
            raise EmbeddingRequestError(
                404,
                "No embedding model is installed. Install one in LocalMind's model manager "
                "(Documents → embedding model), then ask again.",
                param="model",
                code="model_not_found",
            )
        if model != folder.name:
            raise EmbeddingRequestError(
                404,
                f"The model '{model}' is not this server's embedding model: use '{folder.name}'.",
                param="model",
                code="model_not_found",
            )
        with self._lock:
            if self._embedder is None or self._folder != folder:
                from localmind.documents.embed import Embedder

                self._embedder, self._folder = Embedder(folder), folder
            return self._embedder


def texts_of(value: Any) -> list[str]:
    """The request's ``input`` as texts: a string or a list of strings. Token arrays are refused (a 400 naming
    ``input``): the embedding model has its own tokenizer, not the chat model's."""
    texts = [value] if isinstance(value, str) else value
    if not isinstance(texts, list) or not texts:
        raise EmbeddingRequestError(400, "'input' must be a string or a non-empty list of strings.", "input")
    if not all(isinstance(t, str) for t in texts):
        raise EmbeddingRequestError(
            400, "'input' as token ids is not supported: send the text (a string or a list of strings).", "input"
        )
    if len(texts) > MAX_INPUTS:
        raise EmbeddingRequestError(400, f"'input' may hold at most {MAX_INPUTS} texts (got {len(texts)}).", "input")
    for i, text in enumerate(texts):
        if not text:
            raise EmbeddingRequestError(400, f"input[{i}] is empty: every text needs at least one character.", "input")
        if len(text) > MAX_INPUT_CHARS:
            raise EmbeddingRequestError(400, f"input[{i}] is longer than {MAX_INPUT_CHARS:,} characters.", "input")
    return texts


def embed(
    embedder: Any, model: str, texts: list[str], encoding_format: str = "float", dimensions: int | None = None
) -> dict[str, Any]:
    """The OpenAI embeddings response for ``texts``. A text longer than the model reads is refused, never cut."""
    limit = int(embedder.config.max_tokens)
    prefix = str(embedder.config.passage_prefix)
    tokens = 0
    for i, text in enumerate(texts):
        encoding = embedder.tokenizer.encode(prefix + text)
        if encoding.overflowing:
            raise EmbeddingRequestError(
                400,
                f"input[{i}] is longer than the embedding model reads ({limit} tokens): split it.",
                "input",
                "context_length_exceeded",
            )
        tokens += len(encoding.ids)
    vectors = embedder.embed_passages(texts)
    width = int(vectors[0].shape[0])
    if dimensions is not None and dimensions != width:
        raise EmbeddingRequestError(
            400, f"'dimensions' must be {width} for this model (it cannot shorten its vectors).", "dimensions"
        )
    data = []
    for i, vector in enumerate(vectors):
        if encoding_format == "base64":
            value: Any = base64.b64encode(vector.astype("<f4").tobytes()).decode("ascii")
        else:
            value = [float(x) for x in vector]
        data.append({"object": "embedding", "index": i, "embedding": value})
    return {"object": "list", "data": data, "model": model, "usage": {"prompt_tokens": tokens, "total_tokens": tokens}}


__all__ = ["EmbeddingRequestError", "EmbeddingService", "embed", "texts_of"]
