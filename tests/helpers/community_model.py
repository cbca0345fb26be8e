"""Random-weight models in the onnx-community layout, built offline and cached.

The layout of onnx-community/SmolLM2-135M-Instruct-ONNX and Qwen3-0.6B-ONNX: config.json,
generation_config.json, tokenizer files at the top, and onnx/model.onnx (fp32), onnx/model_q4.onnx
(MatMulNBits, block 32, via onnxruntime's MatMulNBitsQuantizer) and onnx/model_fp16.onnx (onnxruntime's
float16 converter). No genai_config.json.

The fp32 graph is a real Optimum export (``optimum.exporters.onnx --task text-generation-with-past``).
optimum-onnx 0.1.0 needs transformers < 4.58 while og's model builder (bench/make_models.py) needs a newer
one, so the exporter runs in a subprocess over its own small library folder (``build/fixtures/optimum-libs``,
installed once with pip --target, no torch: the project's torch is reused).

Tiny shapes (2 layers, hidden 64, vocabulary 512) build in seconds for the tests; the real SmolLM2-135M and
Qwen3-0.6B shapes are for bench/variants.py. Weights are drawn with std 0.1 so greedy output depends on the
context instead of repeating one token.

    python -m tests.helpers.community_model smollm2-tiny [--out DIR]
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
CACHE = Path(os.environ.get("LOCALMIND_FIXTURES", ROOT / "build" / "fixtures"))
OPTIMUM_LIBS = CACHE / "optimum-libs"
# Exact versions: the exporter's behaviour is part of the fixture. transformers < 4.58 for optimum-onnx 0.1.0;
# huggingface_hub < 1 and tokenizers < 0.23 for that transformers (the app's own hub client is 2.x).
OPTIMUM_REQUIREMENTS = (
    "optimum-onnx==0.1.0",
    "optimum==2.1.0",
    "transformers==4.57.6",
    "huggingface_hub==0.36.2",
    "tokenizers==0.22.2",
    "requests==2.34.2",
    "charset-normalizer==3.5.3",
    "urllib3==2.8.0",
    "certifi==2026.10.19.post1",
    "idna==3.20",
)
FIXTURE_VERSION = 2

_TINY = {
    # Tiny models need bigger weights than real ones for greedy output to depend on the context.
    "initializer_range": 0.5,
    "hidden_size": 64,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "intermediate_size": 128,
    "vocab_size": 512,
    "max_position_embeddings": 2048,
    "tie_word_embeddings": True,
    "hidden_act": "silu",
}
SHAPES: dict[str, dict[str, Any]] = {
    "smollm2-tiny": {
        **_TINY,
        "architectures": ["LlamaForCausalLM"],
        "model_type": "llama",
        "rope_theta": 100000.0,
        "rms_norm_eps": 1e-5,
    },
    "qwen3-tiny": {
        **_TINY,
        "architectures": ["Qwen3ForCausalLM"],
        "model_type": "qwen3",
        "head_dim": 32,
        "rope_theta": 1000000.0,
        "rms_norm_eps": 1e-6,
    },
    "smollm2-135m": {
        "architectures": ["LlamaForCausalLM"],
        "model_type": "llama",
        "hidden_size": 576,
        "num_hidden_layers": 30,
        "num_attention_heads": 9,
        "num_key_value_heads": 3,
        "intermediate_size": 1536,
        "vocab_size": 49152,
        "tie_word_embeddings": True,
        "rope_theta": 100000.0,
        "max_position_embeddings": 8192,
        "rms_norm_eps": 1e-5,
        "hidden_act": "silu",
    },
    "qwen3-0.6b": {
        "architectures": ["Qwen3ForCausalLM"],
        "model_type": "qwen3",
        "hidden_size": 1024,
        "num_hidden_layers": 28,
        "num_attention_heads": 16,
        "num_key_value_heads": 8,
        "head_dim": 128,
        "intermediate_size": 3072,
        "vocab_size": 151936,
        "tie_word_embeddings": True,
        "rope_theta": 1000000.0,
        "max_position_embeddings": 40960,
        "rms_norm_eps": 1e-6,
        "hidden_act": "silu",
    },
}
INIT_STD = 0.1  # the real shapes; tiny ones set their own initializer_range
VARIANTS = ("fp32", "q4", "fp16")


def optimum_libs() -> Path:
    """The folder with optimum-onnx and the transformers it needs (installed once)."""
    stamp = OPTIMUM_LIBS / ".requirements"
    if stamp.is_file() and stamp.read_text(encoding="utf-8") == "\n".join(OPTIMUM_REQUIREMENTS):
        return OPTIMUM_LIBS
    shutil.rmtree(OPTIMUM_LIBS, ignore_errors=True)
    cmd = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(OPTIMUM_LIBS)]
    subprocess.run([*cmd, *OPTIMUM_REQUIREMENTS], check=True)
    stamp.write_text("\n".join(OPTIMUM_REQUIREMENTS), encoding="utf-8")
    return OPTIMUM_LIBS


def _write_hf_model(shape: dict[str, Any], hf_dir: Path, seed: int) -> None:
    import torch
    from bench.make_models import _write_tokenizer
    from transformers import AutoConfig, AutoModelForCausalLM

    torch.manual_seed(seed)
    std = shape.get("initializer_range", INIT_STD)
    config = AutoConfig.for_model(**{k: v for k, v in shape.items() if k != "architectures"})
    config.architectures = shape["architectures"]
    config.initializer_range = std
    model = AutoModelForCausalLM.from_config(config, torch_dtype=torch.float32)
    with torch.no_grad():
        for p in model.parameters():
            p.normal_(0.0, std)
    _write_tokenizer(hf_dir, shape["vocab_size"])
    tok = json.loads((hf_dir / "tokenizer.json").read_text(encoding="utf-8"))
    ids = {t["content"]: t["id"] for t in tok["added_tokens"]}
    config.bos_token_id = ids["<|endoftext|>"]
    config.eos_token_id = ids["<|im_end|>"]
    config.pad_token_id = ids["<|endoftext|>"]
    model.config = config
    model.save_pretrained(hf_dir)
    (hf_dir / "generation_config.json").write_text(
        json.dumps({"bos_token_id": config.bos_token_id, "eos_token_id": [ids["<|im_end|>"], ids["<|endoftext|>"]]}),
        encoding="utf-8",
    )
    (hf_dir / "special_tokens_map.json").write_text(
        json.dumps({"bos_token": "<|endoftext|>", "eos_token": "<|im_end|>", "pad_token": "<|endoftext|>"}),
        encoding="utf-8",
    )


def _export_in_side_env(name: str, seed: int, hf_dir: Path, out: Path) -> None:
    """Write the random HF model and export it, both with the exporter's transformers (a subprocess)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(optimum_libs()), str(ROOT)]), ORT_DISABLE_TELEMETRY="1")
    env.pop("PYTHONWARNINGS", None)
    cmd = [sys.executable, "-W", "ignore", "-m", "tests.helpers.community_model", "--export"]
    cmd += [name, str(seed), str(hf_dir), str(out)]
    result = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=ROOT)
    if result.returncode != 0 or not (out / "model.onnx").is_file():
        raise RuntimeError(
            f"Optimum export failed ({result.returncode}):\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
        )


def _export_here(name: str, seed: int, hf_dir: Path, out: Path) -> None:
    from optimum.exporters.onnx import main_export

    hf_dir.mkdir(parents=True, exist_ok=True)
    _write_hf_model(SHAPES[name], hf_dir, seed)
    main_export(str(hf_dir), output=str(out), task="text-generation-with-past", do_validation=False)


def _quantize_q4(src: Path, dst: Path, big: bool) -> None:
    import onnx
    from onnxruntime.quantization.matmul_nbits_quantizer import MatMulNBitsQuantizer

    logging.getLogger("onnxruntime.quantization.matmul_nbits_quantizer").setLevel(logging.WARNING)
    model = onnx.load(str(src))
    quant = MatMulNBitsQuantizer(model, bits=4, block_size=32, is_symmetric=True)
    quant.process()
    quant.model.save_model_to_file(str(dst), use_external_data_format=big)


def _convert_fp16(src: Path, dst: Path, big: bool) -> None:
    import onnx
    from onnxruntime.transformers.float16 import convert_float_to_float16

    model = convert_float_to_float16(onnx.load(str(src)), keep_io_types=False, disable_shape_infer=True)
    _save(model, dst, big)


def _save(model: Any, dst: Path, big: bool) -> None:
    import onnx

    if big:
        onnx.save(
            model, str(dst), save_as_external_data=True, all_tensors_to_one_file=True, location=dst.name + "_data"
        )
    else:
        onnx.save(model, str(dst))


def build(name: str, out: Path, variants: tuple[str, ...] = VARIANTS, seed: int = 0) -> Path:
    """Write the onnx-community layout of shape ``name`` to ``out`` (replaced if present)."""
    shape = SHAPES[name]
    big = shape["hidden_size"] > 256  # the real shapes keep weights in external data, as the Hub repos do
    with tempfile.TemporaryDirectory() as tmp:
        hf_dir, exported = Path(tmp) / "hf", Path(tmp) / "onnx"
        _export_in_side_env(name, seed, hf_dir, exported)
        building = out.with_name(out.name + ".building")
        shutil.rmtree(building, ignore_errors=True)
        (building / "onnx").mkdir(parents=True)
        for small in ("config.json", "generation_config.json", "special_tokens_map.json", "tokenizer.json"):
            shutil.copy2(hf_dir / small, building / small)
        shutil.copy2(hf_dir / "tokenizer_config.json", building / "tokenizer_config.json")
        fp32 = building / "onnx" / "model.onnx"
        import onnx

        _save(onnx.load(str(exported / "model.onnx")), fp32, big)
        if "q4" in variants:
            _quantize_q4(fp32, building / "onnx" / "model_q4.onnx", big)
        if "fp16" in variants:
            _convert_fp16(fp32, building / "onnx" / "model_fp16.onnx", big)
        if "fp32" not in variants:
            for f in building.glob("onnx/model.onnx*"):
                f.unlink()
    shutil.rmtree(out, ignore_errors=True)
    building.rename(out)
    return out


def cached(name: str, variants: tuple[str, ...] = VARIANTS) -> Path:
    """``build`` once per fixture version; later calls return the cached folder (treat it as read-only)."""
    out = CACHE / "community" / name
    stamp = {"version": FIXTURE_VERSION, "variants": list(variants), "requirements": list(OPTIMUM_REQUIREMENTS)}
    marker = CACHE / "community" / f"{name}.done"
    if marker.is_file() and out.is_dir() and json.loads(marker.read_text(encoding="utf-8")) == stamp:
        return out
    marker.unlink(missing_ok=True)
    out.parent.mkdir(parents=True, exist_ok=True)
    build(name, out, variants)
    marker.write_text(json.dumps(stamp), encoding="utf-8")
    return out


def copy_of(name: str, dest: Path, variants: tuple[str, ...] = VARIANTS) -> Path:
    """A private copy of a cached fixture (the tests that check the folder stays untouched own theirs)."""
    shutil.copytree(cached(name, variants), dest, copy_function=shutil.copy2)
    return dest


def main() -> None:
    import argparse

    if sys.argv[1:2] == ["--export"]:
        name, seed, hf_dir, out = sys.argv[2:6]
        _export_here(name, int(seed), Path(hf_dir), Path(out))
        return

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("name", choices=sorted(SHAPES))
    ap.add_argument("--out", help="write here instead of the test cache")
    args = ap.parse_args()
    t0 = time.perf_counter()
    path = build(args.name, Path(args.out)) if args.out else cached(args.name)
    print(json.dumps({"model": args.name, "dir": str(path), "build_s": round(time.perf_counter() - t0, 1)}))


if __name__ == "__main__":
    main()
