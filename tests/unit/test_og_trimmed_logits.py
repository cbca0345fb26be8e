"""How the pinned og reads a graph whose logits output has sequence length 1 (issue 19, "logits only where used").

Facts a graph rewrite can build on: og reads the logits output's declared shape; with a static 1 as its sequence
dimension it allocates one row per sequence for prompt reads too ("Logits: Using Trimmed Prefill Logits" in og's
log) and everything LocalMind uses after a read — the last row, greedy tokens, a read after a rewind — is exact, in
one read or in chunks. With a symbolic dimension og allocates a row per prompt token and onnxruntime refuses the
run, so a rewrite must declare the 1.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from localmind.engine.local import LocalEngine
from localmind.engine.types import ChatMessage, GenerationOptions, LoadOptions, TextDelta


def last_row_only(src: Path, dst: Path, *, static: bool) -> Path:
    """A copy of the tiny model whose graph returns logits[:, -1:, :] (a Slice in front of the output)."""
    import onnx
    from onnx import TensorProto, helper

    shutil.copytree(src, dst)
    model = onnx.load(str(dst / "model.onnx"))
    graph = model.graph
    for node in graph.node:
        node.output[:] = ["logits_all" if name == "logits" else name for name in node.output]
    graph.initializer.extend(
        [
            helper.make_tensor("last_start", TensorProto.INT64, [1], [-1]),
            helper.make_tensor("last_end", TensorProto.INT64, [1], [2**62]),
            helper.make_tensor("last_axis", TensorProto.INT64, [1], [1]),
        ]
    )
    graph.node.append(helper.make_node("Slice", ["logits_all", "last_start", "last_end", "last_axis"], ["logits"]))
    dim = next(o for o in graph.output if o.name == "logits").type.tensor_type.shape.dim[1]
    if static:
        dim.ClearField("dim_param")
        dim.dim_value = 1
    else:
        dim.dim_param = "last"
    onnx.save(model, str(dst / "model.onnx"))
    return dst


def read(folder: Path, chunks: list[list[int]]) -> tuple[list[np.ndarray], list[int], np.ndarray]:
    """The last row after each chunk, 8 greedy tokens, and the last row after a rewind by 2 and a re-read."""
    import onnxruntime_genai as og

    model = og.Model(str(folder))
    params = og.GeneratorParams(model)
    params.set_search_options(max_length=256, do_sample=False)
    generator = og.Generator(model, params)
    rows = []
    for chunk in chunks:
        generator.append_tokens(np.asarray(chunk, dtype=np.int32))
        logits: Any = generator.get_logits()
        rows.append(logits.reshape(-1, logits.shape[-1])[-1].copy())
    tokens = []
    for _ in range(8):
        generator.generate_next_token()
        tokens.append(int(generator.get_next_tokens()[0]))
    generator.rewind_to(sum(map(len, chunks)) - 2)
    generator.append_tokens(np.asarray(chunks[-1][-2:], dtype=np.int32))
    after = generator.get_logits()
    return rows, tokens, after.reshape(-1, after.shape[-1])[-1].copy()


@pytest.fixture(scope="module")
def prompt(tiny_model: Path) -> list[int]:
    import onnxruntime_genai as og

    tokenizer = og.Tokenizer(og.Model(str(tiny_model)))
    text = "<|im_start|>user\nTell me a story about a cat.<|im_end|>\n<|im_start|>assistant\n"
    return [int(t) for t in tokenizer.encode(text)]


@pytest.mark.parametrize("chunk", [1000, 8, 3])
def test_a_static_one_row_logits_output_reads_prompts_exactly(
    tiny_model: Path, tmp_path: Path, prompt: list[int], chunk: int
) -> None:
    trimmed = last_row_only(tiny_model, tmp_path / "last", static=True)
    chunks = [prompt[i : i + chunk] for i in range(0, len(prompt), chunk)]
    rows, tokens, after = read(tiny_model, chunks)
    rows_t, tokens_t, after_t = read(trimmed, chunks)
    assert all(np.array_equal(a, b) for a, b in zip(rows, rows_t, strict=True))
    assert tokens_t == tokens and np.array_equal(after_t, after)


def test_a_symbolic_sequence_dimension_is_refused_by_onnxruntime(
    tiny_model: Path, tmp_path: Path, prompt: list[int]
) -> None:
    trimmed = last_row_only(tiny_model, tmp_path / "symbolic", static=False)
    with pytest.raises(Exception, match=r"pre-allocated|has shape"):
        read(trimmed, [prompt])


def test_the_engine_answers_exactly_on_a_one_row_logits_graph(tiny_model: Path, tmp_path: Path) -> None:
    """Type-ahead's kept prediction, chunked reads and KV reuse over turns, on the trimmed graph."""
    trimmed = last_row_only(tiny_model, tmp_path / "last", static=True)
    replies = []
    for folder in (tiny_model, trimmed):
        engine = LocalEngine()
        engine.load(str(folder), LoadOptions(device="cpu", prefill_chunk=4))
        chat = [ChatMessage("user", "Tell me a story about a cat.")]
        texts = []
        for question in ("and then?", "中文 emoji 😀"):
            engine.prefill(chat[:-1], chat[-1].content, whole=True)
            text = "".join(
                e.text for e in engine.generate(chat, GenerationOptions(temperature=0)) if isinstance(e, TextDelta)
            )
            texts.append(text)
            chat += [ChatMessage("assistant", text), ChatMessage("user", question)]
        replies.append(texts)
        engine.close()
    assert replies[0] == replies[1] and all(replies[0])
