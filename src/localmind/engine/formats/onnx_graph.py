"""Node-level editing of an ONNX graph without the ``onnx`` package: read the nodes, write a new node list.

Builds on onnx_proto's record walker. Only the graph's nodes are held in memory (small: weights live in
initializers, which are copied byte for byte from the source file, streaming, never parsed). New nodes are
encoded here; the model gains an opset import for a domain it did not use yet (com.microsoft).
``value_info`` records (optional shape hints) are dropped: after a rewrite they may name tensors that are gone.

Field numbers are from onnx.proto3.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

import numpy as np

from localmind.engine.formats.onnx_proto import (
    _MODEL_GRAPH,
    Field,
    OnnxFormatError,
    _encode_varint,
    _fields_in_bytes,
    _fields_in_file,
    _graph_field,
    _range_copier,
    _record,
    _string,
)

_MODEL_OPSET = 8
_OPSET_DOMAIN, _OPSET_VERSION = 1, 2
_GRAPH_NODE, _GRAPH_INITIALIZER, _GRAPH_OUTPUT, _GRAPH_VALUE_INFO = 1, 5, 12, 13
_NODE_INPUT, _NODE_OUTPUT, _NODE_NAME, _NODE_OP, _NODE_ATTR, _NODE_DOMAIN = 1, 2, 3, 4, 5, 7
_A_NAME, _A_F, _A_I, _A_S, _A_T, _A_FLOATS, _A_INTS, _A_TYPE = 1, 2, 3, 4, 5, 7, 8, 20
_T_DIMS, _T_TYPE, _T_FLOATS, _T_INT64S, _T_NAME, _T_RAW, _T_DOUBLES, _T_EXTERNAL = 1, 2, 4, 7, 8, 9, 10, 13
FLOAT, INT, STRING, TENSOR, FLOATS, INTS = 1, 2, 3, 4, 6, 7
Attr = int | float | str | list[int]


@dataclass
class Node:
    op: str
    inputs: list[str]
    outputs: list[str]
    name: str = ""
    domain: str = ""
    attrs: dict[str, Attr] = field(default_factory=dict)  # ints, floats, strings, int lists: enough for matching
    tensor_attrs: dict[str, tuple[int, list[float]]] = field(default_factory=dict)  # name -> (elem type, values)
    raw: bytes | None = None  # the original encoding (re-emitted unchanged); None for new nodes

    def encode(self) -> bytes:
        if self.raw is not None:
            return self.raw
        body = b"".join(_record(_NODE_INPUT, s.encode()) for s in self.inputs)
        body += b"".join(_record(_NODE_OUTPUT, s.encode()) for s in self.outputs)
        body += _record(_NODE_NAME, self.name.encode()) + _record(_NODE_OP, self.op.encode())
        body += b"".join(_record(_NODE_ATTR, _encode_attr(k, v)) for k, v in self.attrs.items())
        if self.domain:
            body += _record(_NODE_DOMAIN, self.domain.encode())
        return body


def _encode_attr(name: str, value: Attr) -> bytes:
    out = _record(_A_NAME, name.encode())
    if isinstance(value, int):  # bool too
        out += _encode_varint(_A_I << 3) + _encode_varint(value & (2**64 - 1)) + _key_int(_A_TYPE, INT)
    elif isinstance(value, float):
        out += _encode_varint(_A_F << 3 | 5) + struct.pack("<f", value) + _key_int(_A_TYPE, FLOAT)
    elif isinstance(value, str):
        out += _record(_A_S, value.encode()) + _key_int(_A_TYPE, STRING)
    else:
        packed = b"".join(_encode_varint(v & (2**64 - 1)) for v in value)
        out += _record(_A_INTS, packed) + _key_int(_A_TYPE, INTS)
    return out


def _key_int(number: int, value: int) -> bytes:
    return _encode_varint(number << 3) + _encode_varint(value)


def _signed(value: int) -> int:
    return value - 2**64 if value >= 2**63 else value


def _varints(data: bytes, f: Field) -> list[int]:
    """A repeated int field's values (packed or not) from one record."""
    if f.wire == 0:
        return [_signed(f.value)]
    out, pos = [], f.value
    from localmind.engine.formats.onnx_proto import _varint

    while pos < f.end:
        v, pos = _varint(data, pos)
        out.append(_signed(v))
    return out


def _tensor_values(data: bytes) -> tuple[int, list[float]]:
    """(elem type, values) of a small TensorProto: float, double and int64 data (raw or typed)."""
    elem, values, raw = 0, [], b""
    for f in _fields_in_bytes(data):
        if f.number == _T_TYPE and f.wire == 0:
            elem = f.value
        elif f.number == _T_RAW and f.wire == 2:
            raw = data[f.value : f.end]
        elif f.number == _T_FLOATS:
            values += (
                list(struct.unpack(f"<{f.length // 4}f", data[f.value : f.end]))
                if f.wire == 2
                else [struct.unpack("<f", f.value.to_bytes(4, "little"))[0]]
            )
        elif f.number == _T_INT64S:
            values += [float(v) for v in _varints(data, f)]
        elif f.number == _T_DOUBLES and f.wire == 2:
            values += list(struct.unpack(f"<{f.length // 8}d", data[f.value : f.end]))
    if raw:
        fmt = {1: "f", 7: "q", 11: "d", 6: "i"}.get(elem)
        if fmt is not None:
            size = struct.calcsize(fmt)
            values = [float(v) for v in struct.unpack(f"<{len(raw) // size}{fmt}", raw)]
    return elem, values


def _parse_node(data: bytes) -> Node:
    node = Node("", [], [], raw=data)
    for f in _fields_in_bytes(data):
        if f.wire != 2:
            continue
        if f.number == _NODE_INPUT:
            node.inputs.append(_string(data, f))
        elif f.number == _NODE_OUTPUT:
            node.outputs.append(_string(data, f))
        elif f.number == _NODE_NAME:
            node.name = _string(data, f)
        elif f.number == _NODE_OP:
            node.op = _string(data, f)
        elif f.number == _NODE_DOMAIN:
            node.domain = _string(data, f)
        elif f.number == _NODE_ATTR:
            _parse_attr(data[f.value : f.end], node)
    return node


def _parse_attr(data: bytes, node: Node) -> None:
    name, kind = "", 0
    ints: list[int] = []
    value: Attr | None = None
    tensor: tuple[int, list[float]] | None = None
    for f in _fields_in_bytes(data):
        if f.number == _A_NAME and f.wire == 2:
            name = _string(data, f)
        elif f.number == _A_TYPE and f.wire == 0:
            kind = f.value
        elif f.number == _A_I and f.wire == 0:
            value = _signed(f.value)
        elif f.number == _A_F and f.wire == 5:
            value = struct.unpack("<f", f.value.to_bytes(4, "little"))[0]
        elif f.number == _A_S and f.wire == 2:
            value = _string(data, f)
        elif f.number == _A_INTS:
            ints += _varints(data, f)
        elif f.number == _A_T and f.wire == 2:
            tensor = _tensor_values(data[f.value : f.end])
    if kind == INTS:
        node.attrs[name] = ints
    elif kind == TENSOR and tensor is not None:
        node.tensor_attrs[name] = tensor
    elif value is not None:
        node.attrs[name] = value


@dataclass(frozen=True)
class Graph:
    nodes: list[Node]
    inputs: list[str]
    outputs: list[str]
    initializers: frozenset[str]
    opsets: dict[str, int]
    initializer_at: dict[str, tuple[int, int]] = field(default_factory=dict)  # name -> TensorProto byte range


def _names(f: BinaryIO, field: Field) -> str:
    f.seek(field.value)
    data = f.read(field.length)
    return next((_string(data, x) for x in _fields_in_bytes(data) if x.number == 1 and x.wire == 2), "")


def read_graph(path: Path) -> Graph:
    """The nodes (parsed), IO names, initializer names and opsets of ``path``; weights are not read."""
    nodes: list[Node] = []
    inputs: list[str] = []
    outputs: list[str] = []
    inits: dict[str, tuple[int, int]] = {}
    opsets: dict[str, int] = {}
    size = path.stat().st_size
    with path.open("rb") as f:
        for top in _fields_in_file(f, 0, size):
            if top.number == _MODEL_OPSET and top.wire == 2:
                f.seek(top.value)
                data = f.read(top.length)
                domain, version = "", 0
                for x in _fields_in_bytes(data):
                    if x.number == _OPSET_DOMAIN and x.wire == 2:
                        domain = _string(data, x)
                    elif x.number == _OPSET_VERSION and x.wire == 0:
                        version = x.value
                opsets[domain] = version
        graph = _graph_field(f, size)
        for fld in _fields_in_file(f, graph.value, graph.end):
            if fld.wire != 2:
                continue
            if fld.number == _GRAPH_NODE:
                f.seek(fld.value)
                nodes.append(_parse_node(f.read(fld.length)))
            elif fld.number == 11:
                inputs.append(_names(f, fld))
            elif fld.number == 12:
                outputs.append(_names(f, fld))
            elif fld.number == _GRAPH_INITIALIZER:
                inits[_tensor_name(f, fld)] = (fld.value, fld.end)
    return Graph(nodes, inputs, outputs, frozenset(inits), opsets, inits)


_NUMPY = {1: "<f4", 2: "u1", 3: "i1", 10: "<f2", 7: "<i8", 6: "<i4"}
_ONNX = {np.dtype(v).str: k for k, v in _NUMPY.items()}


def read_tensor(path: Path, graph: Graph, name: str) -> np.ndarray:
    """One initializer's values: stored in the graph file (raw data) or in its external data file."""
    start, end = graph.initializer_at[name]
    dims: list[int] = []
    elem, raw, location, offset, length = 0, b"", "", 0, -1
    with path.open("rb") as f:
        for x in _fields_in_file(f, start, end):
            if x.number == _T_DIMS:
                if x.wire == 0:
                    dims.append(x.value)
                else:
                    f.seek(x.value)
                    dims += _varints(f.read(x.length), Field(x.number, 2, 0, x.length, 0, x.length))
            elif x.number == _T_TYPE and x.wire == 0:
                elem = x.value
            elif x.number == _T_RAW and x.wire == 2:
                f.seek(x.value)
                raw = f.read(x.length)
            elif x.number == _T_EXTERNAL and x.wire == 2:
                f.seek(x.value)
                entry = f.read(x.length)
                kv = {k.number: _string(entry, k) for k in _fields_in_bytes(entry) if k.wire == 2}
                key, value = kv.get(1, ""), kv.get(2, "")
                if key == "location":
                    location = value
                elif key == "offset":
                    offset = int(value)
                elif key == "length":
                    length = int(value)
    if elem not in _NUMPY:
        raise OnnxFormatError(f"initializer {name}: element type {elem} not supported here")
    if location:
        data_path = (path.parent / location).resolve()
        if path.parent.resolve() not in data_path.parents:
            raise OnnxFormatError(f"initializer {name}: external data outside the model's folder")
        with data_path.open("rb") as d:
            d.seek(offset)
            raw = d.read(length if length >= 0 else -1)
    array = np.frombuffer(raw, dtype=_NUMPY[elem])
    return array.reshape(dims) if dims else array


def _tensor_name(f: BinaryIO, fld: Field) -> str:
    """An initializer's name (TensorProto field 8) without reading its data: walk its records by seeking."""
    for x in _fields_in_file(f, fld.value, fld.end):
        if x.number == 8 and x.wire == 2:
            f.seek(x.value)
            return f.read(x.length).decode("utf-8", errors="replace")
    return ""


def write_graph(
    src: Path,
    dst: Path,
    nodes: Sequence[Node],
    *,
    add_opsets: dict[str, int] | None = None,
    initializers: Sequence[tuple[str, np.ndarray]] = (),
    drop: frozenset[int] = frozenset(),
    outputs: Mapping[str, Callable[[bytes], bytes]] | None = None,
    progress: Callable[[float], None] | None = None,
) -> None:
    """Copy ``src`` to ``dst`` with its node list replaced by ``nodes`` (everything else byte for byte),
    plus ``initializers`` (arrays, stored inline in the graph file), less the initializers whose records start
    at the offsets in ``drop`` (see ``Graph.initializer_at``; their external data, if any, stays unread).
    ``outputs`` maps a graph output's name to an edit of its ValueInfoProto (its declared type and shape)."""
    size = src.stat().st_size
    node_bytes = b"".join(_record(_GRAPH_NODE, n.encode()) for n in nodes)
    node_bytes += b"".join(_record(_GRAPH_INITIALIZER, _float_tensor(name, a)) for name, a in initializers)
    with src.open("rb") as f:
        graph = _graph_field(f, size)
        kept: list[Field] = []
        edited: dict[int, bytes] = {}  # a kept field's start -> its new record
        first_node = -1
        for fld in _fields_in_file(f, graph.value, graph.end):
            if fld.number == _GRAPH_NODE:
                if first_node < 0:
                    first_node = len(kept)
                continue
            if fld.number == _GRAPH_VALUE_INFO or (fld.number == _GRAPH_INITIALIZER and fld.value in drop):
                continue
            if fld.number == _GRAPH_OUTPUT and outputs and fld.wire == 2 and (edit := outputs.get(_names(f, fld))):
                f.seek(fld.value)
                edited[fld.start] = _record(_GRAPH_OUTPUT, edit(f.read(fld.length)))
            kept.append(fld)
        if first_node < 0:
            raise OnnxFormatError("the graph has no nodes")
        graph_len = len(node_bytes) + sum(len(edited[x.start]) if x.start in edited else x.end - x.start for x in kept)
        extra = b"".join(
            _record(_MODEL_OPSET, _record(_OPSET_DOMAIN, d.encode()) + _key_int(_OPSET_VERSION, v))
            for d, v in (add_opsets or {}).items()
        )
        dst.parent.mkdir(parents=True, exist_ok=True)
        with dst.open("wb") as out:
            copy = _range_copier(f, out, size, progress)
            copy(0, graph.start)
            out.write(_encode_varint(_MODEL_GRAPH << 3 | 2) + _encode_varint(graph_len))
            for i, fld in enumerate(kept):
                if i == first_node:
                    out.write(node_bytes)
                if fld.start in edited:
                    out.write(edited[fld.start])
                else:
                    copy(fld.start, fld.end)
            if first_node == len(kept):
                out.write(node_bytes)
            copy(graph.end, size)
            out.write(extra)


def _float_tensor(name: str, array: np.ndarray) -> bytes:
    data = np.ascontiguousarray(array)
    if data.dtype.str not in _ONNX:
        data = data.astype("<f4")
    body = b"".join(_key_int(_T_DIMS, d) for d in data.shape) + _key_int(_T_TYPE, _ONNX[data.dtype.str])
    return body + _record(_T_NAME, name.encode()) + _record(_T_RAW, data.tobytes())


def live_nodes(nodes: Sequence[Node], outputs: Sequence[str]) -> list[Node]:
    """``nodes`` less those whose outputs nothing needed reads (dead-node elimination), order kept."""
    needed = set(outputs)
    keep = [False] * len(nodes)
    for i in range(len(nodes) - 1, -1, -1):
        if any(o in needed for o in nodes[i].outputs):
            keep[i] = True
            needed.update(x for x in nodes[i].inputs if x)
    return [n for n, k in zip(nodes, keep, strict=True) if k]


__all__ = ["FLOAT", "INT", "INTS", "Attr", "Graph", "Node", "live_nodes", "read_graph", "read_tensor", "write_graph"]
