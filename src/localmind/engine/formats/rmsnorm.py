"""Fuse the exported RMSNorm (nine small nodes) into one SimplifiedLayerNormalization node.

What the export has, per norm (each layer's two, the final one, Qwen3's per-head q_norm/k_norm):

    x' = Cast(x, float);  y = weight * Cast(x' * (1 / Sqrt(ReduceMean(Pow(x', 2), [-1]) + eps)), float)

SimplifiedLayerNormalization(x', weight, axis=-1, epsilon=eps, stash_type=1) computes the same in float32
(the op og's model builder emits). ``x'`` stays as it is (the residual path reads it too); the eight nodes
after it are replaced when nothing else reads their outputs. A norm that differs in any detail is left alone.
"""

from __future__ import annotations

from localmind.engine.formats.onnx_graph import Graph, Node

_FLOAT = 1


def _const(producer: dict[str, Node], tensor: str) -> list[float] | None:
    node = producer.get(tensor)
    if node is None or node.op != "Constant" or "value" not in node.tensor_attrs:
        return None
    return node.tensor_attrs["value"][1]


def _index(nodes: list[Node], graph: Graph) -> tuple[dict[str, Node], dict[str, int]]:
    """Which node writes each value, and how many nodes (or graph outputs) read it."""
    producer = {o: n for n in nodes for o in n.outputs}
    readers: dict[str, int] = {}
    for n in nodes:
        for i in n.inputs:
            readers[i] = readers.get(i, 0) + 1
    for o in graph.outputs:
        readers[o] = readers.get(o, 0) + 1
    return producer, readers


def fuse_rmsnorm(nodes: list[Node], graph: Graph) -> tuple[list[Node], int]:
    """``nodes`` with every matching RMSNorm fused; returns the new list and how many were fused."""
    producer, readers = _index(nodes, graph)
    replaced: dict[int, Node] = {}  # id of the final Mul -> the fused node
    dropped: set[int] = set()

    def one(tensor: str, op: str) -> Node | None:
        node = producer.get(tensor)
        return node if node is not None and node.op == op and readers.get(tensor) == 1 else None

    for final in nodes:
        if final.op != "Mul" or len(final.inputs) != 2:
            continue
        weight, scaled = final.inputs
        if weight not in graph.initializers:
            scaled, weight = weight, scaled
        if weight not in graph.initializers:
            continue
        cast = one(scaled, "Cast")
        mul = one(cast.inputs[0], "Mul") if cast is not None and cast.attrs.get("to") == _FLOAT else None
        if mul is None or cast is None:
            continue
        pairs = [(a, one(b, "Div")) for a, b in (mul.inputs, mul.inputs[::-1])]
        found = [(a, d) for a, d in pairs if d is not None]
        if len(found) != 1:
            continue
        x, div = found[0]
        if _const(producer, div.inputs[0]) != [1.0]:
            continue
        sqrt = one(div.inputs[1], "Sqrt")
        add = one(sqrt.inputs[0], "Add") if sqrt is not None else None
        if add is None or sqrt is None:
            continue
        eps = _const(producer, add.inputs[1])
        mean = one(add.inputs[0], "ReduceMean")
        if eps is None or len(eps) != 1 or mean is None or mean.attrs.get("keepdims", 1) != 1:
            continue
        axes = mean.attrs.get("axes") if len(mean.inputs) == 1 else _const(producer, mean.inputs[1])
        pow_ = one(mean.inputs[0], "Pow")
        if axes not in ([-1], [-1.0]) or pow_ is None or _const(producer, pow_.inputs[1]) != [2.0]:
            continue
        if pow_.inputs[0] != x:
            continue
        source = producer.get(x)
        if source is None or source.op != "Cast" or source.attrs.get("to") != _FLOAT:
            continue  # x must be float32 (the export casts to float before the norm)
        replaced[id(final)] = Node(
            "SimplifiedLayerNormalization",
            [x, weight],
            [final.outputs[0]],
            (final.name.rsplit("/", 1)[0] or "/localmind") + "/SimplifiedLayerNormalization",
            attrs={"axis": -1, "epsilon": float(eps[0]), "stash_type": 1},
        )
        dropped.update(id(n) for n in (cast, mul, div, sqrt, add, mean, pow_))
    out = [replaced.get(id(n), n) for n in nodes if id(n) not in dropped]
    return out, len(replaced)


def fuse_skip(nodes: list[Node], graph: Graph) -> tuple[list[Node], int]:
    """Residual Add + (no-op) Cast + SimplifiedLayerNormalization -> one SkipSimplifiedLayerNormalization,
    whose fourth output is the sum the next residual Add reads (what og's builder graphs have)."""
    producer, readers = _index(nodes, graph)
    replaced: dict[int, Node] = {}
    dropped: set[int] = set()
    for norm in nodes:
        if norm.op != "SimplifiedLayerNormalization" or norm.domain or len(norm.inputs) != 2:
            continue
        cast = producer.get(norm.inputs[0])
        if cast is None or cast.op != "Cast" or cast.attrs.get("to") != _FLOAT:
            continue
        add = producer.get(cast.inputs[0])
        if add is None or add.op != "Add" or len(add.inputs) != 2 or readers.get(cast.inputs[0]) != 1:
            continue
        if any(producer.get(i) is None or producer[i].op == "Constant" for i in add.inputs):
            continue  # a bias or a graph input, not a residual sum of two activations
        replaced[id(norm)] = Node(
            "SkipSimplifiedLayerNormalization",
            [*add.inputs, norm.inputs[1]],
            [norm.outputs[0], "", "", cast.outputs[0]],
            norm.name.replace("SimplifiedLayerNormalization", "SkipSimplifiedLayerNormalization"),
            "com.microsoft",
            attrs={"epsilon": norm.attrs.get("epsilon", 1e-5)},
        )
        dropped.update((id(cast), id(add)))
    out = [replaced.get(id(n), n) for n in nodes if id(n) not in dropped]
    return out, len(replaced)


__all__ = ["fuse_rmsnorm", "fuse_skip"]
