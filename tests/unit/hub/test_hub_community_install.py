"""A real onnx-community export (random weights, SmolLM2 shape) downloaded from the fake hub: only the q4 variant
comes, LocalMind writes its genai_config.json and rewrites the graph, the manifest says so, verify passes, and the
real engine chats with it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from localmind.core.hub import DownloadJob, DownloadProgress, DownloadRequest, HubSettings, verify_model
from localmind.engine.local import LocalEngine
from localmind.engine.types import ChatMessage, GenerationOptions, LoadOptions, TextDelta
from tests.helpers.fake_hub import FakeHub, FakeRepo, community_repo_files
from tests.helpers.hub_env import allow_hub_access, fast_settings

REPO = "onnx-community/SmolLM2-135M-Instruct-ONNX"

# The random-weight onnx-community fixture comes with the formats work (tests/helpers/community_model.py).
cached = pytest.importorskip("tests.helpers.community_model", reason="needs formats' fixture builder").cached

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def community_model() -> Path:
    return cached("smollm2-tiny")


@pytest.fixture
def hub(community_model: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeHub]:
    allow_hub_access(monkeypatch)
    server = FakeHub()
    server.add_repo(FakeRepo(REPO, community_repo_files(community_model)))
    with server:
        yield server


def test_download_prepares_and_chats(hub: FakeHub, community_model: Path) -> None:
    settings: HubSettings = fast_settings(hub)
    phases: list[str] = []

    def progress(p: DownloadProgress) -> None:
        if not phases or phases[-1] != p.phase:
            phases.append(p.phase)

    model = DownloadJob(DownloadRequest(REPO, device="cpu"), settings=settings, on_progress=progress).run()
    assert model.ok and model.id == "smollm2-135m-instruct-onnx-q4"
    assert phases[-3:] == ["preparing", "installing", "done"]
    # Only the q4 graph of all the variants on the hub.
    onnx_files = sorted(p.relative_to(model.folder).as_posix() for p in model.folder.glob("onnx/*"))
    assert onnx_files == ["onnx/model_q4.onnx"]
    served = {p for p, n in hub.bytes_served.items() if n}
    assert not any(p.startswith("onnx/") and p != "onnx/model_q4.onnx" for p in served)

    generated = model.manifest.generated
    assert generated is not None
    assert generated["variant"] == "q4" and generated["config"] == "genai_config.json"
    assert "config.json" in generated["from"] and "onnx/model_q4.onnx" in generated["from"]
    assert any("accuracy_level" in r for r in generated["rewrites"])
    # The rewritten graph is what the manifest hashes now; the Hub's hash is kept beside it.
    assert "onnx/model_q4.onnx" in generated["changed_files"]
    paths_in_manifest = {f.path for f in model.manifest.files}
    assert {"genai_config.json", "onnx/model_q4.onnx", "config.json"} <= paths_in_manifest
    assert verify_model(model.id).ok
    config = json.loads((model.folder / "genai_config.json").read_text())
    assert config["model"]["decoder"]["filename"] == "onnx/model_q4.onnx"

    engine = LocalEngine()
    info = engine.load(str(model.folder), LoadOptions(device="cpu"))
    assert info.memory_bytes > 0
    text = "".join(
        e.text
        for e in engine.generate([ChatMessage("user", "Hello")], GenerationOptions(temperature=0, max_new_tokens=8))
        if isinstance(e, TextDelta)
    )
    assert text  # random weights: some text, produced by the downloaded, prepared graph
