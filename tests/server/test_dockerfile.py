"""The Dockerfile, checked here without a container engine (CI's docker.yml builds and runs it for real).

Its structure is read with the `dockerfile` package (BuildKit's own parser); its start command is run here as
the image runs it, on a model installed the way its build installs one.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import httpx2 as httpx
import pytest

from tests.server.serving import free_port

ROOT = Path(__file__).resolve().parents[2]
dockerfile = pytest.importorskip("dockerfile")
tomllib = pytest.importorskip("tomllib")  # Python 3.11+


def stages() -> list[list[object]]:
    commands = dockerfile.parse_file(str(ROOT / "Dockerfile"))
    out: list[list[object]] = []
    for command in commands:
        if command.cmd == "FROM":
            out.append([])
        if out:
            out[-1].append(command)
    return out


def test_multi_stage_slim_non_root() -> None:
    parts = stages()
    assert len(parts) >= 3
    bases = [s[0].value[0] for s in parts]  # type: ignore[attr-defined]
    assert all((b.startswith("python:") and b.endswith("-slim")) or b in ("app",) for b in bases), bases
    final = parts[-1]
    users = [c.value[0] for c in final if c.cmd == "USER"]  # type: ignore[attr-defined]
    assert users and users[-1] not in ("0", "root")
    text = "\n".join(c.original for c in final)  # type: ignore[attr-defined]
    assert "pip install" not in text and "PySide6" not in text  # the final stage only copies


def test_model_is_baked_in_with_localmind_models_download() -> None:
    text = (ROOT / "Dockerfile").read_text()
    assert re.search(r"^ARG MODEL=\S+", text, re.M)
    assert 'localmind models download "$MODEL"' in text


def test_server_dependencies_match_pyproject() -> None:
    """The image installs the package without its deps; the list it installs instead must not drift."""
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    # The window's and the documents feature's; `localmind serve` never imports them (test_http_api checks).
    not_for_the_server = {"pyside6-essentials", "pypdf", "python-docx", "tokenizers"}
    wanted = {re.split(r"[<>=;\[ ]", d)[0].lower() for d in deps} - not_for_the_server
    text = (ROOT / "Dockerfile").read_text()
    installed = {
        m.lower() for m in re.findall(r'"([A-Za-z0-9_.-]+)(?:[<>=][^"]*)?"', text.split("FROM app AS model")[0])
    }
    assert wanted <= installed, wanted - installed


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="the image's start command is a POSIX shell line")
def test_the_images_start_command_serves_on_port(tiny_model: Path, tmp_path: Path) -> None:
    data = tmp_path / "data"
    env = {**os.environ, "LOCALMIND_DATA_DIR": str(data)}
    imported = subprocess.run(
        [sys.executable, "-m", "localmind", "models", "import", str(tiny_model)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert imported.returncode == 0, imported.stderr
    ids = [p.name for p in (data / "models").iterdir() if not p.name.startswith(".")]
    (data / "served-model").write_text("\n".join(ids) + "\n")
    cmd = next(c for c in dockerfile.parse_file(str(ROOT / "Dockerfile")) if c.cmd == "CMD")
    assert cmd.json and cmd.value[:2] == ("sh", "-c")
    line = cmd.value[2].replace("/data/", f"{data}/").replace("exec localmind", f"exec {sys.executable} -m localmind")
    port = free_port()
    refused = subprocess.run(
        ["sh", "-c", line], env={**env, "PORT": str(port)}, capture_output=True, text=True, timeout=60
    )
    assert refused.returncode == 1 and "needs an API key" in refused.stderr
    proc = subprocess.Popen(
        ["sh", "-c", line],
        env={**env, "PORT": str(port), "LOCALMIND_API_KEY": "k"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.2)
        models = httpx.get(f"http://127.0.0.1:{port}/v1/models", headers={"Authorization": "Bearer k"}).json()
        assert [m["id"] for m in models["data"]] == ids
        # Beyond loopback the Host header may be any name the deployment uses.
        r = httpx.post(
            f"http://127.0.0.1:{port}/generate",
            json={"prompt": "hi"},
            headers={"Authorization": "Bearer k", "Host": "api.example.com"},
        )
        assert r.status_code == 200 and json.loads(r.text)["generated_text"]
    finally:
        proc.terminate()
        proc.wait(15)
