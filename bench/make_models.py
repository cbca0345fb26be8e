"""Build random-weight og models with the exact shapes of real ones, offline.

Speed does not depend on weight values, so these stand in for SmolLM2-135M and
Qwen3-0.6B in benchmarks. Needs the bench extras (torch==2.13.0, transformers,
onnx_ir). Prints JSON: one entry per model with its folder, size and build time.

    python bench/make_models.py [--out bench/models] [--only smollm2|qwen3|micro]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

SHAPES: dict[str, dict[str, Any]] = {
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
        "bos_token_id": 1,
        "eos_token_id": 2,
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
        "bos_token_id": 151643,
        "eos_token_id": 151645,
    },
    # A few-MB llama for correctness checks (KV reuse vs fresh prefill) that builds in seconds.
    "micro-llama": {
        "architectures": ["LlamaForCausalLM"],
        "model_type": "llama",
        "hidden_size": 64,
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "intermediate_size": 128,
        "vocab_size": 512,
        "tie_word_embeddings": True,
        "rope_theta": 10000.0,
        "max_position_embeddings": 2048,
        "rms_norm_eps": 1e-5,
        "hidden_act": "silu",
        "bos_token_id": 1,
        "eos_token_id": 2,
        # Large random weights keep greedy output sensitive to the whole context (small ones loop on 2 tokens).
        "init_std": 0.5,
    },
}


def build(name: str, out_root: Path, precision: str = "int4") -> dict[str, Any]:
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM

    shape = SHAPES[name]
    out = out_root / name
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        hf_dir = Path(tmp) / "hf"
        torch.manual_seed(0)
        config = AutoConfig.for_model(**{k: v for k, v in shape.items() if k not in ("architectures", "init_std")})
        config.architectures = shape["architectures"]
        model = AutoModelForCausalLM.from_config(config, torch_dtype=torch.float32)
        with torch.no_grad():
            for p in model.parameters():
                p.normal_(0.0, shape.get("init_std", 0.02))
        model.save_pretrained(hf_dir)
        _write_tokenizer(hf_dir, shape["vocab_size"])
        if out.exists():
            shutil.rmtree(out)
        env = dict(os.environ, ORT_DISABLE_TELEMETRY="1")
        cmd = [
            sys.executable,
            "-m",
            "onnxruntime_genai.models.builder",
            "-i",
            str(hf_dir),
            "-o",
            str(out),
            "-p",
            precision,
            "-e",
            "cpu",
            "-c",
            str(Path(tmp) / "cache"),
        ]
        subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    size = sum(f.stat().st_size for f in out.rglob("*") if f.is_file())
    return {"model": name, "dir": str(out), "bytes": size, "build_s": round(time.perf_counter() - t0, 1)}


def _write_tokenizer(hf_dir: Path, vocab_size: int) -> None:
    """A byte-level BPE with exactly ``vocab_size`` entries and a ChatML template."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers

    alphabet = pre_tokenizers.ByteLevel.alphabet()
    vocab = {ch: i for i, ch in enumerate(sorted(alphabet))}
    specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
    # Fill the vocabulary with merges of printable ASCII ("Ġ" is the byte-level space), so a random-weight
    # model mostly emits valid text, as a real one does: that keeps streaming and KV reuse on their real paths.
    printable = ["Ġ", *(chr(c) for c in range(0x21, 0x7F))]
    merges: list[tuple[str, str]] = []
    target = vocab_size - len(specials)

    def add(a: str, b: str) -> None:
        if len(vocab) < target and a + b not in vocab:
            vocab[a + b] = len(vocab)
            merges.append((a, b))

    pairs = [a + b for a in printable for b in printable]
    for a in printable:
        for b in printable:
            add(a, b)
    for pair in pairs:
        for c in printable:
            add(pair, c)
        if len(vocab) >= target:
            break
    tok = Tokenizer(models.BPE(vocab=vocab, merges=merges))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.add_special_tokens(specials)
    tok.save(str(hf_dir / "tokenizer.json"))
    template = (
        "{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>\\n' }}"
        "{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
    )
    (hf_dir / "tokenizer_config.json").write_text(
        json.dumps(
            {
                "tokenizer_class": "GPT2Tokenizer",
                "bos_token": "<|endoftext|>",
                "eos_token": "<|im_end|>",
                "pad_token": "<|endoftext|>",
                "unk_token": "<|endoftext|>",
                "add_bos_token": False,
                "chat_template": template,
            }
        ),
        encoding="utf-8",
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=str(Path(__file__).parent / "models"))
    ap.add_argument("--only", choices=sorted(SHAPES), action="append")
    ap.add_argument("--precision", default="int4", choices=["int4", "fp32"])
    args = ap.parse_args()
    results = [build(n, Path(args.out), args.precision) for n in (args.only or ["smollm2-135m", "qwen3-0.6b"])]
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
