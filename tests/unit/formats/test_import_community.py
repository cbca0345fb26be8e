"""``localmind models import FOLDER`` (and the model manager's import) of an onnx-community export: one variant
is copied and installed as an onnxruntime-genai package (generated config, tuned graph); the user's folder
stays as it was; an architecture LocalMind cannot run is refused before anything is copied."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from localmind.core.hub import get_installed, import_folder, list_installed
from localmind.engine.formats import genai_config
from localmind.engine.local import LocalEngine
from localmind.engine.types import ChatMessage, GenerationOptions, LoadOptions, TextDelta
from tests.helpers import community_model

pytestmark = pytest.mark.slow
GREEDY = GenerationOptions(temperature=0, repetition_penalty=1.0, max_new_tokens=12, min_new_tokens=12)


def localmind(*args: str, data_dir: Path) -> subprocess.CompletedProcess[bytes]:
    env = dict(os.environ, LOCALMIND_DATA_DIR=str(data_dir))
    return subprocess.run([sys.executable, "-m", "localmind", *args], capture_output=True, timeout=180, env=env)


def snapshot(folder: Path) -> dict[str, tuple[bytes, int]]:
    return {
        str(p.relative_to(folder)): (p.read_bytes(), p.stat().st_mtime_ns) for p in folder.rglob("*") if p.is_file()
    }


def reply(folder: Path, variant: str | None = None) -> str:
    engine = LocalEngine()
    engine.load(str(folder), LoadOptions(device="cpu", variant=variant, context_budget=256))
    try:
        return "".join(e.text for e in engine.generate([ChatMessage("user", "hi")], GREEDY) if isinstance(e, TextDelta))
    finally:
        engine.close()


def test_models_import_copies_one_variant_and_installs_a_package(tmp_path: Path) -> None:
    user = community_model.copy_of("qwen3-tiny", tmp_path / "Qwen3-tiny-ONNX")
    before = snapshot(user)
    data = tmp_path / "data"
    proc = localmind("models", "import", str(user), data_dir=data)
    assert proc.returncode == 0, proc.stderr.decode()
    assert proc.stdout.decode().startswith("Imported qwen3-tiny-onnx-q4")
    assert snapshot(user) == before
    installed = data / "models" / "qwen3-tiny-onnx-q4"
    files = sorted(p.relative_to(installed).as_posix() for p in installed.rglob("*") if p.is_file())
    assert "onnx/model_q4.onnx" in files and "genai_config.json" in files
    assert not [f for f in files if f in ("onnx/model.onnx", "onnx/model_fp16.onnx")]  # only the variant asked for
    assert not any(p.is_symlink() for p in installed.rglob("*"))
    config = json.loads((installed / "genai_config.json").read_text(encoding="utf-8"))
    assert config["model"]["decoder"]["filename"] == "onnx/model_q4.onnx"
    assert config["search"]["past_present_share_buffer"] is True
    assert "GroupQueryAttention" in genai_config.read_graph_io(installed / "onnx/model_q4.onnx").op_types
    record = json.loads((installed / genai_config.RECORD_NAME).read_text(encoding="utf-8"))
    assert record["variant"] == "q4" and any("GroupQueryAttention" in r for r in record["rewrites"])
    # The package loads as an ordinary og folder and replies exactly what opening the user's folder replies.
    assert reply(installed) == reply(user, "q4")
    # The manifest covers what is installed (the rewritten graph's hash is the rewritten file's).
    listed = localmind("models", "verify", "qwen3-tiny-onnx-q4", data_dir=data)
    assert listed.returncode == 0, listed.stderr.decode() + listed.stdout.decode()


def test_models_import_with_a_variant_and_by_reference(tmp_path: Path, data_dir: Path) -> None:
    user = community_model.copy_of("smollm2-tiny", tmp_path / "SmolLM2-tiny-ONNX")
    model = import_folder(user, variant="fp32", model_id="smol-fp32")
    assert model.manifest.name == "SmolLM2-tiny-ONNX (fp32)"
    assert (model.model_path / "onnx/model.onnx").is_file() and not (model.model_path / "onnx/model_q4.onnx").exists()
    by_reference = import_folder(user, copy=False)
    assert by_reference.model_path == user.resolve()
    assert {f.path for f in by_reference.manifest.files} >= {"config.json", "onnx/model_q4.onnx"}
    assert "onnx/model.onnx" not in {f.path for f in by_reference.manifest.files}
    assert reply(by_reference.model_path)  # loads (prepared in the data folder; the user's folder untouched)
    assert not (user / "genai_config.json").exists()


def test_an_unsupported_architecture_is_refused_before_anything_is_copied(tmp_path: Path) -> None:
    user = community_model.copy_of("smollm2-tiny", tmp_path / "model")
    config = json.loads((user / "config.json").read_text(encoding="utf-8"))
    config.update(model_type="mamba", architectures=["MambaForCausalLM"])
    (user / "config.json").write_text(json.dumps(config), encoding="utf-8")
    data = tmp_path / "data"
    proc = localmind("models", "import", str(user), data_dir=data)
    assert proc.returncode != 0
    assert "MambaForCausalLM (mamba) is not an architecture LocalMind can run" in proc.stderr.decode()
    assert "Traceback" not in proc.stderr.decode()
    assert not list((data / "models").glob("*")) if (data / "models").exists() else True
    staging = data / "staging"
    assert not staging.exists() or not any(staging.iterdir())


def test_an_unknown_variant_names_the_ones_there(tmp_path: Path, data_dir: Path) -> None:
    user = community_model.cached("smollm2-tiny")
    from localmind.engine.types import ModelLoadError

    with pytest.raises(ModelLoadError, match="no 'int8' variant"):
        import_folder(user, variant="int8")
    assert list_installed() == []
    assert get_installed("smollm2-tiny-int8") is None
