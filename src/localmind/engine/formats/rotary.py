"""Hand the exported rotary embedding to GroupQueryAttention (do_rotary=1 with cos/sin caches).

What the export has: one model-level ``rotary_emb`` (cos/sin of position_ids × inv_freq, computed at every
step) and, per layer, for Q and K: Transpose to (batch, heads, seq, head), then ``x·cos + rotate_half(x)·sin``
with rotate_half built from Shape/Gather/Div/Slice/Neg/Concat — about forty small nodes per layer.

What replaces it: GroupQueryAttention rotates Q and K itself from two (max positions, head/2) tables, the
way og's builder graphs do. The tables are computed here from the export's own ``inv_freq`` constant and
attention scaling (so rope-scaling variants that only change inv_freq are covered as well), in float32
like the export (one multiply, then cos/sin). Positions inside GroupQueryAttention come from the KV length,
which equals position_ids for LocalMind's batch of one without padding.

A layer whose rotary differs in any detail raises NoMatch; the caller then keeps the exported rotary
(do_rotary=0).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from localmind.engine.formats.onnx_graph import Node

_THROUGH = ("Cast", "Expand", "Unsqueeze", "Reshape")


class RotaryMismatch(Exception):
    pass


class Producers:
    def __init__(self, nodes: list[Node]) -> None:
        self.of = {o: n for n in nodes for o in n.outputs}

    def node(self, tensor: str, *ops: str) -> Node:
        n = self.of.get(tensor)
        if n is None or n.op not in ops:
            raise RotaryMismatch(f"{tensor}: expected {'/'.join(ops)}, found {n.op if n else 'a graph input'}")
        return n

    def const(self, tensor: str) -> list[float] | None:
        n = self.of.get(tensor)
        if n is None or n.op != "Constant" or "value" not in n.tensor_attrs:
            return None
        return n.tensor_attrs["value"][1]

    def skip(self, tensor: str, ops: tuple[str, ...] = ("Cast",)) -> str:
        while (n := self.of.get(tensor)) is not None and n.op in ops:
            tensor = n.inputs[0]
        return tensor


@dataclass(frozen=True)
class LayerRotary:
    x: str  # (batch, seq, heads, head) before the rotation: what GroupQueryAttention takes, flattened
    cos: str  # the model-level cos/sin tensors this layer reads (the same for every layer)
    sin: str


def match(p: Producers, rotated: str) -> LayerRotary:
    """``rotated`` = x·cos + rotate_half(x)·sin with x = Transpose(x_bsnh); returns x_bsnh and cos/sin."""
    add = p.node(rotated, "Add")
    muls = [p.node(t, "Mul") for t in add.inputs]
    half = [m for m in muls if any(p.of.get(i) is not None and p.of[i].op == "Concat" for i in m.inputs)]
    if len(half) != 1:
        raise RotaryMismatch(f"{rotated}: not x·cos + rotate_half(x)·sin")
    plain = muls[1 - muls.index(half[0])]
    concat_in = next(i for i in half[0].inputs if p.of.get(i) is not None and p.of[i].op == "Concat")
    sin_u = next(i for i in half[0].inputs if i != concat_in)
    concat = p.of[concat_in]
    if concat.attrs.get("axis") not in (-1, 3) or len(concat.inputs) != 2:
        raise RotaryMismatch(f"{rotated}: rotate_half concatenation")
    neg = p.node(concat.inputs[0], "Neg")
    second, first = p.node(neg.inputs[0], "Slice"), p.node(concat.inputs[1], "Slice")
    xt = first.inputs[0]
    if second.inputs[0] != xt or xt not in plain.inputs:
        raise RotaryMismatch(f"{rotated}: rotate_half does not slice the rotated tensor")
    cos_u = next(i for i in plain.inputs if i != xt)
    if p.const(first.inputs[1]) != [0.0] or p.const(first.inputs[3]) not in ([3.0], [-1.0]):
        raise RotaryMismatch(f"{rotated}: first half slice")
    if p.const(second.inputs[3]) not in ([3.0], [-1.0]) or (p.const(second.inputs[2]) or [0.0])[0] < 2**30:
        raise RotaryMismatch(f"{rotated}: second half slice")
    if p.skip(second.inputs[1], ("Unsqueeze", "Cast")) != p.skip(first.inputs[2], ("Unsqueeze", "Cast")):
        raise RotaryMismatch(f"{rotated}: the halves do not meet")
    div = p.node(p.skip(first.inputs[2], ("Unsqueeze", "Cast")), "Div")
    if p.const(div.inputs[1]) != [2.0]:
        raise RotaryMismatch(f"{rotated}: rotate_half does not split in two")
    t = p.node(xt, "Transpose")
    if t.attrs.get("perm") != [0, 2, 1, 3]:
        raise RotaryMismatch(f"{rotated}: the rotated tensor is not (batch, heads, seq, head)")
    cos, sin = (p.node(u, "Unsqueeze") for u in (cos_u, sin_u))
    if p.const(cos.inputs[1]) != [1.0] or p.const(sin.inputs[1]) != [1.0]:
        raise RotaryMismatch(f"{rotated}: cos/sin not broadcast over heads")
    return LayerRotary(t.inputs[0], cos.inputs[0], sin.inputs[0])


def _table(p: Producers, tensor: str, fn: str) -> tuple[str, float]:
    """The Concat(freqs, freqs) a cos/sin tensor comes from, and its attention scaling."""
    scale = 1.0
    node = p.node(p.skip(tensor), "Mul", fn)
    if node.op == "Mul":
        c = p.const(node.inputs[1])
        if c is None or len(c) != 1:
            raise RotaryMismatch(f"{tensor}: scaling is not a constant")
        scale = c[0]
        node = p.node(p.skip(node.inputs[0]), fn)
    return node.inputs[0], scale


def caches(p: Producers, cos: str, sin: str, positions: int) -> tuple[np.ndarray, np.ndarray]:
    """The (positions, head/2) cos and sin tables the export's rotary_emb would compute, in float32."""
    emb_c, scale_c = _table(p, cos, "Cos")
    emb_s, scale_s = _table(p, sin, "Sin")
    if emb_c != emb_s:
        raise RotaryMismatch("cos and sin of different angles")
    concat = p.node(emb_c, "Concat")
    if len(concat.inputs) != 2 or concat.inputs[0] != concat.inputs[1] or concat.attrs.get("axis") not in (-1, 2):
        raise RotaryMismatch("angles are not Concat(freqs, freqs)")
    tr = p.node(concat.inputs[0], "Transpose")
    if tr.attrs.get("perm") != [0, 2, 1]:
        raise RotaryMismatch("angles are not transposed to (batch, seq, head/2)")
    mm = p.node(tr.inputs[0], "MatMul")
    inv = p.const(p.skip(mm.inputs[0], _THROUGH))
    if inv is None or p.skip(mm.inputs[1], _THROUGH) != "position_ids":
        raise RotaryMismatch("angles are not inv_freq × position_ids")
    inv_freq = np.asarray(inv, dtype=np.float32)
    angles = np.arange(positions, dtype=np.float32)[:, None] * inv_freq[None, :]
    cos_t = np.cos(angles) * np.float32(scale_c)
    sin_t = np.sin(angles) * np.float32(scale_s)
    return cos_t.astype(np.float32), sin_t.astype(np.float32)


__all__ = ["LayerRotary", "Producers", "RotaryMismatch", "caches", "match"]
