"""The release job reports which devices each engine build loads (Windows: after registering Windows ML's providers)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[2]
WORKFLOW = REPO / ".github" / "workflows" / "release.yml"
SUMMARY = REPO / "packaging" / "devices_summary.py"


def summarize(info: dict[str, Any], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "info.json"
    path.write_text(json.dumps(info), encoding="utf-8")
    return subprocess.run([sys.executable, str(SUMMARY), str(path), "Devices"], capture_output=True, text=True)


def test_the_real_info_report_becomes_the_summary(tiny_model: Path, tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "localmind", "info", "--model", str(tiny_model), "--json"],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    info = json.loads(out.stdout)
    assert info["winml"]["active"] is False  # not Windows: nothing registered, and it says why
    result = summarize(info, tmp_path)
    assert result.returncode == 0, result.stderr
    assert "| cpu (CPU) | yes |" in result.stdout
    assert "Windows ML: not used (not Windows)" in result.stdout


def test_a_build_that_loads_nothing_fails_the_job(tmp_path: Path) -> None:
    info = {
        "onnxruntime_genai": "0.18.0 (onnxruntime-genai-winml)",
        "platform": "Windows 10",
        "devices": [
            {"device": "dml", "label": "GPU (DirectML)", "ok": False, "reason": "no adapter | none"},
            {"device": "cpu", "label": "CPU", "ok": False, "reason": "bad model"},
        ],
        "winml": {
            "active": True,
            "reason": "",
            "registered": [],
            "needs_download": ["QNNExecutionProvider"],
            "failed": {"OpenVINOExecutionProvider": "refused"},
        },
    }
    result = summarize(info, tmp_path)
    assert result.returncode == 1
    assert "no adapter \\| none" in result.stdout  # a pipe in a reason cannot break the table
    assert "available only after a download: QNNExecutionProvider" in result.stdout
    assert "- OpenVINOExecutionProvider failed: refused" in result.stdout


def test_the_release_job_publishes_the_devices_before_bundling() -> None:
    steps = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))["jobs"]["build"]["steps"]
    names = [step.get("name", "") for step in steps]
    devices = next(i for i, name in enumerate(names) if name.startswith("Devices this engine build loads"))
    engine = next(i for i, name in enumerate(names) if name.startswith("Engine build for this platform"))
    assert engine < names.index("Tiny test model and icons") < devices < names.index("Bundle (PyInstaller)")
    run = steps[devices]["run"]
    assert "localmind info --model build/tiny-model --json" in run
    assert "devices_summary.py" in run and "GITHUB_STEP_SUMMARY" in run
    assert "--self-test --model build/tiny-model" in run
    assert "pip install windowsml" in steps[engine]["run"]  # the catalog the WinML build registers from
