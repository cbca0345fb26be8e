"""A slow, never-ending copy of the tiny model: every step costs real CPU time and the reply never ends by itself.

It keeps the tiny model's tokenizer and KV layout; its next token is always the same letter, and each forward
pass multiplies matrices that depend on the input (so nothing can be folded away at load time). Used to catch a
generation that goes on after its client hung up.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path


def build_slow_model(tiny: Path, out: Path, *, size: int = 512, rounds: int = 6) -> Path:
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    out.mkdir(parents=True, exist_ok=True)
    for name in ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "genai_config.json"):
        shutil.copy(tiny / name, out / name)
    vocab = json.loads((tiny / "genai_config.json").read_text())["model"]["vocab_size"]
    token = json.loads((tiny / "tokenizer.json").read_text())["model"]["vocab"]["a"]
    f, i64 = TensorProto.FLOAT, TensorProto.INT64
    nodes = [
        helper.make_node("Cast", ["input_ids"], ["ids_f"], to=f),
        helper.make_node("Unsqueeze", ["ids_f", "axes_13"], ["new_k"]),
        helper.make_node("Concat", ["past_key_values.0.key", "new_k"], ["present.0.key"], axis=2),
        helper.make_node("Concat", ["past_key_values.0.value", "new_k"], ["present.0.value"], axis=2),
        helper.make_node("ReduceSum", ["ids_f"], ["r"], keepdims=0),
        helper.make_node("Expand", ["r", "square"], ["m0"]),
    ]
    for k in range(rounds):
        nodes.append(helper.make_node("MatMul", [f"m{k}", "w"], [f"m{k + 1}"]))
    nodes += [
        helper.make_node("ReduceSum", [f"m{rounds}"], ["s"], keepdims=0),
        helper.make_node("Mul", ["s", "zero"], ["z"]),
        helper.make_node("Mul", ["input_ids", "zero_i"], ["zeros"]),
        helper.make_node("Add", ["zeros", "token"], ["next_id"]),
        helper.make_node("OneHot", ["next_id", "depth", "onoff"], ["hot"], axis=-1),
        helper.make_node("Add", ["hot", "z"], ["logits"]),
    ]
    rng = np.random.default_rng(0)
    inits = [
        helper.make_tensor("axes_13", i64, [2], [1, 3]),
        helper.make_tensor("square", i64, [2], [size, size]),
        numpy_helper.from_array(rng.standard_normal((size, size)).astype(np.float32) * 0.01, "w"),
        helper.make_tensor("zero", f, [], [0.0]),
        helper.make_tensor("zero_i", i64, [], [0]),
        helper.make_tensor("token", i64, [], [token]),
        helper.make_tensor("depth", i64, [], [vocab]),
        helper.make_tensor("onoff", f, [2], [-10.0, 10.0]),
    ]
    kv = ["batch", 1, "past", 1]
    pkv = ["batch", 1, "total", 1]
    graph = helper.make_graph(
        nodes,
        "slow",
        [
            helper.make_tensor_value_info("input_ids", i64, ["batch", "seq"]),
            helper.make_tensor_value_info("attention_mask", i64, ["batch", "total"]),
            helper.make_tensor_value_info("past_key_values.0.key", f, kv),
            helper.make_tensor_value_info("past_key_values.0.value", f, kv),
        ],
        [
            helper.make_tensor_value_info("logits", f, ["batch", "seq", vocab]),
            helper.make_tensor_value_info("present.0.key", f, pkv),
            helper.make_tensor_value_info("present.0.value", f, pkv),
        ],
        initializer=inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, str(out / "model.onnx"))
    return out
