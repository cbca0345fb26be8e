"""Hypothesis strategies for the JSON Schema that /openapi.json uses (the subset ``server/fields.py`` writes).

hypothesis-jsonschema, the usual tool, no longer works with current Hypothesis releases; the server's schemas use few
keywords, and a keyword this module does not know fails the test rather than being skipped (so a body generated
here is valid by the description — the test checks that too, with ``jsonschema``)."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

_IGNORED = {"description", "title", "default", "examples"}
_KNOWN = _IGNORED | {
    "type",
    "enum",
    "const",
    "anyOf",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "minItems",
    "maxItems",
    "minLength",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "minProperties",
    "maxProperties",
}

_scalars = st.none() | st.booleans() | st.integers(-(10**6), 10**6) | st.floats(allow_nan=False, allow_infinity=False)
_json = st.recursive(
    _scalars | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=6,
)


def from_schema(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    unknown = set(schema) - _KNOWN
    if unknown:
        raise ValueError(f"schema keywords this generator does not know: {sorted(unknown)}")
    if "const" in schema:
        return st.just(schema["const"])
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    if "anyOf" in schema:
        return st.one_of([from_schema(s) for s in schema["anyOf"]])
    kind = schema.get("type")
    if isinstance(kind, list):
        return st.one_of([from_schema({**schema, "type": k}) for k in kind])
    if kind is None:
        return _json
    return _BY_TYPE[kind](schema)


def _number(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    low, high = schema.get("minimum"), schema.get("maximum")
    above = schema.get("exclusiveMinimum")
    return st.floats(
        min_value=above if above is not None else low,
        max_value=high,
        exclude_min=above is not None,
        allow_nan=False,
        allow_infinity=False,
    )


def _integer(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    return st.integers(min_value=schema.get("minimum"), max_value=schema.get("maximum"))


def _string(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    return st.text(min_size=schema.get("minLength", 0), max_size=40)


def _array(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    items = from_schema(schema["items"]) if "items" in schema else _json
    return st.lists(items, min_size=schema.get("minItems", 0), max_size=min(schema.get("maxItems", 4), 4))


def _object(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    properties: dict[str, Any] = schema.get("properties", {})
    required = set(schema.get("required", []))
    if not properties:
        if schema.get("additionalProperties", True) is False:
            return st.just({})
        top = schema.get("maxProperties", 3)
        return st.dictionaries(st.text(max_size=6), _json, min_size=schema.get("minProperties", 0), max_size=top)

    @st.composite
    def build(draw: st.DrawFn) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name, sub in properties.items():
            if name in required or draw(st.booleans()):
                out[name] = draw(from_schema(sub))
        return out

    return build()


_BY_TYPE = {
    "null": lambda _s: st.none(),
    "boolean": lambda _s: st.booleans(),
    "integer": _integer,
    "number": _number,
    "string": _string,
    "array": _array,
    "object": _object,
}
