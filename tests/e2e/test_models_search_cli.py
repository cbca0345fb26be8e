"""``localmind models search`` and onnx-community downloads from the terminal, against the fake hub."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.test_models_cli import localmind, one_line_failure
from tests.helpers.fake_hub import FakeHub, FakeRepo, community_repo_files
from tests.helpers.hub_env import allow_hub_access

SMOL = "onnx-community/SmolLM2-135M-Instruct-ONNX"
WHISPER = "onnx-community/whisper-smollm2-ONNX"


@pytest.fixture
def hub(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeHub]:
    allow_hub_access(monkeypatch)
    server = FakeHub()
    smol = {"model_type": "llama", "architectures": ["LlamaForCausalLM"]}
    whisper = {"model_type": "whisper", "architectures": ["WhisperForConditionalGeneration"]}
    server.add_repo(FakeRepo(SMOL, community_repo_files(config=smol), info={"downloads": 10, "likes": 3}))
    server.add_repo(FakeRepo(WHISPER, community_repo_files(config=whisper), info={"downloads": 999}))
    with server:
        yield server


def test_search_json_lists_compatible_repos_first(hub: FakeHub, tmp_path: Path) -> None:
    proc = localmind(hub, tmp_path, "search", "smollm2", "--json", "--device", "cpu")
    assert proc.returncode == 0, proc.stderr
    results = json.loads(proc.stdout)
    assert [r["repo"] for r in results] == [SMOL, WHISPER]  # the one that runs first, though downloaded less
    assert results[0]["verdict"] == "setup" and results[0]["download"] == "q4" and results[0]["likes"] == 3
    assert results[1]["verdict"] == "unsupported" and "WhisperForConditionalGeneration" in results[1]["reason"]


def test_search_text_says_what_runs_and_how_to_get_it(hub: FakeHub, tmp_path: Path) -> None:
    proc = localmind(hub, tmp_path, "search", "SmolLM2", "--device", "cpu")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert out.index(SMOL) < out.index(WHISPER)
    assert "runs here (LocalMind prepares it)" in out and f"localmind models download {SMOL}" in out
    assert "not supported" in out and "--variant NAME" in out


def test_unsupported_architecture_download_is_one_line_and_fetches_no_weights(hub: FakeHub, tmp_path: Path) -> None:
    line = one_line_failure(localmind(hub, tmp_path, "download", WHISPER))
    assert "WhisperForConditionalGeneration (whisper)" in line and "Supported:" in line
    assert all(hub.bytes_served.get(p, 0) == 0 for p in hub.repos[WHISPER].files if p.startswith("onnx/"))


def test_search_offline_needs_internet(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import os
    import subprocess
    import sys

    env = dict(os.environ, LOCALMIND_DATA_DIR=str(tmp_path), HF_HUB_OFFLINE="0", HF_ENDPOINT="http://127.0.0.1:9")
    proc = subprocess.run(
        [sys.executable, "-m", "localmind", "models", "search", "qwen3"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    line = one_line_failure(proc)
    assert "needs an internet connection" in line and "ConnectError" not in line
