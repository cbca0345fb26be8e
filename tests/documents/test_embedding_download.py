"""The embedding model through the model manager's download path, against the fake hub on loopback: the catalog entry
→ only its 8-bit graph and tokenizer are fetched → hashes verified → installed as an embedding model (not offered to
the chat) → Documents finds it and searches with vectors. And ``localmind models download <id>`` from a terminal."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from localmind import paths
from localmind.core.catalog import find_entry, load_catalog, machine_info, recommend
from localmind.core.hub import DownloadJob, HubError, list_installed, request_for_catalog, verify_model
from localmind.documents.embed import check_embedding_model, installed_embedding_model
from localmind.documents.library import Library
from tests.documents.embedding_repo import E5_ID, E5_REPO, build_repo_model, embedding_repo_files
from tests.helpers.fake_hub import FakeHub, FakeRepo
from tests.helpers.hub_env import allow_hub_access, fast_settings


@pytest.fixture(scope="module")
def repo_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_repo_model(tmp_path_factory.mktemp("e5-repo") / "export")


@pytest.fixture
def hub(repo_model: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeHub]:
    allow_hub_access(monkeypatch)
    server = FakeHub()
    server.add_repo(FakeRepo(E5_REPO, embedding_repo_files(repo_model)))
    with server:
        yield server


def test_the_catalog_lists_it_as_an_embedding_model_never_recommended_for_chat() -> None:
    entry = find_entry(load_catalog(), E5_ID)
    assert entry is not None and entry.kind == "embedding" and entry.repo == E5_REPO
    assert entry.embedding["query_prefix"] == "query: " and entry.embedding["passage_prefix"] == "passage: "
    assert entry.embedding["pooling"] == "mean" and entry.embedding["normalize"] is True
    assert entry.variant_for("cpu").variant == "quantized"
    pick = recommend(load_catalog(), machine_info())
    assert pick is None or pick.kind == "chat"


def test_download_verify_install_and_search_with_vectors(hub: FakeHub, corpus: Path) -> None:
    entry = find_entry(load_catalog(), E5_ID)
    assert entry is not None
    assert installed_embedding_model() is None and Library.open().embedder is None

    model = DownloadJob(
        request_for_catalog(entry), settings=fast_settings(hub), embedding_check=check_embedding_model
    ).run()

    assert model.ok and model.id == E5_ID and model.kind == "embedding"
    assert model.folder == paths.models_dir() / E5_ID
    # Only the 8-bit graph and the small files: not fp32, not fp16, not the sentencepiece model.
    served = {p for p, n in hub.bytes_served.items() if n}
    assert "onnx/model_quantized.onnx" in served and "tokenizer.json" in served
    assert not {"onnx/model.onnx", "onnx/model_fp16.onnx", "sentencepiece.bpe.model"} & served
    assert sorted(p.name for p in (model.folder / "onnx").iterdir()) == ["model_quantized.onnx"]
    # embedding.json carries the catalog's settings and is itself in the manifest (verify covers it).
    config = json.loads((model.folder / "embedding.json").read_text(encoding="utf-8"))
    assert config["query_prefix"] == "query: " and config["onnx"] == "onnx/model_quantized.onnx"
    assert config["min_similarity"] == entry.embedding["min_similarity"]
    assert "embedding.json" in {f.path for f in model.manifest.files}
    generated = model.manifest.generated or {}
    assert generated["layout"] == "embedding" and generated["dimensions"] == 32
    assert verify_model(E5_ID).ok
    from localmind.core.hub.details import model_facts
    from localmind.ui.model_manager.details import facts_text

    facts = model_facts(model.model_path, model.manifest)
    assert facts.context_length == 512 and facts.quantization == "8-bit" and facts.kind == "embedding"
    # Not measured yet (the install's own check ran on the staging folder, with one thread): the manager says when.
    assert facts.memory_bytes is None
    assert "Memory: measured when Documents first uses it" in facts_text(facts)
    assert [m.id for m in list_installed() if m.kind == "chat"] == []

    # Documents picks it up: vectors for every passage, under the model's id, and dense search finds them.
    assert installed_embedding_model() == model.folder
    library = Library.open()
    assert library.embedder is not None and library.embedder.model_id == E5_ID
    assert library.embedder.config.query_prefix == "query: "
    added = library.add([corpus]).added_chunks
    db = library.index.db
    assert db.execute("SELECT count(*) FROM vectors WHERE model = ?", (E5_ID,)).fetchone()[0] == added > 0
    dense = library.retriever.dense("Kestrel Ridge rain gauge", library.embedder)
    assert dense, "no passage scored by vectors"
    top = library.search("Kestrel Ridge rain gauge")[0]
    assert (Path(top.file).name, top.page) == ("field-notes.pdf", 3)
    library.close()
    # Its first run in Documents measured what it costs in memory; the manager shows that, not a chat load figure.
    facts = model_facts(model.model_path, model.manifest)
    assert facts.memory_bytes is not None and facts.memory_bytes > 0
    text = facts_text(facts)
    assert "while Documents uses it" in text and "measured" not in text and "when loaded" not in text

    # A damaged graph: verify says so, and Documents no longer uses it (keyword search only).
    graph = model.folder / "onnx" / "model_quantized.onnx"
    graph.write_bytes(graph.read_bytes()[:-1])
    assert installed_embedding_model() is None
    assert not verify_model(E5_ID).ok


def test_a_repo_without_a_tokenizer_is_refused_before_any_weights(hub: FakeHub, repo_model: Path) -> None:
    files = embedding_repo_files(repo_model)
    del files["tokenizer.json"]
    hub.add_repo(FakeRepo("someone/no-tokenizer", files))
    entry = find_entry(load_catalog(), E5_ID)
    assert entry is not None
    from dataclasses import replace

    request = replace(request_for_catalog(entry), repo="someone/no-tokenizer")
    with pytest.raises(HubError, match=r"no tokenizer\.json"):
        DownloadJob(request, settings=fast_settings(hub), embedding_check=check_embedding_model).run()
    assert not any(p.startswith("onnx/") for p, n in hub.bytes_served.items() if n)
    assert installed_embedding_model() is None


def test_a_graph_that_does_not_embed_is_not_installed(hub: FakeHub, repo_model: Path) -> None:
    files = embedding_repo_files(repo_model)
    files["onnx/model_quantized.onnx"] = b"not an onnx graph at all"
    hub.add_repo(FakeRepo("someone/broken-e5", files))
    entry = find_entry(load_catalog(), E5_ID)
    assert entry is not None
    from dataclasses import replace

    request = replace(request_for_catalog(entry), repo="someone/broken-e5")
    with pytest.raises(HubError, match="not a usable embedding model"):
        DownloadJob(request, settings=fast_settings(hub), embedding_check=check_embedding_model).run()
    assert list_installed() == [] and installed_embedding_model() is None


def test_models_download_from_the_terminal(hub: FakeHub, data_dir: Path, corpus: Path) -> None:
    env = dict(os.environ, LOCALMIND_DATA_DIR=str(data_dir), HF_HUB_OFFLINE="0", HF_ENDPOINT=hub.endpoint)

    def localmind(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "localmind", *args], capture_output=True, text=True, timeout=120, env=env
        )

    proc = localmind("models", "download", E5_ID)
    assert proc.returncode == 0, proc.stderr
    assert f"Installed {E5_ID}" in proc.stdout
    listed = json.loads(localmind("models", "list", "--json").stdout)
    row = next(m for m in listed["installed"] if m["id"] == E5_ID)
    assert row["ok"] and row["kind"] == "embedding"
    assert next(e for e in listed["catalog"] if e["id"] == E5_ID)["kind"] == "embedding"
    text = localmind("models", "list").stdout
    assert "embedding model: `localmind docs` searches by meaning with it" in text
    added = localmind("docs", "add", str(corpus), "--json")
    assert added.returncode == 0, added.stderr
    chunks = json.loads(added.stdout)["added_chunks"]
    db = sqlite3.connect(data_dir / "documents.sqlite3")
    try:
        assert db.execute("SELECT count(*) FROM vectors WHERE model = ?", (E5_ID,)).fetchone()[0] == chunks
    finally:
        db.close()


def test_by_repo_id_the_catalog_embedding_model_installs_as_the_catalog_entry(hub: FakeHub) -> None:
    from localmind.core.hub import DownloadRequest

    # As the model manager's search and `models download owner/name` ask: a plain request by repo id (any case).
    model = DownloadJob(
        DownloadRequest(E5_REPO.lower()), settings=fast_settings(hub), embedding_check=check_embedding_model
    ).run()
    assert model.ok and model.id == E5_ID and model.kind == "embedding"
    assert {p for p, n in hub.bytes_served.items() if n and p.startswith("onnx/")} == {"onnx/model_quantized.onnx"}
    config = json.loads((model.folder / "embedding.json").read_text(encoding="utf-8"))
    assert config["query_prefix"] == "query: " and config["pooling"] == "mean"  # the catalog's settings
    assert verify_model(E5_ID).ok and installed_embedding_model() == model.folder
    assert [m.id for m in list_installed() if m.kind == "chat"] == []


def test_other_encoders_are_refused_saying_how_to_get_the_embedding_model(
    hub: FakeHub, repo_model: Path, data_dir: Path
) -> None:
    from localmind.core.hub import DownloadRequest

    files = embedding_repo_files(repo_model)
    files["config.json"] = json.dumps({"model_type": "xlm-roberta", "architectures": ["XLMRobertaModel"]}).encode()
    hub.add_repo(FakeRepo("someone/other-encoder", files))
    with pytest.raises(HubError) as refused:
        DownloadJob(
            DownloadRequest("someone/other-encoder"), settings=fast_settings(hub), embedding_check=check_embedding_model
        ).run()
    assert "someone/other-encoder cannot be used" in refused.value.message
    assert "embedding model" in refused.value.hint and "localmind models download multilingual-e5-small" in (
        refused.value.hint
    )
    assert not any(p.startswith("onnx/") for p, n in hub.bytes_served.items() if n)  # refused before any weights
    assert list_installed() == []
    # The model manager's search says what it is and where to get the one Documents uses.
    from PySide6.QtCore import QObject

    from localmind.core.hub.search import check_repo
    from localmind.ui.model_manager.search import SearchPanel

    verdict = check_repo("someone/other-encoder", settings=fast_settings(hub))
    assert not verdict.runs
    assert SearchPanel.why_text(QObject(), verdict).startswith("An embedding model, not a chat model.")  # type: ignore[arg-type]

    # The same in a terminal, and there the catalog's repo id installs the embedding model.
    env = dict(os.environ, LOCALMIND_DATA_DIR=str(data_dir), HF_HUB_OFFLINE="0", HF_ENDPOINT=hub.endpoint)

    def localmind(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "localmind", *args], capture_output=True, text=True, timeout=120, env=env
        )

    proc = localmind("models", "download", "someone/other-encoder")
    assert proc.returncode != 0 and "localmind models download multilingual-e5-small" in proc.stderr, proc.stderr
    proc = localmind("models", "download", E5_REPO)
    assert proc.returncode == 0, proc.stderr
    row = next(m for m in json.loads(localmind("models", "list", "--json").stdout)["installed"] if m["id"] == E5_ID)
    assert row["ok"] and row["kind"] == "embedding"
