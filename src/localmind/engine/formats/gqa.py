"""Rewrite an Optimum export's per-layer attention into one com.microsoft GroupQueryAttention node.

What the export has per layer (PyTorch's scaled_dot_product_attention as traced): the new key and value
concatenated onto the past (``present.N.key|value`` = Concat(past, new) on the sequence axis), repeat_kv
(Unsqueeze/Expand/Reshape), Q·Kᵀ with the scale split over both sides (two Muls by √scale), a causal mask
built from ``attention_mask``, Softmax (with an IsNaN guard), ·V, then Transpose/Reshape into o_proj.
Hundreds of small nodes per layer, and the KV cache is copied at every step.

What replaces it (the way og's own model builder wires it): GroupQueryAttention(query, key, value,
past_key, past_value, seqlens_k, total_sequence_length) with ``present.N.key|value`` as its outputs and the
KV cache as one buffer shared between past and present (genai_config's past_present_share_buffer), where
``seqlens_k`` = ReduceSum(attention_mask, axis 1) - 1 and ``total_sequence_length`` = attention_mask's
second dimension, both int32. Q/K/V are the export's own tensors after rotary (and Qwen3's per-head q/k norm),
turned from (batch, heads, seq, head) into (batch, seq, heads·head); the rotary stays as exported
(do_rotary=0). The scale is read from the export's own constants. Nodes nothing reads afterwards (the mask,
repeat_kv, softmax…) are dropped.

Anything that does not match exactly is reported as a reason and the graph is left alone: the caller keeps
the graph it had (the accuracy_level rewrite only). Batch size 1 without padding is what LocalMind runs; the
mask-to-seqlens reduction is the same one og's builder graphs use for any right-padded batch.
"""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from localmind.engine.formats import rotary as rotary_fusion
from localmind.engine.formats.onnx_graph import Attr, Graph, Node, live_nodes

MS = "com.microsoft"
log = logging.getLogger(__name__)
# Families whose Optimum export was checked token-exact after this rewrite (tests/unit/formats/test_gqa.py).
# Others keep the graph as exported until checked (sliding windows, soft-capping, other scalings).
MODEL_TYPES = frozenset({"llama", "qwen2", "qwen3", "mistral"})
_REPEAT_KV = ("Unsqueeze", "Expand", "Reshape")


class NoMatch(Exception):
    """The graph is not the expected export: the reason says where."""


@dataclass(frozen=True)
class Plan:
    nodes: list[Node]
    layers: int
    removed: int  # nodes before minus after
    add_opsets: dict[str, int]
    initializers: list[tuple[str, np.ndarray]]  # new tensors (the rotary tables), stored in the graph file
    rotary_fused: bool


class _Index:
    def __init__(self, nodes: list[Node]) -> None:
        self.producer: dict[str, Node] = {}
        self.consumers: dict[str, list[Node]] = {}
        for n in nodes:
            for o in n.outputs:
                self.producer[o] = n
            for i in n.inputs:
                self.consumers.setdefault(i, []).append(n)

    def only_consumer(self, tensor: str, op: str) -> Node:
        users = self.consumers.get(tensor, [])
        if len(users) != 1 or users[0].op != op:
            raise NoMatch(f"{tensor} is not read by exactly one {op}")
        return users[0]

    def scalar(self, tensor: str) -> float | None:
        """The value of a one-element Constant, else None."""
        node = self.producer.get(tensor)
        if node is None or node.op != "Constant" or "value" not in node.tensor_attrs:
            return None
        values = node.tensor_attrs["value"][1]
        return values[0] if len(values) == 1 else None


def _layer_of(name: str) -> int | None:
    m = re.search(r"(\d+)", name)
    return int(m.group(1)) if m else None


def _present_concats(graph: Graph, idx: _Index) -> dict[int, tuple[Node, Node]]:
    keys: dict[int, Node] = {}
    values: dict[int, Node] = {}
    for out in graph.outputs:
        node = idx.producer.get(out)
        if node is None or node.op != "Concat" or "present" not in out:
            continue
        if len(node.inputs) != 2 or node.inputs[0] not in graph.inputs or node.attrs.get("axis") not in (2, -2):
            raise NoMatch(f"{out} is not Concat(past, new) on the sequence axis")
        layer = _layer_of(out)
        role = out.rsplit(".", 1)[-1].lower() if "." in out else ""
        if layer is None or role not in ("key", "value"):
            raise NoMatch(f"cannot tell the layer and role of {out}")
        (keys if role == "key" else values)[layer] = node
    if not keys or sorted(keys) != sorted(values) or sorted(keys) != list(range(len(keys))):
        raise NoMatch("no complete set of present.N.key/value concatenations")
    return {i: (keys[i], values[i]) for i in keys}


def _reaches(idx: _Index, tensor: str, source: str, through: tuple[str, ...]) -> bool:
    """Whether ``tensor`` is ``source`` seen through a chain of ``through`` ops (first input of each)."""
    while tensor != source:
        node = idx.producer.get(tensor)
        if node is None or node.op not in through:
            return False
        tensor = node.inputs[0]
    return True


def _strip_scale(idx: _Index, tensor: str, skip: tuple[str, ...] = ()) -> tuple[str, float]:
    """``tensor`` less Mul/Div by one-element constants (and ``skip`` ops); returns the rest and the factor."""
    factor = 1.0
    while True:
        node = idx.producer.get(tensor)
        if node is None:
            return tensor, factor
        if node.op in ("Mul", "Div") and len(node.inputs) == 2:
            c = idx.scalar(node.inputs[1])
            if c is None and node.op == "Mul":
                c = idx.scalar(node.inputs[0])
                if c is not None:
                    factor *= c
                    tensor = node.inputs[1]
                    continue
            if c is None or (node.op == "Div" and c == 0):
                return tensor, factor
            factor = factor * c if node.op == "Mul" else factor / c
            tensor = node.inputs[0]
        elif node.op in skip:
            tensor = node.inputs[0]
        else:
            return tensor, factor


@dataclass(frozen=True)
class _Layer:
    q: str  # (batch, heads, seq, head) after rotary
    k: str  # the new key, same layout
    v: str  # the new value, same layout
    past_k: str
    past_v: str
    present_k: str
    present_v: str
    out: str  # (batch, seq, heads*head): what o_proj reads
    out_node: Node  # the Reshape producing ``out`` (the GroupQueryAttention node takes its place)
    scale: float


def _match_layer(idx: _Index, kc: Node, vc: Node) -> _Layer:
    present_k, present_v = kc.outputs[0], vc.outputs[0]
    # ·V: the one MatMul reading present.value through repeat_kv.
    frontier, pv = [present_v], []
    while frontier:
        t = frontier.pop()
        for user in idx.consumers.get(t, []):
            if user.op == "MatMul" and user.inputs[1] == t:
                pv.append(user)
            elif user.op in _REPEAT_KV and user.inputs[0] == t:
                frontier.extend(user.outputs)
    if len(pv) != 1:
        raise NoMatch(f"{present_v}: expected one attention·V MatMul, found {len(pv)}")
    probs = pv[0].inputs[0]
    while (node := idx.producer.get(probs)) is not None and node.op != "Softmax":
        if node.op == "Where" and idx.producer.get(node.inputs[0], Node("", [], [])).op == "IsNaN":
            probs = node.inputs[2]
        elif node.op == "Cast":
            probs = node.inputs[0]
        else:
            raise NoMatch(f"{present_v}: no Softmax before attention·V ({node.op})")
    if node is None or node.attrs.get("axis", -1) not in (-1, 3):
        raise NoMatch(f"{present_v}: softmax not over keys")
    scores = node.inputs[0]
    add = idx.producer.get(scores)
    if add is not None and add.op == "Add":  # + the causal mask (GroupQueryAttention is causal itself)
        scores = next((i for i in add.inputs if _strip_scale(idx, i, ("Cast",))[0] in _matmuls(idx)), "")
    scores, post = _strip_scale(idx, scores, ("Cast",))
    qk = idx.producer.get(scores)
    if qk is None or qk.op != "MatMul":
        raise NoMatch(f"{present_k}: no Q·Kᵀ MatMul")
    q, q_scale = _strip_scale(idx, qk.inputs[0])
    kt, k_scale = _strip_scale(idx, qk.inputs[1])
    kt_node = idx.producer.get(kt)
    if kt_node is None or kt_node.op != "Transpose" or kt_node.attrs.get("perm") != [0, 1, 3, 2]:
        raise NoMatch(f"{present_k}: Kᵀ is not a Transpose of the keys")
    if not _reaches(idx, kt_node.inputs[0], present_k, _REPEAT_KV):
        raise NoMatch(f"{present_k}: Q·Kᵀ does not read the present keys")
    tr = idx.only_consumer(pv[0].outputs[0], "Transpose")
    if tr.attrs.get("perm") != [0, 2, 1, 3]:
        raise NoMatch(f"{present_v}: attention output is not transposed back to (batch, seq, heads, head)")
    reshape = idx.only_consumer(tr.outputs[0], "Reshape")
    scale = q_scale * k_scale * post
    if not (0 < scale < 10) or not math.isfinite(scale):
        raise NoMatch(f"{present_k}: implausible attention scale {scale}")
    return _Layer(
        q=q,
        k=kc.inputs[1],
        v=vc.inputs[1],
        past_k=kc.inputs[0],
        past_v=vc.inputs[0],
        present_k=present_k,
        present_v=present_v,
        out=reshape.outputs[0],
        out_node=reshape,
        scale=scale,
    )


def _projection(idx: _Index, bsnh: str) -> str | None:
    """The (batch, seq, heads·head) projection output ``bsnh`` was reshaped from, if that is all it is:
    Reshape(MatMul(hidden, W), [batch, seq, heads, head]) with the shape assembled from four parts."""
    reshape = idx.producer.get(bsnh)
    if reshape is None or reshape.op != "Reshape":
        return None
    data, shape = idx.producer.get(reshape.inputs[0]), idx.producer.get(reshape.inputs[1])
    if data is None or data.op not in ("MatMul", "MatMulNBits") or shape is None or shape.op != "Concat":
        return None
    return reshape.inputs[0] if len(shape.inputs) == 4 else None


def _matmuls(idx: _Index) -> set[str]:
    return {t for t, n in idx.producer.items() if n.op == "MatMul"}


def _const(name: str, values: list[int], scalar: bool = False) -> Node:
    if scalar:
        return Node("Constant", [], [name], name=name, attrs={"value_int": values[0]})
    return Node("Constant", [], [name], name=name, attrs={"value_ints": values})


def plan_rewrite(graph: Graph, config: Mapping[str, Any], *, rotary: bool = True) -> Plan:
    """The new node list, or NoMatch saying why this graph is not rewritten."""
    nested = config.get("text_config")
    text: Mapping[str, Any] = nested if isinstance(nested, Mapping) else config
    model_type = str(text.get("model_type") or config.get("model_type") or "")
    if model_type not in MODEL_TYPES:
        raise NoMatch(f"model type {model_type!r} not among {sorted(MODEL_TYPES)}")
    if text.get("sliding_window") and text.get("use_sliding_window", model_type == "mistral"):
        raise NoMatch("sliding-window attention")
    heads = int(text.get("num_attention_heads") or 0)
    kv_heads = int(text.get("num_key_value_heads") or heads)
    if heads <= 0 or kv_heads <= 0 or heads % kv_heads:
        raise NoMatch("head counts missing or not grouped")
    if graph.opsets.get("", 0) < 13:
        raise NoMatch("default opset below 13")
    if "attention_mask" not in graph.inputs:
        raise NoMatch("no attention_mask input")
    idx = _Index(graph.nodes)
    concats = _present_concats(graph, idx)
    layers = {i: _match_layer(idx, kc, vc) for i, (kc, vc) in concats.items()}

    p = "/localmind"
    mask_nodes: list[Node] = [
        _const(f"{p}/one", [1]),
        _const(f"{p}/one_scalar", [1], scalar=True),
        _const(f"{p}/bsd", [0, 0, -1]),
        Node("ReduceSum", ["attention_mask", f"{p}/one"], [f"{p}/mask_sum"], f"{p}/ReduceSum", attrs={"keepdims": 0}),
        Node("Sub", [f"{p}/mask_sum", f"{p}/one_scalar"], [f"{p}/seqlens_k64"], f"{p}/Sub"),
        Node("Cast", [f"{p}/seqlens_k64"], [f"{p}/seqlens_k"], f"{p}/seqlens_k", attrs={"to": 6}),
        Node("Shape", ["attention_mask"], [f"{p}/mask_shape"], f"{p}/Shape"),
        Node("Gather", [f"{p}/mask_shape", f"{p}/one_scalar"], [f"{p}/total64"], f"{p}/Gather", attrs={"axis": 0}),
        Node("Cast", [f"{p}/total64"], [f"{p}/total_seq_len"], f"{p}/total_seq_len", attrs={"to": 6}),
    ]
    replace = {id(layer.out_node): (i, layer) for i, layer in layers.items()}
    dropped = {id(kc) for kc, _ in concats.values()} | {id(vc) for _, vc in concats.values()}
    rotations, initializers = _rotations(graph, layers, int(text.get("max_position_embeddings") or 0), rotary)
    nodes: list[Node] = list(mask_nodes)
    for node in graph.nodes:
        if id(node) in dropped:
            continue
        if id(node) not in replace:
            nodes.append(node)
            continue
        i, layer = replace[id(node)]
        q = f"{p}/layers.{i}"
        flat: list[str] = []
        for role, tensor in (("q", layer.q), ("k", layer.k), ("v", layer.v)):
            source = rotations[i][role] if rotations else None
            if source is None:  # (batch, heads, seq, head) -> (batch, seq, heads, head)
                perm: dict[str, Attr] = {"perm": [0, 2, 1, 3]}
                nodes.append(Node("Transpose", [tensor], [f"{q}/{role}_bsnh"], f"{q}/{role}_Transpose", attrs=perm))
                source = f"{q}/{role}_bsnh"
            projected = _projection(idx, source)
            if projected is not None:
                flat.append(projected)  # the projection's own (batch, seq, heads·head) output: no reshape at all
                continue
            nodes.append(Node("Reshape", [source, f"{p}/bsd"], [f"{q}/{role}_bsd"], f"{q}/{role}_Reshape"))
            flat.append(f"{q}/{role}_bsd")
        caches = [f"{p}/cos_cache", f"{p}/sin_cache"] if rotations else []
        nodes.append(
            Node(
                "GroupQueryAttention",
                [*flat, layer.past_k, layer.past_v, f"{p}/seqlens_k", f"{p}/total_seq_len", *caches],
                [layer.out, layer.present_k, layer.present_v],
                f"{q}/GroupQueryAttention",
                MS,
                attrs={
                    "num_heads": heads,
                    "kv_num_heads": kv_heads,
                    "scale": float(layer.scale),
                    "local_window_size": -1,
                    "do_rotary": 1 if rotations else 0,
                    "rotary_interleaved": 0,
                },
            )
        )
    kept = live_nodes(nodes, graph.outputs)
    _check_kv_readers(kept, graph)
    add = {} if MS in graph.opsets else {MS: 1}
    return Plan(kept, len(layers), len(graph.nodes) - len(kept), add, initializers, bool(rotations))


def _rotations(
    graph: Graph, layers: dict[int, _Layer], positions: int, wanted: bool
) -> tuple[dict[int, dict[str, str | None]], list[tuple[str, np.ndarray]]]:
    """Per layer, the (batch, seq, heads, head) tensors before rotary for q/k (and v's before its transpose),
    plus the cos/sin tables; empty where the rotary is kept as exported (not wanted, or not the pattern)."""
    if not wanted or positions <= 0:
        return {}, []
    prod = rotary_fusion.Producers(graph.nodes)
    out: dict[int, dict[str, str | None]] = {}
    tables: set[tuple[str, str]] = set()
    try:
        for i, layer in layers.items():
            rq, rk = rotary_fusion.match(prod, layer.q), rotary_fusion.match(prod, layer.k)
            tables |= {(rq.cos, rq.sin), (rk.cos, rk.sin)}
            vt = prod.of.get(layer.v)
            v_bsnh = (
                vt.inputs[0]
                if vt is not None and vt.op == "Transpose" and vt.attrs.get("perm") == [0, 2, 1, 3]
                else None
            )
            out[i] = {"q": rq.x, "k": rk.x, "v": v_bsnh}
        if len(tables) != 1:
            raise rotary_fusion.RotaryMismatch("layers read different cos/sin tensors")
        ((cos, sin),) = tables
        cos_t, sin_t = rotary_fusion.caches(prod, cos, sin, positions)
    except rotary_fusion.RotaryMismatch as exc:
        log.info("rotary kept as exported: %s", exc)
        return {}, []
    return out, [("/localmind/cos_cache", cos_t), ("/localmind/sin_cache", sin_t)]


def _check_kv_readers(nodes: list[Node], graph: Graph) -> None:
    """With a shared buffer the past/present tensors are max-length: only GroupQueryAttention may read them."""
    kv = {t for t in graph.inputs if t.startswith("past")} | {t for t in graph.outputs if t.startswith("present")}
    for node in nodes:
        if node.op != "GroupQueryAttention" and kv.intersection(node.inputs):
            raise NoMatch(f"{node.name or node.op} still reads the KV cache after the rewrite")


__all__ = ["MODEL_TYPES", "NoMatch", "Plan", "plan_rewrite"]
