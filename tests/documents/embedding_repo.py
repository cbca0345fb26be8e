"""A Transformers.js-style embedding repo (as Xenova/multilingual-e5-small is laid out) for the fake hub.

Real, runnable files where LocalMind fetches them: the random-weight BERT-shaped encoder (tests/documents/
embedding_model.py) as ``onnx/model.onnx`` and its 8-bit dynamic quantization as ``onnx/model_quantized.onnx``
(onnxruntime's own quantizer, as Transformers.js exports are made); filler bytes for the variants and files a
download must NOT fetch (fp16 graph, sentencepiece model), so a test can tell they never came.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.documents.embedding_model import build_embedding_model
from tests.documents.files import FACTS, FILLER
from tests.helpers.fake_hub import FakeHub, FakeRepo, pseudo_random_bytes
from tests.helpers.hub_env import allow_hub_access

E5_REPO = "Xenova/multilingual-e5-small"  # the catalog entry's repo
E5_ID = "multilingual-e5-small"  # the catalog entry's id


def build_repo_model(folder: Path) -> Path:
    corpus = [FILLER, *(fact for _, fact, _ in FACTS.values()), "Kestrel Ridge rain gauge lighthouse glacier"] * 5
    build_embedding_model(folder, corpus)
    from onnxruntime.quantization import QuantType, quantize_dynamic

    quantize_dynamic(
        str(folder / "onnx" / "model.onnx"), str(folder / "onnx" / "model_quantized.onnx"), weight_type=QuantType.QInt8
    )
    return folder


def embedding_repo_files(model: Path) -> dict[str, bytes]:
    return {
        "config.json": json.dumps({"model_type": "bert", "architectures": ["BertModel"], "hidden_size": 32}).encode(),
        "quant_config.json": b'{"per_channel": false}',
        "special_tokens_map.json": b"{}",
        "tokenizer_config.json": b'{"model_max_length": 512}',
        "tokenizer.json": (model / "tokenizer.json").read_bytes(),
        "sentencepiece.bpe.model": pseudo_random_bytes(30_000, seed=7),
        "onnx/model.onnx": (model / "onnx" / "model.onnx").read_bytes(),
        "onnx/model_quantized.onnx": (model / "onnx" / "model_quantized.onnx").read_bytes(),
        "onnx/model_fp16.onnx": pseudo_random_bytes(40_000, seed=8),
        "README.md": b"# multilingual-e5-small, a test stand-in\n",
        ".gitattributes": b"*.onnx filter=lfs diff=lfs merge=lfs -text\n",
    }


@contextlib.contextmanager
def e5_hub(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeHub]:
    """A fake hub on 127.0.0.1 serving the embedding model's repo (random weights, the real layout)."""
    allow_hub_access(monkeypatch)
    model = build_repo_model(tmp_path_factory.mktemp("e5-repo") / "export")
    server = FakeHub()
    server.add_repo(FakeRepo(E5_REPO, embedding_repo_files(model)))
    with server:
        yield server
