"""One broken model folder per failure kind, each made from a copy of the tiny model.

Each entry: kind -> (function that breaks a folder copy and returns the path to load,
text the error message must contain).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path


def _copy(good: Path, dst: Path) -> Path:
    shutil.copytree(good, dst)
    return dst


def _edit_json(path: Path, edit: Callable[[dict], None]) -> None:  # type: ignore[type-arg]
    data = json.loads(path.read_text(encoding="utf-8"))
    edit(data)
    path.write_text(json.dumps(data), encoding="utf-8")


def missing_folder(good: Path, dst: Path) -> Path:
    return dst / "does-not-exist"


def file_not_folder(good: Path, dst: Path) -> Path:
    dst.mkdir()
    (dst / "model.onnx").write_bytes(b"x")
    return dst / "model.onnx"


def no_config(good: Path, dst: Path) -> Path:
    _copy(good, dst).joinpath("genai_config.json").unlink()
    return dst


def config_in_subfolder(good: Path, dst: Path) -> Path:
    dst.mkdir()
    shutil.copytree(good, dst / "cpu-int4-rtn-block-32")
    return dst


def config_not_json(good: Path, dst: Path) -> Path:
    _copy(good, dst).joinpath("genai_config.json").write_text('{"model": {"type": "llama",', encoding="utf-8")
    return dst


def config_no_model(good: Path, dst: Path) -> Path:
    _copy(good, dst).joinpath("genai_config.json").write_text('{"search": {}}', encoding="utf-8")
    return dst


def config_no_filename(good: Path, dst: Path) -> Path:
    _edit_json(_copy(good, dst) / "genai_config.json", lambda d: d["model"]["decoder"].pop("filename"))
    return dst


def onnx_missing(good: Path, dst: Path) -> Path:
    _copy(good, dst).joinpath("model.onnx").unlink()
    return dst


def onnx_empty(good: Path, dst: Path) -> Path:
    _copy(good, dst).joinpath("model.onnx").write_bytes(b"")
    return dst


def onnx_corrupt(good: Path, dst: Path) -> Path:
    _copy(good, dst).joinpath("model.onnx").write_bytes(bytes(range(256)) * 8)
    return dst


def onnx_truncated(good: Path, dst: Path) -> Path:
    path = _copy(good, dst) / "model.onnx"
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    return dst


def external_data_missing(good: Path, dst: Path) -> Path:
    import onnx
    from onnx import numpy_helper

    path = _copy(good, dst) / "model.onnx"
    model = onnx.load(str(path))
    # Only raw_data tensors move to external data.
    raw = [numpy_helper.from_array(numpy_helper.to_array(t), t.name) for t in model.graph.initializer]
    del model.graph.initializer[:]
    model.graph.initializer.extend(raw)
    onnx.save(
        model,
        str(path),
        save_as_external_data=True,
        all_tensors_to_one_file=True,
        location="model.onnx.data",
        size_threshold=0,
    )
    (dst / "model.onnx.data").unlink()
    return dst


def tokenizer_missing(good: Path, dst: Path) -> Path:
    _copy(good, dst).joinpath("tokenizer.json").unlink()
    return dst


def tokenizer_not_json(good: Path, dst: Path) -> Path:
    _copy(good, dst).joinpath("tokenizer.json").write_text("<html>Not Found</html>", encoding="utf-8")
    return dst


def no_context_length(good: Path, dst: Path) -> Path:
    _edit_json(_copy(good, dst) / "genai_config.json", lambda d: d["model"].pop("context_length"))
    return dst


BROKEN: dict[str, tuple[Callable[[Path, Path], Path], str]] = {
    "missing folder": (missing_folder, "not found"),
    "a file, not a folder": (file_not_folder, "is a file"),
    "no genai_config.json": (no_config, "genai_config.json is missing"),
    "model in a subfolder": (config_in_subfolder, "cpu-int4-rtn-block-32"),
    "genai_config.json not JSON": (config_not_json, "not valid JSON"),
    "no model section": (config_no_model, '"model" section'),
    "no decoder filename": (config_no_filename, "model.decoder.filename"),
    "model.onnx missing": (onnx_missing, "model.onnx is missing"),
    "model.onnx empty": (onnx_empty, "model.onnx"),
    "model.onnx corrupt": (onnx_corrupt, "model.onnx is damaged"),
    "model.onnx truncated": (onnx_truncated, "model.onnx"),
    "external data missing": (external_data_missing, "model.onnx.data is missing"),
    "tokenizer.json missing": (tokenizer_missing, "tokenizer.json is missing"),
    "tokenizer.json not JSON": (tokenizer_not_json, "tokenizer.json"),
    "no context length": (no_context_length, "context_length"),
}
