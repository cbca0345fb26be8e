"""``localmind models ...`` as a user runs it: real subprocesses against the fake hub on loopback."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers.fake_hub import DEVICE_FOLDER, FakeHub
from tests.helpers.hub_env import (
    GATED_REPO,
    REPO,
    WEIGHTS,
    WEIGHTS_PATH,
    WEIGHTS_SIZE,
    running_hub,
)

MODEL_ID = "tiny-onnx-cpu-int4-rtn-block-32-acc-level-4"


@pytest.fixture
def hub(tiny_model: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeHub]:
    with running_hub(tiny_model, monkeypatch) as server:
        yield server


def env_for(hub: FakeHub | None, data_dir: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["LOCALMIND_DATA_DIR"] = str(data_dir)
    env["HF_HUB_OFFLINE"] = "0"
    if hub is not None:
        env["HF_ENDPOINT"] = hub.endpoint
    return env


def localmind(
    hub: FakeHub | None, data_dir: Path, *args: str, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "localmind", "models", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=env_for(hub, data_dir),
        input=stdin,
    )


def one_line_failure(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 1, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.startswith("localmind: ")]
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    return lines[0]


def test_download_list_verify_remove(hub: FakeHub, data_dir: Path) -> None:
    proc = localmind(hub, data_dir, "download", REPO, "--include", DEVICE_FOLDER)
    assert proc.returncode == 0, proc.stderr
    assert f"Installed {MODEL_ID}" in proc.stdout
    assert f"{MODEL_ID}: done" in proc.stderr and "%" in proc.stderr

    listed = localmind(hub, data_dir, "list")
    assert MODEL_ID in listed.stdout and "ok" in listed.stdout and REPO in listed.stdout
    assert localmind(hub, data_dir, "download", REPO, "--include", DEVICE_FOLDER).returncode == 0  # already there: fine

    assert localmind(hub, data_dir, "verify", MODEL_ID).returncode == 0
    weights = data_dir / "models" / MODEL_ID / WEIGHTS
    data = bytearray(weights.read_bytes())
    data[-1] ^= 1
    weights.write_bytes(bytes(data))
    line = one_line_failure(localmind(hub, data_dir, "verify", MODEL_ID))
    assert f"{MODEL_ID} is damaged: 1 of" in line and "models remove" in line
    assert "DAMAGED" in localmind(hub, data_dir, "list").stdout

    assert localmind(hub, data_dir, "remove", MODEL_ID).returncode == 0
    assert MODEL_ID not in localmind(hub, data_dir, "list").stdout


def test_failures_are_one_line_with_a_reason(hub: FakeHub, data_dir: Path, tmp_path: Path) -> None:
    assert "was not found on Hugging Face" in one_line_failure(localmind(hub, data_dir, "download", "nobody/nothing"))
    assert "Accept the model's licence" in one_line_failure(localmind(hub, data_dir, "download", GATED_REPO))
    hub.faults.missing.add(WEIGHTS_PATH)
    assert "no longer in" in one_line_failure(localmind(hub, data_dir, "download", REPO))
    assert "No installed model" in one_line_failure(localmind(hub, data_dir, "verify", "nope"))
    assert "does not hold a model LocalMind can open" in one_line_failure(
        localmind(hub, data_dir, "import", str(tmp_path))
    )
    listed = localmind(hub, data_dir, "list", "--json")
    assert '"installed": []' in listed.stdout


def test_gated_download_with_a_token_from_stdin(hub: FakeHub, data_dir: Path) -> None:
    from tests.helpers.hub_env import TOKEN

    proc = localmind(hub, data_dir, "download", GATED_REPO, "--token-stdin", stdin=TOKEN + "\n")
    assert proc.returncode == 0, proc.stderr
    assert not any(TOKEN.encode() in p.read_bytes() for p in data_dir.rglob("*") if p.is_file())


def test_import_folder_and_zip(tiny_model: Path, data_dir: Path, tmp_path: Path) -> None:
    import shutil

    proc = localmind(None, data_dir, "import", str(tiny_model), "--id", "copied")
    assert proc.returncode == 0 and "Imported copied" in proc.stdout, proc.stderr
    archive = shutil.make_archive(str(tmp_path / "tiny"), "zip", tiny_model)
    proc = localmind(None, data_dir, "import", archive)
    assert proc.returncode == 0 and "Imported tiny" in proc.stdout, proc.stderr
    listed = localmind(None, data_dir, "list").stdout
    assert "copied" in listed and "tiny " in listed


def test_killed_download_resumes_with_range(hub: FakeHub, data_dir: Path) -> None:
    hub.faults.throttle_bps = 400_000
    cmd = [sys.executable, "-m", "localmind", "models", "download", REPO, "--id", "tiny"]
    part = data_dir / "models" / ".staging" / "tiny" / (WEIGHTS + ".part")
    proc = subprocess.Popen(cmd, env=env_for(hub, data_dir), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not (part.exists() and part.stat().st_size >= 150_000):
            time.sleep(0.02)
        proc.kill()  # SIGKILL on POSIX, TerminateProcess on Windows: no chance to clean up either way
    finally:
        proc.wait(10)
    kept = part.stat().st_size
    assert 150_000 <= kept < WEIGHTS_SIZE
    listed = localmind(hub, data_dir, "list")
    assert "Installed models:\n  (none yet" in listed.stdout and "Unfinished downloads" in listed.stdout

    hub.faults.throttle_bps = None
    served_before = hub.bytes_served[WEIGHTS_PATH]
    resumed = localmind(hub, data_dir, "download", REPO, "--id", "tiny")
    assert resumed.returncode == 0, resumed.stderr
    requests = hub.body_requests(WEIGHTS_PATH)
    assert requests[-1].range == f"bytes={kept}-" and requests[-1].status == 206
    assert hub.bytes_served[WEIGHTS_PATH] - served_before == WEIGHTS_SIZE - kept  # the rest only, not from zero
    assert localmind(hub, data_dir, "verify", "tiny").returncode == 0
