"""Pack sibling 4-bit projections (Q/K/V; gate/up) into one MatMulNBits followed by a Split.

The export multiplies the same activations by three (attention) or two (MLP) 4-bit matrices, each its own
MatMulNBits node: at every step each one quantizes the activations again and runs its own small GEMM. og's
model builder packs Q/K/V into one matrix. Here, nodes that read the same input with the same K, bit width,
block size and accuracy level, and have no zero points, bias or group index, become one node whose weight
and scale rows are the siblings' rows one after another (a MatMulNBits weight is laid out row by row, one row
per output column, so this is exact), then a Split gives each original output back under its own name.

The packed tensors are new: they are stored in the rewritten graph file; the originals' records leave the graph
(their bytes stay, unread, in the external data file LocalMind links to).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from localmind.engine.formats.onnx_graph import Graph, Node, read_tensor

MS = "com.microsoft"


def _key(node: Node) -> tuple[object, ...] | None:
    if node.op != "MatMulNBits" or node.domain != MS:
        return None
    if len(node.inputs) < 3 or any(node.inputs[3:]):  # zero points, g_idx or bias: not packed
        return None
    a = node.attrs
    return (node.inputs[0], a.get("K"), a.get("bits", 4), a.get("block_size"), a.get("accuracy_level", 0))


def pack(path: Path, graph: Graph, nodes: list[Node]) -> tuple[list[Node], list[tuple[str, np.ndarray]], set[str], int]:
    """``nodes`` with sibling MatMulNBits packed; the new tensors to store; the tensors no longer read (unless
    another node reads them too); how many groups were packed."""
    groups: dict[tuple[object, ...], list[Node]] = {}
    for node in nodes:
        key = _key(node)
        if key is not None and node.inputs[1] in graph.initializers and node.inputs[2] in graph.initializers:
            groups.setdefault(key, []).append(node)
    packed: dict[int, list[Node]] = {}  # id of a group's first node -> the nodes that replace the group
    dropped: set[int] = set()
    tensors: list[tuple[str, np.ndarray]] = []
    for number, members in enumerate(g for g in groups.values() if len(g) > 1):
        widths = [n for n in (m.attrs.get("N") for m in members) if isinstance(n, int) and n > 0]
        if len(widths) != len(members):
            continue
        weights = [read_tensor(path, graph, m.inputs[1]) for m in members]
        scales = [read_tensor(path, graph, m.inputs[2]) for m in members]
        if any(w.ndim != 3 or w.shape[0] != n for w, n in zip(weights, widths, strict=True)):
            continue
        if len({w.shape[1:] for w in weights}) != 1 or len({s.dtype for s in scales}) != 1:
            continue
        rows = [s.reshape(n, -1) for s, n in zip(scales, widths, strict=True)]
        joined_scales = np.concatenate(rows, axis=0)
        if scales[0].ndim == 1:
            joined_scales = joined_scales.reshape(-1)
        prefix = f"/localmind/packed.{number}"
        tensors += [(f"{prefix}.weight", np.concatenate(weights, axis=0)), (f"{prefix}.scales", joined_scales)]
        first = members[0]
        attrs = {**first.attrs, "N": sum(widths)}
        joined = f"{prefix}/MatMulNBits_output"
        packed[id(first)] = [
            Node(
                "MatMulNBits",
                [first.inputs[0], f"{prefix}.weight", f"{prefix}.scales"],
                [joined],
                f"{prefix}/MatMulNBits",
                MS,
                attrs=attrs,
            ),
            Node("Constant", [], [f"{prefix}/sizes"], f"{prefix}/sizes", attrs={"value_ints": list(widths)}),
            Node(
                "Split",
                [joined, f"{prefix}/sizes"],
                [m.outputs[0] for m in members],
                f"{prefix}/Split",
                attrs={"axis": -1},
            ),
        ]
        dropped.update(id(m) for m in members)
    out: list[Node] = []
    for node in nodes:
        if id(node) in packed:
            out += packed[id(node)]
        elif id(node) not in dropped:
            out.append(node)
    still_read = {i for n in out for i in n.inputs}
    replaced = {i for n in nodes if id(n) in dropped for i in n.inputs[1:3]} - still_read
    return out, tensors, replaced, len(packed)


__all__ = ["pack"]
