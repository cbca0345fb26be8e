"""Just enough of the ONNX file format to read a graph's inputs and outputs and to set one node attribute.

Why not the ``onnx`` package: it is ~30 MB the frozen app would carry for two small jobs. An ONNX file is a
protobuf ``ModelProto``; protobuf is a flat sequence of (field number, wire type, value) records, so the
graph's inputs, outputs and nodes can be found by walking records and skipping the rest (the weights stored
inline are skipped with a seek, never read). The rewrite copies every record byte for byte except the nodes
it changes, streaming from the source file: a model with inline weights is never held in memory.

Field numbers are from onnx.proto3 (stable since ONNX 1.0).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

# ModelProto.graph; GraphProto.node/input/output; NodeProto.op_type/attribute/domain;
# AttributeProto.name/i/type; ValueInfoProto.name/type; TypeProto.tensor_type; tensor elem_type/shape; dims.
_MODEL_GRAPH = 7
_GRAPH_NODE, _GRAPH_INPUT, _GRAPH_OUTPUT = 1, 11, 12
_NODE_OP_TYPE, _NODE_ATTRIBUTE, _NODE_DOMAIN = 4, 5, 7
_ATTR_NAME, _ATTR_I, _ATTR_TYPE, _ATTR_INT = 1, 3, 20, 2
_VALUE_NAME, _VALUE_TYPE = 1, 2
_TYPE_TENSOR = 1
_TENSOR_ELEM, _TENSOR_SHAPE = 1, 2
_SHAPE_DIM = 1
_DIM_VALUE, _DIM_PARAM = 1, 2

ELEM_TYPES = {1: "float", 7: "int64", 6: "int32", 10: "float16", 16: "bfloat16", 9: "bool"}


class OnnxFormatError(ValueError):
    """The file is not a well-formed ONNX protobuf."""


@dataclass(frozen=True)
class Field:
    number: int
    wire: int
    value: int  # the varint or fixed value; for length-delimited fields, the payload's offset
    length: int  # payload length (length-delimited) else 0
    start: int  # offset of the record's first byte (its key)
    end: int  # offset just past the record


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        if pos >= len(data):
            raise OnnxFormatError("truncated varint")
        b = data[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7
        if shift > 63:
            raise OnnxFormatError("varint too long")


def _encode_varint(value: int) -> bytes:
    out = bytearray()
    while True:
        b = value & 0x7F
        value >>= 7
        if value:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _fields_in_bytes(data: bytes, start: int = 0, end: int | None = None) -> Iterator[Field]:
    pos, end = start, len(data) if end is None else end
    while pos < end:
        first = pos
        key, pos = _varint(data, pos)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = _varint(data, pos)
            yield Field(number, wire, value, 0, first, pos)
        elif wire == 2:
            length, pos = _varint(data, pos)
            if pos + length > end:
                raise OnnxFormatError("field runs past its message")
            yield Field(number, wire, pos, length, first, pos + length)
            pos += length
        elif wire in (1, 5):
            size = 8 if wire == 1 else 4
            yield Field(number, wire, int.from_bytes(data[pos : pos + size], "little"), 0, first, pos + size)
            pos += size
        else:
            raise OnnxFormatError(f"unsupported wire type {wire}")


def _fields_in_file(f: BinaryIO, start: int, end: int) -> Iterator[Field]:
    """Records of the message between ``start`` and ``end`` in ``f``; payloads are not read (seeked past)."""
    pos = start
    while pos < end:
        f.seek(pos)
        head = f.read(20)
        key, n = _varint(head, 0)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, m = _varint(head, n)
            yield Field(number, wire, value, 0, pos, pos + m)
            pos += m
        elif wire == 2:
            length, m = _varint(head, n)
            if pos + m + length > end:
                raise OnnxFormatError("field runs past its message")
            yield Field(number, wire, pos + m, length, pos, pos + m + length)
            pos += m + length
        elif wire in (1, 5):
            size = 8 if wire == 1 else 4
            yield Field(number, wire, int.from_bytes(head[n : n + size], "little"), 0, pos, pos + n + size)
            pos += n + size
        else:
            raise OnnxFormatError(f"unsupported wire type {wire}")


def _string(data: bytes, f: Field) -> str:
    return data[f.value : f.value + f.length].decode("utf-8", errors="replace")


def _graph_field(f: BinaryIO, size: int) -> Field:
    for field in _fields_in_file(f, 0, size):
        if field.number == _MODEL_GRAPH and field.wire == 2:
            return field
    raise OnnxFormatError("no graph")


@dataclass(frozen=True)
class ValueInfo:
    name: str
    elem_type: str
    shape: tuple[int | str, ...]


def _value_info(data: bytes) -> ValueInfo:
    name, elem, dims = "", "", []
    for field in _fields_in_bytes(data):
        if field.number == _VALUE_NAME and field.wire == 2:
            name = _string(data, field)
        elif field.number == _VALUE_TYPE and field.wire == 2:
            for t in _fields_in_bytes(data, field.value, field.end):
                if t.number != _TYPE_TENSOR or t.wire != 2:
                    continue
                for tensor in _fields_in_bytes(data, t.value, t.end):
                    if tensor.number == _TENSOR_ELEM and tensor.wire == 0:
                        elem = ELEM_TYPES.get(tensor.value, str(tensor.value))
                    elif tensor.number == _TENSOR_SHAPE and tensor.wire == 2:
                        for dim in _fields_in_bytes(data, tensor.value, tensor.end):
                            if dim.number != _SHAPE_DIM or dim.wire != 2:
                                continue
                            value: int | str = "?"
                            for d in _fields_in_bytes(data, dim.value, dim.end):
                                if d.number == _DIM_VALUE and d.wire == 0:
                                    value = d.value
                                elif d.number == _DIM_PARAM and d.wire == 2:
                                    value = _string(data, d)
                            dims.append(value)
    return ValueInfo(name, elem, tuple(dims))


@dataclass(frozen=True)
class GraphSummary:
    inputs: tuple[ValueInfo, ...]
    outputs: tuple[ValueInfo, ...]
    op_types: frozenset[str]
    node_count: int


def _node_op(data: bytes) -> tuple[str, str]:
    op = domain = ""
    for field in _fields_in_bytes(data):
        if field.number == _NODE_OP_TYPE and field.wire == 2:
            op = _string(data, field)
        elif field.number == _NODE_DOMAIN and field.wire == 2:
            domain = _string(data, field)
    return op, domain


def read_summary(path: Path) -> GraphSummary:
    """Inputs, outputs and node types of the graph in ``path``, reading no weights."""
    inputs: list[ValueInfo] = []
    outputs: list[ValueInfo] = []
    ops: set[str] = set()
    count = 0
    size = path.stat().st_size
    with path.open("rb") as f:
        graph = _graph_field(f, size)
        for field in _fields_in_file(f, graph.value, graph.end):
            if field.wire != 2 or field.number not in (_GRAPH_NODE, _GRAPH_INPUT, _GRAPH_OUTPUT):
                continue
            f.seek(field.value)
            payload = f.read(field.length)
            if field.number == _GRAPH_NODE:
                ops.add(_node_op(payload)[0])
                count += 1
            else:
                (inputs if field.number == _GRAPH_INPUT else outputs).append(_value_info(payload))
    return GraphSummary(tuple(inputs), tuple(outputs), frozenset(ops), count)


def _record(number: int, payload: bytes) -> bytes:
    return _encode_varint(number << 3 | 2) + _encode_varint(len(payload)) + payload


def _int_attribute(name: str, value: int) -> bytes:
    body = _record(_ATTR_NAME, name.encode("utf-8"))
    body += _encode_varint(_ATTR_I << 3) + _encode_varint(value)
    body += _encode_varint(_ATTR_TYPE << 3) + _encode_varint(_ATTR_INT)
    return _record(_NODE_ATTRIBUTE, body)


def _with_int_attribute(node: bytes, name: str, value: int) -> bytes:
    """``node`` with attribute ``name`` set to ``value`` (replaced if present, else appended)."""
    kept = bytearray()
    for field in _fields_in_bytes(node):
        if field.number == _NODE_ATTRIBUTE and field.wire == 2:
            attr = node[field.value : field.end]
            names = [_string(attr, a) for a in _fields_in_bytes(attr) if a.number == _ATTR_NAME and a.wire == 2]
            if names == [name]:
                continue
        kept += node[field.start : field.end]
    return bytes(kept) + _int_attribute(name, value)


def _int_attribute_value(node: bytes, name: str) -> int | None:
    for field in _fields_in_bytes(node):
        if field.number == _NODE_ATTRIBUTE and field.wire == 2:
            attr = node[field.value : field.end]
            parsed = list(_fields_in_bytes(attr))
            if any(a.number == _ATTR_NAME and a.wire == 2 and _string(attr, a) == name for a in parsed):
                return next((a.value for a in parsed if a.number == _ATTR_I and a.wire == 0), None)
    return None


def _range_copier(
    src: BinaryIO, out: BinaryIO, size: int, progress: Callable[[float], None] | None
) -> Callable[[int, int], None]:
    """``copy(start, end)``: bytes ``start:end`` of ``src`` to ``out`` in 4 MB pieces (weights never held whole),
    reporting how far through ``src`` it is."""

    def copy(start: int, end: int) -> None:
        src.seek(start)
        remaining = end - start
        while remaining:
            chunk = src.read(min(remaining, 1 << 22))
            if not chunk:
                raise OnnxFormatError("file ended early")
            out.write(chunk)
            remaining -= len(chunk)
            if progress is not None:
                progress(src.tell() / max(1, size))

    return copy


def set_node_attribute(
    src: Path,
    dst: Path,
    op_type: str,
    domain: str,
    name: str,
    value: int,
    progress: Callable[[float], None] | None = None,
) -> int:
    """Copy ``src`` to ``dst`` with int attribute ``name`` = ``value`` on every ``domain``/``op_type`` node.

    Returns how many nodes changed; 0 means ``dst`` was not written. Everything else is copied byte for byte,
    so external data references (relative file names) and inline weights are unchanged.
    """
    size = src.stat().st_size
    with src.open("rb") as f:
        graph = _graph_field(f, size)
        replaced: dict[int, bytes] = {}  # node record start -> new node payload
        ends: dict[int, int] = {}
        for field in _fields_in_file(f, graph.value, graph.end):
            if field.number != _GRAPH_NODE or field.wire != 2:
                continue
            f.seek(field.value)
            node = f.read(field.length)
            if _node_op(node) == (op_type, domain) and _int_attribute_value(node, name) != value:
                replaced[field.start] = _with_int_attribute(node, name, value)
                ends[field.start] = field.end
        if not replaced:
            return 0
        new_graph_len = graph.length + sum(len(_record(_GRAPH_NODE, p)) - (ends[s] - s) for s, p in replaced.items())
        dst.parent.mkdir(parents=True, exist_ok=True)
        with dst.open("wb") as out:
            copy = _range_copier(f, out, size, progress)
            copy(0, graph.start)
            out.write(_encode_varint(_MODEL_GRAPH << 3 | 2) + _encode_varint(new_graph_len))
            pos = graph.value
            for start in sorted(replaced):
                copy(pos, start)
                out.write(_record(_GRAPH_NODE, replaced[start]))
                pos = ends[start]
            copy(pos, graph.end)
            copy(graph.end, size)
    return len(replaced)


__all__ = ["GraphSummary", "OnnxFormatError", "ValueInfo", "read_summary", "set_node_attribute"]
