"""Compute the vocabulary projection for the last position only.

A decoder graph computes ``logits`` [batch, positions, vocabulary] for every position it reads, but a prompt
read only ever uses the last position's (the next token is sampled from it). On a 151,936-word vocabulary that
projection is about a quarter of each prompt token's matrix work, and its output a [positions × 151,936] float
buffer (600 MB for 1,000 positions). This rewrite puts ``Slice(hidden, -1:, axis=1)`` in front of the node that
projects onto the vocabulary, so every read returns [batch, 1, vocabulary].

onnxruntime-genai (the pinned 0.18) sizes its logits buffer from the graph's declared output shape: the logits
output is declared [batch, 1, vocabulary] too, and og then reads a multi-token prompt with a one-position
buffer (left symbolic, og hands onnxruntime a [batch, positions, vocabulary] buffer the output does not fit) — tested token for token against the original
graph in tests/unit/formats/test_last_logits.py. Everything LocalMind samples from (a reply's tokens, the
prediction type-ahead keeps) is the last position's, so nothing else changes.

The rewrite applies where ``logits`` comes from a MatMul / MatMulNBits / Gemm, possibly followed by position-wise
nodes whose other inputs are constants (a Cast, a bias Add, Gemma 2's soft cap); anything else keeps the original
graph, and the reason is logged.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from localmind.engine.formats.onnx_graph import Graph, Node
from localmind.engine.formats.onnx_proto import _encode_varint, _fields_in_bytes, _record

log = logging.getLogger(__name__)
_NODE_INPUT = 1  # NodeProto.input (onnx.proto3 field numbers)
_VALUE_TYPE, _TYPE_TENSOR, _TENSOR_SHAPE, _SHAPE_DIM, _DIM_VALUE = 2, 1, 2, 1, 1

PROJECTIONS = frozenset({"MatMul", "MatMulNBits", "Gemm"})
POSITION_WISE = frozenset({"Cast", "Add", "Sub", "Mul", "Div", "Tanh"})
_STARTS, _ENDS, _AXES = "localmind/last_position/starts", "localmind/last_position/ends", "localmind/last_position/axes"
SLICE_NAME = "localmind/last_position"


class NoMatch(Exception):
    """The graph's logits are not computed in a shape this rewrite knows: keep the original."""


@dataclass(frozen=True)
class LastLogitsPlan:
    nodes: list[Node]
    initializers: list[tuple[str, np.ndarray]]
    projection: str  # the op that projects onto the vocabulary
    outputs: dict[str, Callable[[bytes], bytes]]  # the logits output declared [batch, 1, vocabulary]


def already_last_only(graph: Graph) -> bool:
    return any(node.name == SLICE_NAME for node in graph.nodes)


def plan(graph: Graph, logits: str = "logits") -> LastLogitsPlan:
    """The node list with the last-position slice in front of the vocabulary projection, or :class:`NoMatch`."""
    if logits not in graph.outputs:
        raise NoMatch(f"the graph has no output named {logits!r}")
    if already_last_only(graph):
        raise NoMatch("the logits are already computed for the last position only")
    produced_by = {out: i for i, node in enumerate(graph.nodes) for out in node.outputs if out}
    constants = _constant_names(graph)
    name = logits
    for _ in range(16):  # a projection followed by a few position-wise nodes; never a long walk
        index = produced_by.get(name)
        if index is None:
            raise NoMatch(f"{name!r} is not computed by a node")
        node = graph.nodes[index]
        if node.op in PROJECTIONS and node.domain in ("", "com.microsoft"):
            return _with_slice(graph.nodes, index, node.op, logits)
        if node.op not in POSITION_WISE:
            raise NoMatch(f"the logits come from a {node.op} node, not from a projection onto the vocabulary")
        moving = [x for x in node.inputs if x and x not in constants]
        if len(moving) != 1:
            raise NoMatch(f"the {node.op} node before the logits mixes two computed tensors")
        name = moving[0]
    raise NoMatch("no projection onto the vocabulary within 16 nodes of the logits")


def _constant_names(graph: Graph) -> set[str]:
    """Initializers and the outputs of Constant nodes (what a position-wise node may combine the logits with)."""
    names = set(graph.initializers)
    names.update(out for node in graph.nodes if node.op == "Constant" for out in node.outputs)
    return names


def _with_slice(nodes: Sequence[Node], index: int, op: str, logits: str) -> LastLogitsPlan:
    projection = nodes[index]
    hidden = projection.inputs[0]
    last = f"{hidden}/localmind_last_position"
    slice_node = Node("Slice", [hidden, _STARTS, _ENDS, _AXES], [last], name=SLICE_NAME)
    rewired = Node(
        projection.op,
        [last, *projection.inputs[1:]],
        list(projection.outputs),
        name=projection.name,
        domain=projection.domain,
        attrs=dict(projection.attrs),
        tensor_attrs=dict(projection.tensor_attrs),
        raw=None if projection.raw is None else _with_first_input(projection.raw, last),
    )
    out = [*nodes[:index], slice_node, rewired, *nodes[index + 1 :]]
    tensors = [
        (_STARTS, np.array([-1], dtype="<i8")),
        (_ENDS, np.array([np.iinfo(np.int64).max], dtype="<i8")),
        (_AXES, np.array([1], dtype="<i8")),
    ]
    return LastLogitsPlan(out, tensors, op, {logits: declared_one_position})


def declared_one_position(value_info: bytes) -> bytes:
    """A ValueInfoProto of a [batch, positions, vocabulary] tensor, declared [batch, 1, vocabulary].

    og sizes its logits buffer from the declared shape: with the positions left symbolic it hands onnxruntime a
    [batch, positions read, vocabulary] buffer, which the last-position graph's output does not fit.
    """

    def tensor_type(data: bytes) -> bytes:
        return _edit(data, _TENSOR_SHAPE, shape)

    def shape(data: bytes) -> bytes:
        out, dim = bytearray(), 0
        for field in _fields_in_bytes(data):
            if field.number == _SHAPE_DIM and field.wire == 2:
                dim += 1
                if dim == 2:
                    out += _record(_SHAPE_DIM, _encode_varint(_DIM_VALUE << 3) + _encode_varint(1))
                    continue
            out += data[field.start : field.end]
        if dim != 3:
            raise NoMatch(f"the logits are declared with {dim} dimensions, not 3")
        return bytes(out)

    return _edit(value_info, _VALUE_TYPE, lambda t: _edit(t, _TYPE_TENSOR, tensor_type))


def _edit(data: bytes, number: int, change: Callable[[bytes], bytes]) -> bytes:
    """``data`` (a message) with the payload of its field ``number`` replaced by ``change(payload)``."""
    out, found = bytearray(), False
    for field in _fields_in_bytes(data):
        if field.number == number and field.wire == 2 and not found:
            out += _record(number, change(data[field.value : field.end]))
            found = True
        else:
            out += data[field.start : field.end]
    if not found:
        raise NoMatch(f"the logits output has no declared type (field {number})")
    return bytes(out)


def _with_first_input(node: bytes, name: str) -> bytes:
    """``node``'s encoding with its first input renamed (every other record byte for byte, in order)."""
    out = bytearray()
    first = True
    for field in _fields_in_bytes(node):
        if first and field.number == _NODE_INPUT and field.wire == 2:
            out += _record(_NODE_INPUT, name.encode("utf-8"))
            first = False
            continue
        out += node[field.start : field.end]
    return bytes(out)


__all__ = ["LastLogitsPlan", "NoMatch", "already_last_only", "plan"]
