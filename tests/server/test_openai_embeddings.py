"""``/v1/embeddings`` of ``localmind serve`` through the official ``openai`` client: the installed embedding model (the
random-weight BERT-shaped one the documents tests build, installed where Documents finds it), float and base64 (the
client decodes base64 itself), a list of texts, usage, and 404 when no embedding model is installed."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import openai
import pytest

from localmind.documents.embed import Embedder
from tests.documents.embedding_model import HIDDEN, build_embedding_model
from tests.server.serving import Server, start_server

pytestmark = pytest.mark.slow

CORPUS = ["the quick brown fox jumps over the lazy dog", "rain gauge lighthouse glacier", "你好 世界"] * 5
NAME = "tiny-embedder"


@pytest.fixture(scope="module")
def served(tiny_model: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, Path]]:
    data = tmp_path_factory.mktemp("serve-emb")
    folder = build_embedding_model(data / "embedding-models" / NAME, CORPUS)
    server = start_server(tiny_model, data, env={"LOCALMIND_DATA_DIR": str(data)})
    yield server, folder
    server.stop()


def client_for(server: Server) -> openai.OpenAI:
    return openai.OpenAI(base_url=server.v1, api_key="unused", max_retries=0, timeout=30)


def test_float_and_base64_embeddings(served: tuple[Server, Path]) -> None:
    server, folder = served
    texts = ["the quick fox", "glacier 你好"]
    expected = Embedder(folder, measure_memory=False).embed_passages(texts)
    with client_for(server) as client:
        floats = client.embeddings.create(model=NAME, input=texts)
        assert floats.model == NAME and [d.index for d in floats.data] == [0, 1]
        for item, vector in zip(floats.data, expected, strict=True):
            assert len(item.embedding) == HIDDEN and np.allclose(item.embedding, vector, atol=1e-6)
        assert floats.usage.prompt_tokens == floats.usage.total_tokens > 4
        # Without encoding_format the client asks for base64 and decodes it itself; asked for explicitly, the
        # string is the caller's to decode (little-endian float32).
        implicit = client.embeddings.create(model=NAME, input=texts[0])
        assert np.allclose(np.asarray(implicit.data[0].embedding, dtype=np.float32), expected[0], atol=1e-6)
        explicit = client.embeddings.create(model=NAME, input=[texts[0]], encoding_format="base64")
        raw = base64.b64decode(str(explicit.data[0].embedding))
        assert np.allclose(np.frombuffer(raw, dtype="<f4"), expected[0], atol=1e-6)
        with pytest.raises(openai.NotFoundError, match=f"use '{NAME}'"):
            client.embeddings.create(model="text-embedding-3-small", input="x")
        with pytest.raises(openai.BadRequestError, match="input"):
            client.embeddings.create(model=NAME, input=[[1, 2, 3]])


def test_no_embedding_model_installed_is_a_404(tiny_server: Server) -> None:
    with (
        client_for(tiny_server) as client,
        pytest.raises(openai.NotFoundError, match="No embedding model is installed"),
    ):
        client.embeddings.create(model="multilingual-e5-small", input="hello")
