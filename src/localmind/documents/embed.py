"""Dense vectors from a small BERT-shaped ONNX embedding model, run with onnxruntime on the CPU.

An embedding model is a folder with one ``*.onnx`` graph (inputs ``input_ids``, ``attention_mask`` and optionally
``token_type_ids``; first output the last hidden state) and the ``tokenizer.json`` it was trained with. Vectors are
the attention-masked mean of the hidden states, L2-normalised, so a dot product is the cosine. E5-family models
expect ``query: `` / ``passage: `` prefixes; ``embedding.json`` in the folder (written for the catalog entry) may set
them, and the pooling. Texts are embedded in batches of similar length (less padding); repeated texts — a query asked
again, the same boilerplate paragraph in many files — come from a small in-memory cache.
"""

from __future__ import annotations

import json
import logging
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from localmind import paths
from localmind.errors import UserFacingError

log = logging.getLogger(__name__)

EMBEDDING_MODEL_ID = "multilingual-e5-small"  # the model recommended in the README and the UI
MAX_TOKENS = 512
BATCH = 16
CACHE_SIZE = 2048

Vector = np.ndarray[Any, np.dtype[np.float32]]


class EmbeddingModelError(UserFacingError):
    pass


@dataclass(frozen=True)
class EmbeddingConfig:
    query_prefix: str = ""
    passage_prefix: str = ""
    max_tokens: int = MAX_TOKENS
    min_similarity: float | None = None  # below this a passage is "not relevant" for the "no matching passages" notice

    @staticmethod
    def read(folder: Path) -> EmbeddingConfig:
        path = folder / "embedding.json"
        if not path.is_file():
            if "e5" in folder.name.lower():
                return EmbeddingConfig("query: ", "passage: ", MAX_TOKENS, 0.80)
            return EmbeddingConfig()
        raw = json.loads(path.read_text(encoding="utf-8"))
        return EmbeddingConfig(
            str(raw.get("query_prefix", "")),
            str(raw.get("passage_prefix", "")),
            int(raw.get("max_tokens", MAX_TOKENS)),
            float(raw["min_similarity"]) if raw.get("min_similarity") is not None else None,
        )


def find_model_file(folder: Path) -> Path | None:
    """The graph to run: ``model_quantized.onnx`` or ``model.onnx`` at the top or in ``onnx/``, else the only one."""
    for name in ("model_quantized.onnx", "model_int8.onnx", "model.onnx"):
        for candidate in (folder / name, folder / "onnx" / name):
            if candidate.is_file():
                return candidate
    graphs = sorted(folder.glob("*.onnx")) + sorted(folder.glob("onnx/*.onnx"))
    return graphs[0] if graphs else None


def embedding_models_dir() -> Path:
    """``<data>/embedding-models/<name>/``: apart from the chat models, which the model picker lists."""
    return paths.data_dir() / "embedding-models"


def is_embedding_model(folder: Path) -> bool:
    return (folder / "tokenizer.json").is_file() and find_model_file(folder) is not None


def installed_embedding_model() -> Path | None:
    """The embedding model to use: the recommended one if installed, else the first usable folder (by name)."""
    root = embedding_models_dir()
    preferred = root / EMBEDDING_MODEL_ID
    if is_embedding_model(preferred):
        return preferred
    if root.is_dir():
        for folder in sorted(p for p in root.iterdir() if p.is_dir()):
            if is_embedding_model(folder):
                return folder
    return None


def install_embedding_model(source: Path) -> Path:
    """Copy an embedding model folder (an .onnx graph and its tokenizer.json) into the data folder, checked first."""
    import shutil

    source = source.expanduser().resolve()
    Embedder(source).embed_query("check")  # refuses a folder that is not a working model, before copying anything
    target = embedding_models_dir() / source.name
    staging = embedding_models_dir() / f".{source.name}.partial"
    shutil.rmtree(staging, ignore_errors=True)
    shutil.copytree(source, staging)
    if target.exists():
        shutil.rmtree(target)
    staging.rename(target)  # atomic: a half-copied model is never picked up
    return target


class Embedder:
    """Turns texts into unit vectors. Thread-safe (one session, a lock around the cache)."""

    def __init__(self, folder: Path, threads: int | None = None, batch_size: int = BATCH) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        model_file = find_model_file(folder)
        if model_file is None or not (folder / "tokenizer.json").is_file():
            raise EmbeddingModelError(
                f"{folder} is not an embedding model folder (it needs an .onnx file and tokenizer.json).",
                hint="Install the embedding model from the model manager again.",
            )
        self.folder = folder
        self.config = EmbeddingConfig.read(folder)
        self.model_id = folder.name
        self.batch_size = batch_size
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.enable_truncation(self.config.max_tokens)
        options = ort.SessionOptions()
        if threads:
            options.intra_op_num_threads = threads
        options.log_severity_level = 3
        try:
            self.session = ort.InferenceSession(str(model_file), options, providers=["CPUExecutionProvider"])
        except Exception as exc:
            raise EmbeddingModelError(
                f"The embedding model {model_file.name} could not be loaded ({exc}).",
                hint="Install the embedding model from the model manager again.",
            ) from exc
        self.input_names = {i.name for i in self.session.get_inputs()}
        self._cache: OrderedDict[str, Vector] = OrderedDict()
        self._lock = threading.Lock()
        self.runs = 0  # model calls made (tests check batching and the cache with it)

    @property
    def dimensions(self) -> int:
        return int(self.embed_passages(["x"])[0].shape[0])

    def embed_query(self, text: str) -> Vector:
        return self._embed([self.config.query_prefix + text])[0]

    def embed_passages(self, texts: list[str]) -> list[Vector]:
        return self._embed([self.config.passage_prefix + t for t in texts])

    def embed_passages_bytes(self, texts: list[str]) -> list[bytes]:
        return [v.tobytes() for v in self.embed_passages(texts)]

    def _embed(self, texts: list[str]) -> list[Vector]:
        out: list[Vector | None] = [None] * len(texts)
        todo: list[int] = []
        with self._lock:
            for i, text in enumerate(texts):
                hit = self._cache.get(text)
                if hit is not None:
                    self._cache.move_to_end(text)
                    out[i] = hit
                else:
                    todo.append(i)
        # Group by length so each batch pads little.
        encodings = {i: self.tokenizer.encode(texts[i]) for i in todo}
        order = sorted(todo, key=lambda i: len(encodings[i].ids))
        for start in range(0, len(order), self.batch_size):
            batch = order[start : start + self.batch_size]
            vectors = self._run([encodings[i] for i in batch])
            for i, vector in zip(batch, vectors, strict=True):
                out[i] = vector
        with self._lock:
            for i in todo:
                done = out[i]
                assert done is not None
                self._cache[texts[i]] = done
            while len(self._cache) > CACHE_SIZE:
                self._cache.popitem(last=False)
        return [v for v in out if v is not None]

    def _run(self, encodings: list[Any]) -> list[Vector]:
        width = max(1, max(len(e.ids) for e in encodings))
        ids = np.zeros((len(encodings), width), dtype=np.int64)
        mask = np.zeros((len(encodings), width), dtype=np.int64)
        for row, e in enumerate(encodings):
            ids[row, : len(e.ids)] = e.ids
            mask[row, : len(e.ids)] = 1
        feeds: dict[str, np.ndarray[Any, Any]] = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self.input_names:
            feeds["token_type_ids"] = np.zeros_like(ids)
        feeds = {k: v for k, v in feeds.items() if k in self.input_names}
        hidden = self.session.run(None, feeds)[0]
        self.runs += 1
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1.0)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        pooled = (pooled / np.maximum(norms, 1e-12)).astype(np.float32)
        return list(pooled)
