"""The embedding path on a random-weight BERT-shaped ONNX model: structure, batching, caching, hybrid retrieval."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from localmind.documents.embed import Embedder, EmbeddingModelError, installed_embedding_model
from localmind.documents.index import DocumentIndex
from localmind.documents.library import Library
from tests.documents.embedding_model import HIDDEN, build_embedding_model
from tests.documents.files import FACTS, FILLER


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    corpus = [FILLER, *(fact for _, fact, _ in FACTS.values()), "Kestrel Ridge rain gauge lighthouse glacier"] * 5
    return build_embedding_model(tmp_path_factory.mktemp("embed") / "tiny-embedder", corpus)


def test_vectors_are_unit_length_of_the_models_width(model_dir: Path) -> None:
    embedder = Embedder(model_dir)
    vectors = embedder.embed_passages(["The rain gauge at Kestrel Ridge.", "lighthouse", "长城"])
    assert [v.shape for v in vectors] == [(HIDDEN,)] * 3
    assert all(v.dtype == np.float32 for v in vectors)
    np.testing.assert_allclose([np.linalg.norm(v) for v in vectors], 1.0, rtol=1e-5)
    assert not np.allclose(vectors[0], vectors[1])


def test_padding_does_not_change_a_vector(model_dir: Path) -> None:
    """A short text batched with a long one (so padded) gets the vector it gets alone: pooling honours the mask."""
    short = "lighthouse budget"
    alone = Embedder(model_dir).embed_passages([short])[0]
    padded = Embedder(model_dir).embed_passages([short, FILLER * 3])[0]
    np.testing.assert_allclose(alone, padded, atol=1e-6)


def test_batches_and_cache(model_dir: Path) -> None:
    embedder = Embedder(model_dir, batch_size=4)
    texts = [f"passage number {i} about the glacier" for i in range(10)]
    first = embedder.embed_passages(texts)
    assert embedder.runs == 3  # ceil(10 / 4)
    again = embedder.embed_passages([*reversed(texts), "one new text"])
    assert embedder.runs == 4  # only the new text ran
    for a, b in zip(first, reversed(again[:10]), strict=True):
        np.testing.assert_array_equal(a, b)  # order kept through the length sorting and the cache
    embedder.embed_query("what about the glacier")
    embedder.embed_query("what about the glacier")
    assert embedder.runs == 5


def test_a_folder_without_a_graph_is_refused_clearly(tmp_path: Path) -> None:
    with pytest.raises(EmbeddingModelError, match=r"needs an \.onnx file and tokenizer\.json"):
        Embedder(tmp_path)


def test_indexing_stores_vectors_and_hybrid_search_uses_them(corpus: Path, tmp_path: Path, model_dir: Path) -> None:
    library = Library(DocumentIndex(tmp_path / "index.sqlite3"), Embedder(model_dir))
    result = library.add([corpus])
    db = library.index.db
    assert db.execute("SELECT count(*) FROM vectors WHERE model = 'tiny-embedder'").fetchone()[0] == result.added_chunks
    blob = db.execute("SELECT vector FROM vectors LIMIT 1").fetchone()[0]
    assert len(blob) == HIDDEN * 4
    for name, (page, _, question) in FACTS.items():
        top = library.search(question)[0]
        assert (Path(top.file).name, top.page) == (name, page)
    # Dense retrieval alone maps vectors back to their passages: a passage's own text finds it first (cosine 1).
    # (The query side adds no prefix for this model, so query and passage vectors are comparable.)
    chunk_id, text = db.execute("SELECT id, text FROM chunks WHERE text LIKE '%Kestrel%'").fetchone()
    dense = library.retriever.dense(text, library.embedder)  # type: ignore[arg-type]
    assert dense[0][0] == chunk_id and dense[0][1] > 0.999
    assert len(dense) == result.added_chunks  # every passage scored


def test_vectors_are_added_for_passages_indexed_before_the_model(corpus: Path, tmp_path: Path, model_dir: Path) -> None:
    path = tmp_path / "index.sqlite3"
    plain = Library(DocumentIndex(path))
    added = plain.add([corpus]).added_chunks
    plain.close()
    library = Library(DocumentIndex(path), Embedder(model_dir))
    assert library.embed_missing() == added
    assert library.embed_missing() == 0


def test_an_installed_model_is_found_and_used(model_dir: Path, tmp_path: Path) -> None:
    from localmind.documents.embed import install_embedding_model

    assert installed_embedding_model() is None and Library.open().embedder is None
    with pytest.raises(EmbeddingModelError):
        install_embedding_model(tmp_path)  # not a model: nothing copied
    assert installed_embedding_model() is None
    target = install_embedding_model(model_dir)
    assert installed_embedding_model() == target and target.name == "tiny-embedder"
    library = Library.open()
    assert library.embedder is not None and library.embedder.model_id == "tiny-embedder"


def test_the_embedder_command_installs_and_embeds_what_is_indexed(
    corpus: Path, model_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    from localmind.cli import main
    from localmind.documents.library import index_path

    assert main(["docs", "add", str(corpus), "--json"]) == 0
    added = json.loads(capsys.readouterr().out)["added_chunks"]
    assert main(["docs", "embedder", str(model_dir)]) == 0
    assert f"{added} passages embedded" in capsys.readouterr().out
    index = DocumentIndex(index_path())
    assert index.db.execute("SELECT count(*) FROM vectors WHERE model = 'tiny-embedder'").fetchone()[0] == added
    assert main(["docs", "search", "Kestrel Ridge rain gauge", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["page"] == 3
