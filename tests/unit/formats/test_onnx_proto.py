"""LocalMind's small ONNX reader/rewriter agrees with the onnx package, byte for byte where it copies."""

from __future__ import annotations

from pathlib import Path

import pytest

from localmind.engine.formats import onnx_proto, optimize
from tests.helpers import community_model

onnx = pytest.importorskip("onnx")
pytestmark = pytest.mark.slow


def dims(value: object) -> tuple[int | str, ...]:
    return tuple(
        d.dim_value if d.HasField("dim_value") else (d.dim_param or "?")
        for d in value.type.tensor_type.shape.dim  # type: ignore[attr-defined]
    )


@pytest.mark.parametrize("name", ["model.onnx", "model_q4.onnx", "model_fp16.onnx"])
def test_inputs_outputs_and_ops_match_the_onnx_package(name: str) -> None:
    path = community_model.cached("qwen3-tiny") / "onnx" / name
    summary = onnx_proto.read_summary(path)
    model = onnx.load(str(path), load_external_data=False)
    assert [(v.name, v.shape) for v in summary.inputs] == [(v.name, dims(v)) for v in model.graph.input]
    assert [(v.name, v.shape) for v in summary.outputs] == [(v.name, dims(v)) for v in model.graph.output]
    assert summary.op_types == {n.op_type for n in model.graph.node}
    assert summary.node_count == len(model.graph.node)
    expected_elem = "float16" if "fp16" in name else "float"
    assert {v.elem_type for v in summary.outputs} == {expected_elem}


def test_the_rewrite_sets_accuracy_level_and_changes_nothing_else(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(optimize, "LAST_POSITION_LOGITS", False)  # test_last_logits.py checks that rewrite
    src = community_model.cached("smollm2-tiny") / "onnx" / "model_q4.onnx"
    dst = tmp_path / "model_q4.onnx"
    seen: list[float] = []
    report = optimize.rewrite_graph(src, dst, progress=lambda f, _: seen.append(f))
    before, after = onnx.load(str(src)), onnx.load(str(dst))
    matmuls = [n for n in after.graph.node if n.op_type == "MatMulNBits"]
    assert report.written and report.changed_nodes == len(matmuls) > 0
    for node in matmuls:
        assert onnx.helper.get_node_attr_value(node, "accuracy_level") == optimize.ACCURACY_LEVEL
    # Clearing the new attribute gives back the original model exactly.
    for node in after.graph.node:
        kept = [a for a in node.attribute if not (node.op_type == "MatMulNBits" and a.name == "accuracy_level")]
        del node.attribute[:]
        node.attribute.extend(kept)
    assert after.SerializeToString() == before.SerializeToString()
    onnx.checker.check_model(str(dst))
    assert seen[0] == 0.0 and seen[-1] == 1.0
    # Run again on the result: nothing left to change, nothing written.
    assert not optimize.rewrite_graph(dst, tmp_path / "again.onnx").written
    assert not (tmp_path / "again.onnx").exists()


def test_external_data_references_survive_the_rewrite(tmp_path: Path) -> None:
    """A graph whose weights sit in a side file: only the graph is rewritten, the reference stays relative."""
    import numpy as np
    from onnxruntime.quantization.matmul_nbits_quantizer import MatMulNBitsQuantizer

    x = onnx.helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [1, 64])
    y = onnx.helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [1, 64])
    w = onnx.numpy_helper.from_array(np.random.default_rng(0).normal(size=(64, 64)).astype(np.float32), "w")
    graph = onnx.helper.make_graph([onnx.helper.make_node("MatMul", ["x", "w"], ["y"])], "g", [x], [y], [w])
    model = onnx.helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid("", 17)])
    quant = MatMulNBitsQuantizer(model, bits=4, block_size=32, is_symmetric=True)
    quant.process()
    src = tmp_path / "src" / "model_q4.onnx"
    src.parent.mkdir()
    onnx.save(quant.model.model, str(src), save_as_external_data=True, location="model_q4.onnx_data", size_threshold=0)
    data_before = (src.parent / "model_q4.onnx_data").read_bytes()
    dst = tmp_path / "dst" / "model_q4.onnx"
    assert optimize.rewrite_graph(src, dst).changed_nodes == 1
    (dst.parent / "model_q4.onnx_data").hardlink_to(src.parent / "model_q4.onnx_data")  # as prepare does
    import onnxruntime as ort

    feed = {"x": np.ones((1, 64), dtype=np.float32)}
    a = ort.InferenceSession(str(src), providers=["CPUExecutionProvider"]).run(None, feed)[0]
    b = ort.InferenceSession(str(dst), providers=["CPUExecutionProvider"]).run(None, feed)[0]
    assert np.allclose(a, b, rtol=0.05, atol=0.5)  # level 4 quantizes activations to int8: close, not equal
    assert (src.parent / "model_q4.onnx_data").read_bytes() == data_before


def test_a_file_that_is_not_onnx_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "model.onnx"
    bad.write_bytes(b"\xff" * 64)
    with pytest.raises(onnx_proto.OnnxFormatError):
        onnx_proto.read_summary(bad)
