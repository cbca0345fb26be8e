"""``localmind chat --model DIR [--variant NAME]`` on an onnx-community export, as a user runs it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from localmind.engine.local import LocalEngine
from localmind.engine.types import ChatMessage, GenerationOptions, LoadOptions, TextDelta
from tests.helpers import community_model

pytestmark = pytest.mark.slow


def localmind(*args: str, data_dir: Path) -> subprocess.CompletedProcess[bytes]:
    env = dict(os.environ, LOCALMIND_DATA_DIR=str(data_dir))
    return subprocess.run([sys.executable, "-m", "localmind", *args], capture_output=True, timeout=120, env=env)


def in_process_reply(folder: Path, variant: str) -> str:
    engine = LocalEngine()
    engine.load(str(folder), LoadOptions(device="cpu", variant=variant))
    options = GenerationOptions(temperature=0, max_new_tokens=16)
    return "".join(e.text for e in engine.generate([ChatMessage("user", "hi")], options) if isinstance(e, TextDelta))


@pytest.mark.parametrize("variant", ["fp32", "fp16"])
def test_chat_with_a_variant_prints_the_engines_reply(tmp_path: Path, data_dir: Path, variant: str) -> None:
    folder = community_model.cached("smollm2-tiny")
    args = ["chat", "--model", str(folder), "--variant", variant, "--prompt", "hi", "--temperature", "0"]
    proc = localmind(*args, "--max-new-tokens", "16", "--device", "cpu", "--stats", data_dir=tmp_path / "data")
    assert proc.returncode == 0, proc.stderr.decode()
    assert proc.stdout.decode("utf-8") == in_process_reply(folder, variant) + "\n"
    assert f"[smollm2-tiny ({variant})]" in proc.stderr.decode()


def test_an_unknown_variant_lists_the_ones_there(tmp_path: Path) -> None:
    folder = community_model.cached("smollm2-tiny")
    proc = localmind("chat", "--model", str(folder), "--variant", "int8", "--prompt", "hi", data_dir=tmp_path)
    assert proc.returncode != 0
    err = proc.stderr.decode()
    assert "no 'int8' variant" in err and "fp32, fp16, q4" in err


def test_an_unsupported_architecture_is_refused_with_its_name(tmp_path: Path) -> None:
    folder = community_model.copy_of("smollm2-tiny", tmp_path / "model")
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    config.update(model_type="mamba", architectures=["MambaForCausalLM"])
    (folder / "config.json").write_text(json.dumps(config), encoding="utf-8")
    proc = localmind("chat", "--model", str(folder), "--prompt", "hi", data_dir=tmp_path / "data")
    assert proc.returncode != 0
    err = proc.stderr.decode()
    assert "MambaForCausalLM (mamba) is not an architecture LocalMind can run" in err
    assert "Traceback" not in err
