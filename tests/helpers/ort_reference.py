"""A plain onnxruntime greedy loop over an Optimum decoder graph: the reference LocalEngine must equal.

No og involved: the KV cache is passed by hand, as transformers.js or Optimum's own runtime do.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import numpy as np


def greedy(onnx_path: Path, prompt: list[int], max_new: int, eos: Iterable[int] = (), min_new: int = 0) -> list[int]:
    """Greedy tokens after ``prompt``; the end-of-turn ids are masked for the first ``min_new`` (as LocalEngine does)."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.log_severity_level = 3
    session = ort.InferenceSession(str(onnx_path), options, providers=["CPUExecutionProvider"])
    stop = set(eos)
    past: dict[str, np.ndarray] = {}
    names = [i.name for i in session.get_inputs()]
    for meta in session.get_inputs():
        if meta.name.startswith("past_key_values."):
            dtype = np.float16 if meta.type == "tensor(float16)" else np.float32
            past[meta.name] = np.zeros((1, meta.shape[1], 0, meta.shape[3]), dtype=dtype)
    outputs = [o.name for o in session.get_outputs()]
    tokens = list(prompt)
    step = list(prompt)
    generated: list[int] = []
    while len(generated) < max_new:
        feed: dict[str, np.ndarray] = {"input_ids": np.asarray([step], dtype=np.int64)}
        if "attention_mask" in names:
            feed["attention_mask"] = np.ones((1, len(tokens)), dtype=np.int64)
        if "position_ids" in names:
            feed["position_ids"] = np.arange(len(tokens) - len(step), len(tokens), dtype=np.int64)[None, :]
        feed.update(past)
        result = dict(zip(outputs, session.run(outputs, feed), strict=True))
        logits = result["logits"][0, -1].astype(np.float32)
        if len(generated) < min_new:
            logits[[t for t in stop if t < logits.shape[0]]] = -np.inf
        token = int(np.argmax(logits))
        if token in stop:
            break
        generated.append(token)
        tokens.append(token)
        step = [token]
        past = {name: result[name.replace("past_key_values.", "present.")] for name in past}
    return generated
