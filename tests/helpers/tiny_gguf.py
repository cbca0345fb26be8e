"""A tiny random-weight Llama in GGUF (llama.cpp's format), for tests against a third-party server.

Written with the ``gguf`` package (llama.cpp's own writer): 2 layers, hidden 64, grouped-query attention, the
tiny test model's byte-level BPE tokenizer (tests/helpers/tiny_model.py) and its ChatML template. Weights are
drawn with a fixed seed and std 0.5 so greedy output depends on the context instead of repeating one token.

    python -m tests.helpers.tiny_gguf OUT.gguf
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

import numpy as np


def _gpt2_byte_of() -> dict[str, int]:
    """Byte-level BPE's alphabet (GPT-2): the character that stands for each byte, inverted."""
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    chars, extra = {b: b for b in printable}, 0
    for b in range(256):
        if b not in chars:
            chars[b], extra = 256 + extra, extra + 1
    return {chr(c): b for b, c in chars.items()}


_BYTE_OF = _gpt2_byte_of()
SHAPE = {"hidden": 64, "layers": 2, "heads": 4, "kv_heads": 2, "ffn": 128, "context": 2048}
SPECIAL = 3  # llama.cpp's token type for control tokens (<|im_start|> …); 1 is a normal token


def write_tiny_gguf(out: Path, seed: int = 0) -> Path:
    import gguf

    from tests.helpers.tiny_model import CHAT_TEMPLATE, build_tiny_model

    with tempfile.TemporaryDirectory() as tmp:
        tokenizer = json.loads((build_tiny_model(Path(tmp) / "tiny") / "tokenizer.json").read_text(encoding="utf-8"))
    vocab: dict[str, int] = dict(tokenizer["model"]["vocab"])
    special = {t["content"]: t["id"] for t in tokenizer["added_tokens"]}
    vocab.update(special)
    tokens = [""] * (max(vocab.values()) + 1)
    for text, index in vocab.items():
        # Random weights pick pieces of multi-byte characters in any order, and llama-cpp-python holds back text
        # that is not valid UTF-8 (re-decoding it every token): the stream would stall for minutes. Tokens that
        # stand for bytes >= 0x80 get ASCII stand-ins, so every token is whole text (prompts here are ASCII).
        whole = index in special.values() or all(_BYTE_OF.get(ch, 0) < 0x80 for ch in text)
        tokens[index] = text if whole else f"~x{index}"
    merges = [m if isinstance(m, str) else " ".join(m) for m in tokenizer["model"]["merges"]]
    n_vocab, d, heads, kv = len(tokens), SHAPE["hidden"], SHAPE["heads"], SHAPE["kv_heads"]
    head_dim = d // heads

    out.parent.mkdir(parents=True, exist_ok=True)
    writer = gguf.GGUFWriter(str(out), "llama")
    writer.add_name("tiny-random-llama")
    writer.add_context_length(SHAPE["context"])
    writer.add_embedding_length(d)
    writer.add_block_count(SHAPE["layers"])
    writer.add_feed_forward_length(SHAPE["ffn"])
    writer.add_head_count(heads)
    writer.add_head_count_kv(kv)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_rope_dimension_count(head_dim)
    writer.add_rope_freq_base(10000.0)
    writer.add_file_type(gguf.LlamaFileType.ALL_F32)
    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre("gpt-2")
    writer.add_token_list(tokens)
    writer.add_token_types([SPECIAL if i in special.values() else 1 for i in range(n_vocab)])
    writer.add_token_merges(merges)
    writer.add_bos_token_id(special["<|endoftext|>"])
    writer.add_eos_token_id(special["<|im_end|>"])
    writer.add_pad_token_id(special["<|endoftext|>"])
    writer.add_add_bos_token(False)
    writer.add_chat_template(CHAT_TEMPLATE)

    rng = np.random.default_rng(seed)

    def weight(*shape: int) -> np.ndarray:  # numpy order: (out, in); GGUF stores it as ggml's (in, out)
        return (rng.standard_normal(shape) * 0.5).astype(np.float32)

    ones = np.ones(d, dtype=np.float32)
    writer.add_tensor("token_embd.weight", weight(n_vocab, d))
    for i in range(SHAPE["layers"]):
        writer.add_tensor(f"blk.{i}.attn_norm.weight", ones)
        writer.add_tensor(f"blk.{i}.attn_q.weight", weight(d, d))
        writer.add_tensor(f"blk.{i}.attn_k.weight", weight(kv * head_dim, d))
        writer.add_tensor(f"blk.{i}.attn_v.weight", weight(kv * head_dim, d))
        writer.add_tensor(f"blk.{i}.attn_output.weight", weight(d, d))
        writer.add_tensor(f"blk.{i}.ffn_norm.weight", ones)
        writer.add_tensor(f"blk.{i}.ffn_gate.weight", weight(SHAPE["ffn"], d))
        writer.add_tensor(f"blk.{i}.ffn_up.weight", weight(SHAPE["ffn"], d))
        writer.add_tensor(f"blk.{i}.ffn_down.weight", weight(d, SHAPE["ffn"]))
    writer.add_tensor("output_norm.weight", ones)
    writer.add_tensor("output.weight", weight(n_vocab, d))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return out


if __name__ == "__main__":
    print(write_tiny_gguf(Path(sys.argv[1])))
