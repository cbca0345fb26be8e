"""The embedder's ONNX Runtime session over the C API (documents/ort_capi.py) against the Python binding.

The frozen app has no ``onnxruntime`` Python binding (the installer's size budget), so the embedder runs through
the C API of the library it does carry. Every call made there is checked here against ``InferenceSession``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest

from localmind.documents import ort_capi
from localmind.documents.ort_capi import CApiSession, OrtError
from tests.documents.embedding_model import build_embedding_model

CORPUS = ["the quick brown fox jumps over the lazy dog", "长城 是 一 座 古老 的 建筑", "page three holds the answer"]


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_embedding_model(tmp_path_factory.mktemp("embedder"), CORPUS) / "onnx" / "model.onnx"


def feeds(rows: int, width: int, seed: int = 1) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    ids = rng.integers(0, 50, size=(rows, width), dtype=np.int64)
    mask = np.ones_like(ids)
    mask[0, width // 2 :] = 0  # a padded row
    return {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}


def test_the_library_is_the_one_onnxruntime_genai_uses() -> None:
    [first, *_] = ort_capi.library_candidates()
    assert first.name.startswith(("libonnxruntime", "onnxruntime"))
    assert ort_capi.api().version == ort.__version__


def test_names_and_outputs_equal_the_python_binding(model: Path) -> None:
    reference = ort.InferenceSession(str(model), providers=["CPUExecutionProvider"])
    session = CApiSession(model, threads=1)
    assert session.input_names == [i.name for i in reference.get_inputs()]
    assert session.output_names == [o.name for o in reference.get_outputs()]
    for rows, width in ((1, 1), (3, 7), (8, 64)):
        data = feeds(rows, width, seed=rows * width)
        [got] = session.run(None, data)
        [want] = reference.run(None, data)
        assert got.dtype == want.dtype == np.float32 and got.shape == want.shape == (rows, width, 32)
        np.testing.assert_array_equal(got, want)
    session.close()


def test_outputs_belong_to_the_caller(model: Path) -> None:
    session = CApiSession(model)
    [first] = session.run(["last_hidden_state"], feeds(2, 5, seed=3))
    kept = first.copy()
    session.run(None, feeds(2, 5, seed=4))  # ONNX Runtime's buffers are released and reused
    np.testing.assert_array_equal(first, kept)


def test_errors_are_onnx_runtimes_own_words(model: Path, tmp_path: Path) -> None:
    broken = tmp_path / "broken.onnx"
    broken.write_bytes(b"not a graph")
    with pytest.raises(OrtError, match=r"(?i)protobuf|parse|load"):
        CApiSession(broken)
    with pytest.raises(OrtError, match=r"(?i)no_suchfile|not exist|no such file|doesn't exist|load"):
        CApiSession(tmp_path / "missing.onnx")
    session = CApiSession(model)
    with pytest.raises(OrtError, match=r"input_ids|Missing|invalid"):
        session.run(None, {"attention_mask": np.ones((1, 2), np.int64)})
    with pytest.raises(OrtError, match="unsupported input type"):
        session.run(None, {"input_ids": np.ones((1, 2), np.uint8)})
