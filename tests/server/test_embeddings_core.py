"""/v1/embeddings' work apart from HTTP, on the random-weight BERT-shaped model the documents tests build: the vectors
are the Embedder's (as Documents stores them), base64 decodes to the same floats, usage counts the model's tokens,
and every refusal names its field."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import numpy as np
import pytest

from localmind.documents.embed import Embedder
from localmind.server.embeddings import EmbeddingRequestError, EmbeddingService, embed, texts_of
from tests.documents.embedding_model import HIDDEN, build_embedding_model

CORPUS = ["the quick brown fox jumps over the lazy dog", "rain gauge lighthouse glacier", "你好 世界"] * 5


@pytest.fixture(scope="module")
def model_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = build_embedding_model(tmp_path_factory.mktemp("emb") / "tiny-e5", CORPUS)
    (folder / "embedding.json").write_text(json.dumps({"passage_prefix": "passage: ", "max_tokens": 16}))
    return folder


def test_float_and_base64_are_the_same_vectors(model_folder: Path) -> None:
    service = EmbeddingService(lambda: model_folder)
    embedder = service.embedder("tiny-e5")
    texts = ["the quick fox", "lighthouse glacier"]
    floats = embed(embedder, "tiny-e5", texts)
    assert floats["object"] == "list" and floats["model"] == "tiny-e5"
    assert [d["index"] for d in floats["data"]] == [0, 1]
    reference = Embedder(model_folder, measure_memory=False).embed_passages(texts)
    for item, vector in zip(floats["data"], reference, strict=True):
        assert len(item["embedding"]) == HIDDEN
        assert np.allclose(item["embedding"], vector, atol=1e-6)
    packed = embed(embedder, "tiny-e5", texts, encoding_format="base64")
    for item, vector in zip(packed["data"], reference, strict=True):
        assert np.allclose(np.frombuffer(base64.b64decode(item["embedding"]), dtype="<f4"), vector, atol=1e-6)
    tokens = sum(len(embedder.tokenizer.encode("passage: " + t).ids) for t in texts)
    assert floats["usage"] == {"prompt_tokens": tokens, "total_tokens": tokens}
    assert service.embedder("tiny-e5") is embedder  # loaded once


def test_refusals_name_the_field(model_folder: Path) -> None:
    with pytest.raises(EmbeddingRequestError) as none:
        EmbeddingService(lambda: None).embedder("anything")
    assert none.value.status == 404 and "No embedding model is installed" in none.value.message
    with pytest.raises(EmbeddingRequestError) as other:
        EmbeddingService(lambda: model_folder).embedder("text-embedding-3-small")
    assert other.value.status == 404 and "use 'tiny-e5'" in other.value.message
    for bad in ([], [1, 2, 3], [""], 5, ["x"] * 3000):
        with pytest.raises(EmbeddingRequestError) as caught:
            texts_of(bad)
        assert caught.value.status == 400 and caught.value.param == "input"
    assert texts_of("one") == ["one"]
    embedder = EmbeddingService(lambda: model_folder).embedder("tiny-e5")
    with pytest.raises(EmbeddingRequestError, match="longer than the embedding model reads") as long:
        embed(embedder, "tiny-e5", ["fox " * 40])
    assert long.value.code == "context_length_exceeded"
    with pytest.raises(EmbeddingRequestError, match="'dimensions' must be 32"):
        embed(embedder, "tiny-e5", ["fox"], dimensions=8)
