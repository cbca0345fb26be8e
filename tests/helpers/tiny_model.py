"""Build a tiny, deterministic onnxruntime-genai model for tests.

The model is a hand-made ONNX graph, not a neural network. Its next token is
``NEXT[last_token, digest]`` where ``digest`` is the sum of every token id in
the context (read back from the KV cache) modulo ``VARIANTS``. So:

* the reply is exact and assertable (greedy decoding walks a fixed chain);
* the reply depends on the *whole* history held in the KV cache, so a cache
  that lost or duplicated a token after cancel/rewind gives a different reply.

The tokenizer is a real byte-level BPE trained with ``tokenizers``; it round
trips any text (CJK, emoji, accents), and the chat template is ChatML.

Run ``python -m tests.helpers.tiny_model OUT_DIR`` to write one to disk.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

VARIANTS = 3
IM_START, IM_END, EOT = "<|im_start|>", "<|im_end|>", "<|endoftext|>"

# The replies the model gives, chosen by the context digest. They mix ASCII,
# Chinese and emoji so streaming must reassemble multi-byte characters.
REPLIES = (
    "Hello! I am a tiny test model. 你好，世界 🌍",
    "Sure: here is **bold** and `code`. 谢谢 🎉",
    "I hear you — 这是第三个回答 ✨ done",
)

CHAT_TEMPLATE = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>\\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
)

CORPUS = [
    *REPLIES,
    "user assistant system",
    "hello hi how are you",
    "The quick brown fox jumps over the lazy dog.",
    "中文 日本語 한국어",
    "emoji 😀 🚀",
    "Tell me a story about a cat.",
    "What is 2 + 2?",
] * 20


def train_tokenizer() -> object:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=420,
        special_tokens=[EOT, IM_START, IM_END],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(CORPUS, trainer=trainer)
    return tok


def _next_table(tok: object, vocab: int) -> list[int]:
    """NEXT flattened as [vocab * VARIANTS]; anything unplanned ends the turn.

    The digest moves as tokens are generated, so each chain is laid out along
    the digests it will actually see: reply ``v`` starts where the context
    digest is ``v`` and step ``k`` sits at ``(v + sum(chain[:k])) % VARIANTS``.
    """
    im_end = tok.token_to_id(IM_END)  # type: ignore[attr-defined]
    table = [im_end] * (vocab * VARIANTS)
    planned: dict[int, int] = {}
    # The generation prompt ends with "assistant\n": "\n" starts the reply.
    start = tok.encode("\n").ids  # type: ignore[attr-defined]
    assert len(start) == 1
    for variant, reply in enumerate(REPLIES):
        chain = [*tok.encode(reply).ids, im_end]  # type: ignore[attr-defined]
        prev, digest = start[0], variant
        for token in chain:
            slot = prev * VARIANTS + digest
            assert planned.get(slot, token) == token, f"reply {variant} collides at token {prev}: {reply!r}"
            planned[slot] = table[slot] = token
            prev, digest = token, (digest + token) % VARIANTS
    return table


def build_graph(vocab: int, table: list[int]) -> object:
    from onnx import TensorProto, helper

    f, i64 = TensorProto.FLOAT, TensorProto.INT64
    nodes = [
        helper.make_node("Cast", ["input_ids"], ["ids_f"], to=f),
        helper.make_node("Unsqueeze", ["ids_f", "axes_13"], ["new_k"]),
        helper.make_node("Concat", ["past_key_values.0.key", "new_k"], ["present.0.key"], axis=2),
        helper.make_node("Concat", ["past_key_values.0.value", "new_k"], ["present.0.value"], axis=2),
        # Running sum of token ids over the whole context, for each new position.
        helper.make_node("CumSum", ["present.0.key", "axis2"], ["cum"]),
        helper.make_node("Shape", ["input_ids"], ["ids_shape"]),
        helper.make_node("Gather", ["ids_shape", "one"], ["seq"], axis=0),
        helper.make_node("Neg", ["seq"], ["neg_seq"]),
        helper.make_node("Slice", ["cum", "neg_seq", "big", "axis2"], ["cum_new"]),
        helper.make_node("Squeeze", ["cum_new", "axes_13"], ["cum2"]),
        helper.make_node("Cast", ["cum2"], ["cum_i"], to=i64),
        helper.make_node("Mod", ["cum_i", "variants"], ["digest"]),
        helper.make_node("Mul", ["input_ids", "variants"], ["row"]),
        helper.make_node("Add", ["row", "digest"], ["idx"]),
        helper.make_node("Gather", ["table", "idx"], ["next_id"], axis=0),
        helper.make_node("OneHot", ["next_id", "depth", "onoff"], ["logits"], axis=-1),
    ]
    inits = [
        helper.make_tensor("axes_13", i64, [2], [1, 3]),
        helper.make_tensor("axis2", i64, [1], [2]),
        helper.make_tensor("one", i64, [1], [1]),
        helper.make_tensor("big", i64, [1], [2**62]),
        helper.make_tensor("variants", i64, [], [VARIANTS]),
        helper.make_tensor("table", i64, [len(table)], table),
        helper.make_tensor("depth", i64, [], [vocab]),
        helper.make_tensor("onoff", f, [2], [-10.0, 10.0]),
    ]
    kv = ["batch", 1, "past", 1]
    inputs = [
        helper.make_tensor_value_info("input_ids", i64, ["batch", "seq"]),
        helper.make_tensor_value_info("attention_mask", i64, ["batch", "total"]),
        helper.make_tensor_value_info("past_key_values.0.key", f, kv),
        helper.make_tensor_value_info("past_key_values.0.value", f, kv),
    ]
    pkv = ["batch", 1, "total", 1]
    outputs = [
        helper.make_tensor_value_info("logits", f, ["batch", "seq", vocab]),
        helper.make_tensor_value_info("present.0.key", f, pkv),
        helper.make_tensor_value_info("present.0.value", f, pkv),
    ]
    graph = helper.make_graph(nodes, "tiny", inputs, outputs, initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


def genai_config(vocab: int, eos: int, bos: int, context: int) -> dict[str, object]:
    return {
        "model": {
            "bos_token_id": bos,
            "context_length": context,
            "decoder": {
                "session_options": {"log_id": "onnxruntime-genai", "provider_options": []},
                "filename": "model.onnx",
                "head_size": 1,
                "hidden_size": 1,
                "inputs": {
                    "input_ids": "input_ids",
                    "attention_mask": "attention_mask",
                    "past_key_names": "past_key_values.%d.key",
                    "past_value_names": "past_key_values.%d.value",
                },
                "outputs": {
                    "logits": "logits",
                    "present_key_names": "present.%d.key",
                    "present_value_names": "present.%d.value",
                },
                "num_attention_heads": 1,
                "num_hidden_layers": 1,
                "num_key_value_heads": 1,
            },
            "eos_token_id": eos,
            "pad_token_id": eos,
            "type": "llama",
            "vocab_size": vocab,
        },
        "search": {
            "do_sample": False,
            "max_length": context,
            "num_beams": 1,
            "past_present_share_buffer": False,
            "repetition_penalty": 1.0,
            "temperature": 1.0,
            "top_k": 1,
            "top_p": 1.0,
        },
    }


def build_tiny_model(out_dir: str | Path, *, context: int = 2048, chat_template: bool = True) -> Path:
    """Write a complete tiny og model folder to ``out_dir`` and return it."""
    import onnx

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    tok = train_tokenizer()
    vocab = tok.get_vocab_size()  # type: ignore[attr-defined]
    table = _next_table(tok, vocab)
    onnx.save(build_graph(vocab, table), str(out / "model.onnx"))
    tok.save(str(out / "tokenizer.json"))  # type: ignore[attr-defined]
    im_end = tok.token_to_id(IM_END)  # type: ignore[attr-defined]
    eot = tok.token_to_id(EOT)  # type: ignore[attr-defined]
    tcfg: dict[str, object] = {
        "tokenizer_class": "GPT2Tokenizer",
        "bos_token": EOT,
        "eos_token": IM_END,
        "pad_token": EOT,
        "unk_token": EOT,
        "add_bos_token": False,
        "model_max_length": context,
        "clean_up_tokenization_spaces": False,
    }
    if chat_template:
        tcfg["chat_template"] = CHAT_TEMPLATE
    (out / "tokenizer_config.json").write_text(json.dumps(tcfg, indent=2), encoding="utf-8")
    (out / "special_tokens_map.json").write_text(
        json.dumps({"bos_token": EOT, "eos_token": IM_END, "pad_token": EOT, "unk_token": EOT}), encoding="utf-8"
    )
    cfg = genai_config(vocab, im_end, eot, context)
    (out / "genai_config.json").write_text(json.dumps(cfg, indent=2), encoding="utf-8")
    return out


def expected_reply(prompt_token_ids: list[int]) -> str:
    """The reply the tiny model gives (greedily) after a prompt with these token ids."""
    return REPLIES[sum(prompt_token_ids) % VARIANTS]


if __name__ == "__main__":
    print(build_tiny_model(sys.argv[1] if len(sys.argv) > 1 else "tiny-model"))
