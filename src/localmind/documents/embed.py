"""Dense vectors from a small BERT-shaped ONNX embedding model, run with onnxruntime on the CPU.

An embedding model is a folder with one ``*.onnx`` graph (inputs ``input_ids``, ``attention_mask`` and optionally
``token_type_ids``; first output the last hidden state) and the ``tokenizer.json`` it was trained with. Vectors are
the attention-masked mean of the hidden states, L2-normalised, so a dot product is the cosine (as the
multilingual-e5 model card's own code and its sentence-transformers modules: Pooling(mean) then Normalize). E5-family
models expect ``query: `` / ``passage: `` prefixes; ``embedding.json`` in the folder (written from the catalog entry
when the model manager installs it) sets them, the pooling, the graph file and the similarity floor. Texts are embedded in batches of similar length (less padding); repeated texts — a query asked
again, the same boilerplate paragraph in many files — come from a small in-memory cache.
"""

from __future__ import annotations

import json
import logging
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from localmind import paths
from localmind.errors import UserFacingError

log = logging.getLogger(__name__)

EMBEDDING_MODEL_ID = "multilingual-e5-small"  # the catalog's embedding model, recommended in the README and the UI
MANIFEST_NAME = "localmind-manifest.json"  # as core/hub/manifest.py writes it
MAX_TOKENS = 512
BATCH = 16
CACHE_SIZE = 2048

if TYPE_CHECKING:  # numpy is imported when texts are embedded: the window's start-up does not need it (issue 12)
    import numpy as np

    Vector = np.ndarray[Any, np.dtype[np.float32]]


class EmbeddingModelError(UserFacingError):
    pass


POOLINGS = ("mean", "cls")


@dataclass(frozen=True)
class EmbeddingConfig:
    query_prefix: str = ""
    passage_prefix: str = ""
    max_tokens: int = MAX_TOKENS
    min_similarity: float | None = None  # below this a passage is "not relevant" for the "no matching passages" notice
    pooling: str = "mean"  # "mean": attention-masked mean of the hidden states; "cls": the first token's
    normalize: bool = True
    onnx: str = ""  # the graph, relative to the folder ("" : looked for)

    @staticmethod
    def read(folder: Path) -> EmbeddingConfig:
        path = folder / "embedding.json"
        if not path.is_file():
            # A folder installed with `docs embedder DIR` without embedding.json: e5 by name gets e5's prefixes.
            if "e5" in folder.name.lower():
                return EmbeddingConfig("query: ", "passage: ", MAX_TOKENS, 0.80)
            return EmbeddingConfig()
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
            config = EmbeddingConfig(
                str(raw.get("query_prefix", "")),
                str(raw.get("passage_prefix", "")),
                int(raw.get("max_tokens", MAX_TOKENS)),
                float(raw["min_similarity"]) if raw.get("min_similarity") is not None else None,
                str(raw.get("pooling", "mean")),
                bool(raw.get("normalize", True)),
                str(raw.get("onnx", "")),
            )
        except (OSError, ValueError, TypeError, AttributeError) as exc:
            raise EmbeddingModelError.say(
                "{path} is not readable ({reason}).",
                "Install the embedding model from the model manager again.",
                path=path,
                reason=exc,
            ) from exc
        if config.pooling not in POOLINGS:
            raise EmbeddingModelError.say(
                "{path} asks for {pooling} pooling; LocalMind knows {known}.",
                "Pick another embedding model.",
                path=path,
                pooling=repr(config.pooling),
                known=", ".join(POOLINGS),
            )
        return config


def find_model_file(folder: Path) -> Path | None:
    """The graph to run: the one embedding.json names, else ``model_quantized.onnx`` or ``model.onnx`` at the top or
    in ``onnx/``, else the only one."""
    named = _named_graph(folder)
    if named is not None:
        return named
    for name in ("model_quantized.onnx", "model_int8.onnx", "model.onnx"):
        for candidate in (folder / name, folder / "onnx" / name):
            if candidate.is_file():
                return candidate
    graphs = sorted(folder.glob("*.onnx")) + sorted(folder.glob("onnx/*.onnx"))
    return graphs[0] if graphs else None


def _named_graph(folder: Path) -> Path | None:
    try:
        name = json.loads((folder / "embedding.json").read_text(encoding="utf-8")).get("onnx")
    except (OSError, ValueError, AttributeError):
        return None
    if not isinstance(name, str) or not name or ".." in name.replace("\\", "/").split("/") or Path(name).is_absolute():
        return None
    path = folder / name
    return path if path.is_file() else None


def embedding_models_dir() -> Path:
    """``<data>/embedding-models/<name>/``: apart from the chat models, which the model picker lists."""
    return paths.data_dir() / "embedding-models"


def is_embedding_model(folder: Path) -> bool:
    return (folder / "tokenizer.json").is_file() and find_model_file(folder) is not None


def _downloaded(folder: Path) -> str | None:
    """When ``folder`` is a complete, undamaged embedding model installed by the model manager: its install time.

    Reads the manifest directly (the hub package would bring its HTTP client into every start of the app).
    """
    try:
        manifest = json.loads((folder / MANIFEST_NAME).read_text(encoding="utf-8"))
        if manifest.get("kind") != "embedding" or manifest.get("id") != folder.name or manifest.get("damaged"):
            return None
        for entry in manifest["files"]:
            if (folder / str(entry["path"])).stat().st_size != entry["size"]:
                return None
        return str(manifest.get("installed_at", ""))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def downloaded_embedding_models() -> list[Path]:
    """Embedding models installed by the model manager (``<models>/<id>/``, manifest kind "embedding"), usable ones:
    the recommended one first, then the most recently installed."""
    root = paths.models_dir()
    try:
        folders = [p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")] if root.is_dir() else []
    except OSError:
        return []
    found = [(p, when) for p in folders if (when := _downloaded(p)) is not None and is_embedding_model(p)]
    found.sort(key=lambda pw: pw[1], reverse=True)
    found.sort(key=lambda pw: pw[0].name != EMBEDDING_MODEL_ID)
    return [p for p, _ in found]


def installed_embedding_model() -> Path | None:
    """The embedding model Documents uses: one installed from the model manager (the recommended one first), else one
    installed with ``docs embedder DIR`` (the recommended one if there, else the first usable folder by name)."""
    downloaded = downloaded_embedding_models()
    if downloaded:
        return downloaded[0]
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
    Embedder(source, measure_memory=False).embed_query(
        "check"
    )  # refuses a folder that is not a working model, before copying anything
    target = embedding_models_dir() / source.name
    staging = embedding_models_dir() / f".{source.name}.partial"
    shutil.rmtree(staging, ignore_errors=True)
    shutil.copytree(source, staging)
    if target.exists():
        shutil.rmtree(target)
    staging.rename(target)  # atomic: a half-copied model is never picked up
    return target


def check_embedding_model(folder: Path) -> int:
    """Load the model and embed a query and a passage: the vector width, or EmbeddingModelError saying what is wrong."""
    import numpy as np

    embedder = Embedder(
        folder, threads=1, measure_memory=False
    )  # a staging folder, one thread: not what Documents uses
    try:
        query = embedder.embed_query("check")
        passage = embedder.embed_passages(["A short passage to check the model."])[0]
    except Exception as exc:  # onnxruntime raises its own errors for a graph that does not run
        raise EmbeddingModelError.say(
            "the embedding model in {folder} does not run ({reason}).",
            "Pick another embedding model.",
            folder=folder.name,
            reason=exc,
        ) from exc
    if query.ndim != 1 or query.shape != passage.shape or not query.shape[0] or not np.isfinite(query).all():
        raise EmbeddingModelError.say(
            "the embedding model in {folder} gives no usable vectors.",
            "Pick another embedding model.",
            folder=folder.name,
        )
    return int(query.shape[0])


class Embedder:
    """Turns texts into unit vectors. Thread-safe (one session, a lock around the cache)."""

    def __init__(
        self, folder: Path, threads: int | None = None, batch_size: int = BATCH, measure_memory: bool = True
    ) -> None:
        from tokenizers import Tokenizer

        from localmind.documents.ort_capi import CApiSession
        from localmind.engine.memory import resident_bytes

        # What the model costs in memory: this process's growth from here to the end of its first run (the graph's
        # weights, then the runtime's buffers), shown in the model manager.
        self._resident_before: int | None = resident_bytes() if measure_memory else None
        model_file = find_model_file(folder)
        if model_file is None or not (folder / "tokenizer.json").is_file():
            raise EmbeddingModelError.say(
                "{folder} is not an embedding model folder (it needs an .onnx file and tokenizer.json).",
                "Install the embedding model from the model manager again.",
                folder=folder,
            )
        self.folder = folder
        self.config = EmbeddingConfig.read(folder)
        self.model_id = folder.name
        self.batch_size = batch_size
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.enable_truncation(self.config.max_tokens)
        try:
            # Through ONNX Runtime's C API: the frozen app carries its library but not its Python binding.
            self.session = CApiSession(model_file, threads=threads)
        except Exception as exc:
            raise EmbeddingModelError.say(
                "The embedding model {file} could not be loaded ({reason}).",
                "Install the embedding model from the model manager again.",
                file=model_file.name,
                reason=exc,
            ) from exc
        self.input_names = set(self.session.input_names)
        # The hidden states: by name where the export names it (Optimum/Transformers.js: last_hidden_state; some
        # exports add pooler_output or sentence_embedding), else the first output.
        outputs = list(self.session.output_names)
        self.output_name = "last_hidden_state" if "last_hidden_state" in outputs else outputs[0]
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

    def _record_memory(self, before: int) -> None:
        from localmind.core.model_memory import record_loaded_memory
        from localmind.engine.memory import resident_bytes

        self._resident_before = None
        now = resident_bytes()
        if before and now > before:  # 0: the platform does not say
            record_loaded_memory(self.folder, now - before)

    def _run(self, encodings: list[Any]) -> list[Vector]:
        import numpy as np

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
        hidden = np.asarray(self.session.run([self.output_name], feeds)[0], dtype=np.float32)
        self.runs += 1
        if self._resident_before is not None:
            self._record_memory(self._resident_before)
        if hidden.ndim != 3:
            raise EmbeddingModelError.say(
                "{model}: the model's output has shape {shape}, not [texts, tokens, width].",
                "Pick another embedding model.",
                model=self.model_id,
                shape=hidden.shape,
            )
        if self.config.pooling == "cls":
            pooled = hidden[:, 0, :]
        else:
            weights = mask[:, :, None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1.0)
        if self.config.normalize:
            norms = np.linalg.norm(pooled, axis=1, keepdims=True)
            pooled = pooled / np.maximum(norms, 1e-12)
        return list(pooled.astype(np.float32))
