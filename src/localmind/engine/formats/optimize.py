"""Install-time graph rewrites for onnx-community / Optimum exports: what measurably pays off on a CPU.

1. ``accuracy_level=4`` on every MatMulNBits node (4-bit weights). Without the attribute onnxruntime
   dequantizes to fp32 and runs a plain fp32 GEMM; level 4 lets it quantize activations to int8 and use its
   int8 dot-product kernels, which is what og's own model builder sets for CPU. Outputs differ from the
   unmodified graph only by the int8 rounding of activations.
2. The attention of every layer as one GroupQueryAttention node with a shared KV buffer (``gqa``), for
   float32 graphs of the families ``gqa.MODEL_TYPES`` names. Skipped, with the reason in the notes, when the
   graph does not match the expected export exactly: the graph then keeps rewrite 1 only. With it: the rotary
   inside GroupQueryAttention (``rotary``), RMSNorm as (Skip)SimplifiedLayerNormalization (``rmsnorm``);
   packing sibling projections (``packing``) is measured by the bench but off (see PACK_PROJECTIONS).

bench/variants.py measures both. The generated genai_config.json follows the graph (a GroupQueryAttention
graph gets ``past_present_share_buffer``). Only the graph file is written; the external data file is not
read, and the new graph sits next to a link to it.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from localmind.engine.formats.genai_config import unreadable_onnx
from localmind.errors import Phrase

Progress = Callable[[float, str], None]
ACCURACY_LEVEL = 4
FUSE_ROTARY = True  # bench/variants.py turns these off for candidates to measure what each brings
FUSE_RMSNORM = True  # bench/variants.py turns it off for one candidate to measure what it brings
# Off: packing Q/K/V and gate/up was exact but its speed gain stayed within the noise in two bench runs, while it
# writes the packed weights into the graph file (Qwen3-0.6B: 1.5 MB -> 205 MB next to the unchanged 995 MB data).
PACK_PROJECTIONS = False
# The vocabulary projection for the last position only (last_logits): a quarter of a prompt's matrix work on a
# 151,936-word vocabulary, and its [positions x vocabulary] output buffer. bench/longprompt.py measures it.
LAST_POSITION_LOGITS = True
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RewriteReport:
    written: bool  # False: nothing to change, ``dst`` was not written (link the original instead)
    changed_nodes: int
    notes: tuple[str, ...] = ()
    attention_fused: bool = False


def rewrite_graph(
    src: Path,
    dst: Path,
    *,
    progress: Progress | None = None,
    config: Mapping[str, Any] | None = None,
    fuse_attention: bool = True,
) -> RewriteReport:
    """Write ``src`` with the kept rewrites to ``dst`` (external data references stay relative).

    ``config`` (the export's config.json) enables the attention rewrite; without it only attributes change.
    """
    from localmind.engine.formats.onnx_proto import OnnxFormatError, set_node_attribute

    def report(fraction: float) -> None:
        if progress is not None:
            progress(fraction, Phrase("Tuning the model for this computer"))

    report(0.0)
    try:
        if config is not None and fuse_attention:
            fused = _fuse_attention(src, dst, config, report)
            if fused is not None:
                report(1.0)
                return fused
        plain = _plain_rewrite(src, dst, report)
        if plain is not None:
            return plain
        changed = set_node_attribute(
            src, dst, "MatMulNBits", "com.microsoft", "accuracy_level", ACCURACY_LEVEL, progress=report
        )
    except OnnxFormatError as exc:
        raise unreadable_onnx(src, exc) from exc
    report(1.0)
    if not changed:
        return RewriteReport(False, 0)
    return RewriteReport(True, changed, (f"accuracy_level={ACCURACY_LEVEL} on {changed} MatMulNBits nodes",))


def _plain_rewrite(src: Path, dst: Path, report: Callable[[float], None]) -> RewriteReport | None:
    """accuracy_level on every 4-bit MatMul and the logits for the last position only, on the node list; None
    where the logits rewrite does not apply (then only the attribute changes, streaming, as before)."""
    from localmind.engine.formats import last_logits, onnx_graph

    if not LAST_POSITION_LOGITS:
        return None
    graph = onnx_graph.read_graph(src)
    try:
        plan = last_logits.plan(graph)
    except last_logits.NoMatch as exc:
        log.info("logits computed for every position in %s: %s", src.name, exc)
        return None
    levels = _set_accuracy_levels(plan.nodes)
    onnx_graph.write_graph(
        src, dst, plan.nodes, initializers=plan.initializers, outputs=plan.outputs, progress=lambda f: report(f)
    )
    notes = [f"logits for the last position only (before its {plan.projection})"]
    if levels:
        notes.append(f"accuracy_level={ACCURACY_LEVEL} on {levels} MatMulNBits nodes")
    return RewriteReport(True, levels + 1, tuple(notes))


def _set_accuracy_levels(nodes: list[Any]) -> int:
    from localmind.engine.formats.onnx_proto import _with_int_attribute

    levels = 0
    for node in nodes:
        if node.op == "MatMulNBits" and node.domain == "com.microsoft" and node.attrs.get("accuracy_level") != 4:
            if node.raw is None:
                node.attrs["accuracy_level"] = ACCURACY_LEVEL
            else:
                node.raw = _with_int_attribute(node.raw, "accuracy_level", ACCURACY_LEVEL)
            levels += 1
    return levels


def _fuse_attention(
    src: Path, dst: Path, config: Mapping[str, Any], report: Callable[[float], None]
) -> RewriteReport | None:
    """The GroupQueryAttention and RMSNorm rewrites (plus accuracy_level), or None where the graph does not
    qualify for the attention rewrite (the norm fusion alone is not worth a different code path)."""
    from localmind.engine.formats import gqa, last_logits, onnx_graph, packing, rmsnorm
    from localmind.engine.formats.onnx_proto import read_summary

    summary = read_summary(src)
    past = [v for v in summary.inputs if v.name.startswith("past")]
    if not past or any(v.elem_type != "float" for v in past):
        log.info("attention not fused in %s: the KV cache is not float32", src.name)
        return None
    graph = onnx_graph.read_graph(src)
    report(0.05)
    try:
        plan = gqa.plan_rewrite(graph, config, rotary=FUSE_ROTARY)
    except gqa.NoMatch as exc:
        log.info("attention not fused in %s: %s", src.name, exc)
        return None
    nodes = plan.nodes
    notes = [f"attention of {plan.layers} layers as GroupQueryAttention"]
    if plan.rotary_fused:
        notes.append("rotary embedding inside GroupQueryAttention")
    if FUSE_RMSNORM:
        nodes, norms = rmsnorm.fuse_rmsnorm(nodes, graph)
        nodes, skips = rmsnorm.fuse_skip(nodes, graph)
        nodes = onnx_graph.live_nodes(nodes, graph.outputs)
        if norms:
            notes.append(f"{norms} RMSNorms as SimplifiedLayerNormalization ({skips} with their residual Add)")
    tensors = list(plan.initializers)
    drop: frozenset[int] = frozenset()
    if PACK_PROJECTIONS:
        nodes, packed_tensors, unread, groups = packing.pack(src, graph, nodes)
        tensors += packed_tensors
        drop = frozenset(graph.initializer_at[name][0] for name in unread)
        if groups:
            notes.append(f"{groups} groups of sibling 4-bit projections packed into one MatMulNBits each")
    outputs: dict[str, Callable[[bytes], bytes]] = {}
    if LAST_POSITION_LOGITS:
        try:
            last = last_logits.plan(dataclasses.replace(graph, nodes=nodes))
        except last_logits.NoMatch as exc:
            log.info("logits computed for every position in %s: %s", src.name, exc)
        else:
            nodes, tensors, outputs = last.nodes, tensors + last.initializers, last.outputs
            notes.append(f"logits for the last position only (before its {last.projection})")
    levels = _set_accuracy_levels(nodes)
    onnx_graph.write_graph(
        src,
        dst,
        nodes,
        add_opsets=plan.add_opsets,
        initializers=tensors,
        outputs=outputs,
        drop=drop,
        progress=lambda f: report(0.1 + 0.9 * f),
    )
    notes.append(f"{len(graph.nodes)} nodes -> {len(nodes)}")
    if levels:
        notes.append(f"accuracy_level={ACCURACY_LEVEL} on {levels} MatMulNBits nodes")
    return RewriteReport(True, levels + plan.layers, tuple(notes), attention_fused=True)


__all__ = ["ACCURACY_LEVEL", "RewriteReport", "rewrite_graph"]
