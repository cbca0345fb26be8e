"""The attention rewrite (engine/formats/gqa.py): a valid ONNX graph with one GroupQueryAttention per layer,
numerically the export's own attention, and a safe fallback for graphs that do not match.

Token-exactness through LocalMind (first turn, KV reuse, regenerate, cancel, edit) is in test_exact.py, against
a plain onnxruntime loop over the ORIGINAL graph.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from localmind.engine.formats import genai_config, gqa, onnx_graph, optimize, prepare
from localmind.engine.local import LocalEngine
from localmind.engine.types import ChatMessage, GenerationOptions, LoadOptions, TextDelta
from tests.helpers import community_model, ort_reference

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
pytestmark = pytest.mark.slow
SHAPES = ["smollm2-tiny", "qwen3-tiny"]


def check(model: object) -> None:
    """onnx's checker, full. SimplifiedLayerNormalization is an onnxruntime op in the default domain (og's
    builder emits it the same way), which onnx's own registry lacks: it is checked under another domain."""
    copy = onnx.ModelProto()
    copy.CopyFrom(model)  # type: ignore[arg-type]
    for node in copy.graph.node:
        if node.op_type == "SimplifiedLayerNormalization":
            node.domain = "ai.onnxruntime.test"
    copy.opset_import.append(onnx.helper.make_opsetid("ai.onnxruntime.test", 1))
    onnx.checker.check_model(copy, full_check=True)


def config_of(folder: Path) -> dict[str, object]:
    return json.loads((folder / "config.json").read_text(encoding="utf-8"))


def run_chunks(path: Path, chunks: list[list[int]], config: dict[str, object]) -> list[np.ndarray]:
    """Logits of each chunk, feeding the KV cache back by hand (plain onnxruntime, no og)."""
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    names = {i.name for i in session.get_inputs()}
    kv, head = int(config["num_key_value_heads"]), int(config.get("head_dim") or 0) or 16  # type: ignore[call-overload]
    past = {n: np.zeros((1, kv, 0, head), np.float32) for n in names if n.startswith("past_key_values.")}
    seen, out = 0, []
    for chunk in chunks:
        feed = {
            "input_ids": np.array([chunk], np.int64),
            "attention_mask": np.ones((1, seen + len(chunk)), np.int64),
            "position_ids": np.arange(seen, seen + len(chunk), dtype=np.int64)[None],
            **past,
        }
        result = dict(zip([o.name for o in session.get_outputs()], session.run(None, feed), strict=True))
        out.append(result["logits"])
        past = {n: result[n.replace("past_key_values.", "present.")] for n in past}
        seen += len(chunk)
    return out


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("name", ["model.onnx", "model_q4.onnx"])
def test_the_rewritten_graph_is_valid_onnx_with_one_attention_node_per_layer(
    tmp_path: Path, shape: str, name: str
) -> None:
    folder = community_model.cached(shape)
    config = config_of(folder)
    dst = tmp_path / name
    report = optimize.rewrite_graph(folder / "onnx" / name, dst, config=config)
    assert report.attention_fused and report.written
    model = onnx.load(str(dst))
    check(model)
    ops = [n.op_type for n in model.graph.node]
    layers = int(config["num_hidden_layers"])  # type: ignore[call-overload]
    assert ops.count("GroupQueryAttention") == layers
    assert "Softmax" not in ops and "IsNaN" not in ops  # the unfused attention is gone
    assert "Neg" not in ops and "Cos" not in ops  # the rotary is inside GroupQueryAttention (do_rotary=1)
    assert "Pow" not in ops and "Sqrt" not in ops  # every RMSNorm fused
    norms = 2 * layers + 1 + (2 * layers if shape.startswith("qwen3") else 0)  # Qwen3: q_norm and k_norm too
    assert ops.count("SimplifiedLayerNormalization") + ops.count("SkipSimplifiedLayerNormalization") == norms
    assert ops.count("SkipSimplifiedLayerNormalization") == 2 * layers  # each residual Add went into the next norm
    if shape.startswith("smollm2"):  # Llama: Q/K/V go straight from their projections into the attention
        assert "Transpose" not in ops and "Reshape" not in ops
    gqa_node = next(n for n in model.graph.node if n.op_type == "GroupQueryAttention")
    assert onnx.helper.get_node_attr_value(gqa_node, "do_rotary") == 1
    tables = {t.name: onnx.numpy_helper.to_array(t) for t in model.graph.initializer if "cache" in t.name}
    head = int(config.get("head_dim") or int(config["hidden_size"]) // int(config["num_attention_heads"]))  # type: ignore[call-overload]
    assert {a.shape for a in tables.values()} == {(config["max_position_embeddings"], head // 2)}
    assert len(ops) < len(onnx.load(str(folder / "onnx" / name), load_external_data=False).graph.node) * 0.7
    before = onnx.load(str(folder / "onnx" / name), load_external_data=False)
    assert [i.name for i in model.graph.input] == [i.name for i in before.graph.input]
    assert [o.name for o in model.graph.output] == [o.name for o in before.graph.output]
    assert any(o.domain == "com.microsoft" for o in model.opset_import)
    if "q4" in name:
        levels = [
            a.i
            for n in model.graph.node
            if n.op_type == "MatMulNBits"
            for a in n.attribute
            if a.name == "accuracy_level"
        ]
        assert levels and set(levels) == {optimize.ACCURACY_LEVEL}


@pytest.mark.parametrize("shape", SHAPES)
def test_the_rewritten_attention_computes_what_the_export_computes(
    tmp_path: Path, shape: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """fp32, prompt then one token then a chunk (KV reuse with more than one new token): same logits, at every
    position (so without the last-position rewrite; test_last_logits.py checks that one)."""
    monkeypatch.setattr(optimize, "LAST_POSITION_LOGITS", False)
    folder = community_model.cached(shape)
    config = config_of(folder)
    config.setdefault("head_dim", int(config["hidden_size"]) // int(config["num_attention_heads"]))  # type: ignore[call-overload]
    dst = tmp_path / "model.onnx"
    optimize.rewrite_graph(folder / "onnx" / "model.onnx", dst, config=config)
    chunks = [[5, 17, 99, 3, 42, 7, 8, 100], [200], [11, 12, 13], [300]]
    original, rewritten = run_chunks(folder / "onnx" / "model.onnx", chunks, config), run_chunks(dst, chunks, config)
    for a, b in zip(original, rewritten, strict=True):
        assert np.abs(a - b).max() < 1e-3
        assert (a.argmax(-1) == b.argmax(-1)).all()


def test_the_generated_config_shares_the_kv_buffer_only_for_a_rewritten_graph(tmp_path: Path) -> None:
    folder = community_model.cached("qwen3-tiny")
    fused = prepare.prepare_folder(folder, variant="q4", data_dir=tmp_path)
    plain = prepare.prepare_folder(folder, variant="q4", data_dir=tmp_path / "plain", optimize=False)
    half = prepare.prepare_folder(folder, variant="fp16", data_dir=tmp_path)  # fp16 KV: attention left as is
    for prepared, shared in ((fused, True), (plain, False), (half, False)):
        config = json.loads((prepared.path / "genai_config.json").read_text(encoding="utf-8"))
        assert config["search"]["past_present_share_buffer"] is shared
        ops = genai_config.read_graph_io(prepared.path / prepared.variant.onnx_path).op_types
        assert ("GroupQueryAttention" in ops) is shared
    assert any("GroupQueryAttention" in n for n in fused.notes)
    record = json.loads((fused.path / genai_config.RECORD_NAME).read_text(encoding="utf-8"))
    assert any("GroupQueryAttention" in r for r in record["rewrites"])


def _with_extra_kv_reader(src: Path, dst: Path) -> None:
    """The export plus one more node reading present.0.key (its shape as an extra output): not the pattern."""
    model = onnx.load(str(src))
    model.graph.node.append(onnx.helper.make_node("Shape", ["present.0.key"], ["kv_shape"], name="extra"))
    model.graph.output.append(onnx.helper.make_tensor_value_info("kv_shape", onnx.TensorProto.INT64, [4]))
    onnx.save(model, str(dst))


def test_a_graph_that_does_not_match_keeps_its_attention_and_still_runs_exact(tmp_path: Path) -> None:
    user = community_model.copy_of("smollm2-tiny", tmp_path / "odd")
    _with_extra_kv_reader(user / "onnx" / "model.onnx", user / "onnx" / "model.onnx")
    with pytest.raises(gqa.NoMatch, match="still reads the KV cache"):
        gqa.plan_rewrite(onnx_graph.read_graph(user / "onnx" / "model.onnx"), config_of(user))
    prepared = prepare.prepare_folder(user, variant="fp32", data_dir=tmp_path / "data")
    config = json.loads((prepared.path / "genai_config.json").read_text(encoding="utf-8"))
    assert config["search"]["past_present_share_buffer"] is False
    assert "GroupQueryAttention" not in genai_config.read_graph_io(prepared.path / "onnx/model.onnx").op_types
    engine = LocalEngine()
    engine.load(str(user), LoadOptions(device="cpu", variant="fp32", context_budget=256))
    options = GenerationOptions(temperature=0, repetition_penalty=1.0, max_new_tokens=10, min_new_tokens=10)
    text = "".join(e.text for e in engine.generate([ChatMessage("user", "hi")], options) if isinstance(e, TextDelta))
    prompt = engine.kv.record.tokens[: len(engine.prompts.encode(engine.prompts.render([ChatMessage("user", "hi")])))]
    tokens = ort_reference.greedy(user / "onnx" / "model.onnx", prompt, 10, engine.runner.eos, 10)
    stream = engine.prompts.tokenizer.create_stream()
    assert text == "".join(stream.decode(t) for t in tokens)
    engine.close()


def test_other_families_and_sliding_windows_are_not_rewritten() -> None:
    folder = community_model.cached("smollm2-tiny")
    graph = onnx_graph.read_graph(folder / "onnx" / "model.onnx")
    config = config_of(folder)
    with pytest.raises(gqa.NoMatch, match="model type"):
        gqa.plan_rewrite(graph, {**config, "model_type": "gemma3_text"})
    with pytest.raises(gqa.NoMatch, match="sliding"):
        gqa.plan_rewrite(graph, {**config, "model_type": "mistral", "sliding_window": 4096})
    assert gqa.plan_rewrite(graph, config).layers == config["num_hidden_layers"]


@pytest.mark.parametrize("shape", SHAPES)
def test_packing_sibling_projections_is_exact_and_leaves_nothing_unread(
    tmp_path: Path, shape: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Off by default (the bench measures it); when on, Q/K/V and gate/up become one 4-bit matrix each."""
    folder = community_model.cached(shape)
    config = config_of(folder)
    plain, packed = tmp_path / "plain.onnx", tmp_path / "packed.onnx"
    optimize.rewrite_graph(folder / "onnx" / "model_q4.onnx", plain, config=config)
    monkeypatch.setattr(optimize, "PACK_PROJECTIONS", True)
    report = optimize.rewrite_graph(folder / "onnx" / "model_q4.onnx", packed, config=config)
    assert any("packed" in n for n in report.notes)
    model = onnx.load(str(packed))
    check(model)
    layers = int(config["num_hidden_layers"])  # type: ignore[call-overload]
    ops = [n.op_type for n in model.graph.node]
    assert ops.count("MatMulNBits") == 4 * layers + 1  # qkv, o, gate/up, down per layer, plus lm_head
    assert ops.count("MatMulNBits") < [n.op_type for n in onnx.load(str(plain)).graph.node].count("MatMulNBits")
    read = {i for n in model.graph.node for i in n.input}
    assert [t.name for t in model.graph.initializer if t.name not in read] == []
    config.setdefault("head_dim", int(config["hidden_size"]) // int(config["num_attention_heads"]))  # type: ignore[call-overload]
    chunks = [[5, 17, 99, 3, 42, 7, 8, 100], [200], [11, 12, 13]]
    for a, b in zip(run_chunks(plain, chunks, config), run_chunks(packed, chunks, config), strict=True):
        assert np.array_equal(a, b)  # the same rows in the same order: bit for bit
