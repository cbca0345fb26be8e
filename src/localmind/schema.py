"""LocalMind's one validator for JSON it did not write: the API server's request bodies, the settings file and the
conversation import format. Shapes are declared once as dataclasses whose fields carry a ``spec(...)`` (default,
bounds, minimum length, pattern, description). ``parse`` checks a decoded JSON value against such a class and builds
it; ``parse_each`` checks field by field and keeps going (the settings file's lenient reading); ``json_schema``
describes the classes for /openapi.json from the same declarations, so the check and the description cannot drift.
An ``Invalid`` says where (``loc``), what kind of problem, the value found and the type expected, so each user words
it for its audience (the API in OpenAI's/pydantic's English, an import in the user's language, settings in the log).
No Qt, no third-party imports: ``localmind serve``'s cold start imports this (docs/architecture.md, "Validation").

(pydantic did both before; its import and the model machinery its first class builds cost ~0.13 s of
``localmind serve``'s cold start, for a few flat bodies; msgspec was measured too: bench/validation.py.) By default a
field a class does not declare is refused, naming it (the API answers 400, as OpenAI's own API does): nothing a client
sends is silently ignored; ``parse(..., extra="ignore")`` skips them instead (an export from a newer LocalMind).
The messages keep the wording the API answered with under pydantic where the tests pin it. Unlike pydantic's lax mode, a number is a JSON number (not a boolean or a string) and a boolean is true or false: these bodies come
from JSON, where a client that sends ``"temperature": "0.7"`` or ``"stream": 1`` has a bug worth hearing about.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import re
import types
import typing
from collections.abc import Mapping
from typing import Any, Literal, TypeVar, Union

T = TypeVar("T")
Extra = Literal["forbid", "ignore"]
_SPEC = "localmind.spec"
_REQUIRED: Any = dataclasses.MISSING


class _Absent:
    def __repr__(self) -> str:
        return "ABSENT"


# The default of a field whose value, when left out, depends on other fields (the caller fills it in after parse).
ABSENT: Any = _Absent()


@dataclasses.dataclass(frozen=True)
class Spec:
    """What a field accepts beyond its type, and what /docs says about it."""

    ge: float | None = None
    gt: float | None = None
    le: float | None = None
    min_length: int | None = None
    description: str | None = None
    max_length: int | None = None  # items of a list, keys of an object
    only: tuple[Any, ...] | None = None  # the values accepted (besides null, where the type allows it)
    # A field LocalMind knows but cannot honour (beyond the values it accepts): any value that does not fit gets a
    # 400 with this message, naming the field (code "unsupported_parameter").
    refusal: str | None = None
    pattern: str | None = None  # a string must match this regular expression (from its start)


def spec(
    default: Any = _REQUIRED,
    *,
    ge: float | None = None,
    gt: float | None = None,
    le: float | None = None,
    min_length: int | None = None,
    description: str | None = None,
    max_length: int | None = None,
    only: tuple[Any, ...] | None = None,
    refusal: str | None = None,
    pattern: str | None = None,
) -> Any:
    """A dataclass field (required when no default is given) with its limits and description."""
    meta = {_SPEC: Spec(ge, gt, le, min_length, description, max_length, only, refusal, pattern)}
    if default is _REQUIRED:
        return dataclasses.field(metadata=meta)
    return dataclasses.field(default=default, metadata=meta)


class Invalid(Exception):
    """A value that does not fit: where (``loc``), what kind of problem (``kind``: "missing" is told apart) and why;
    ``value`` is what was found there and ``expected`` the type declared there (the whole union, for ``X | None``)."""

    def __init__(self, loc: tuple[str | int, ...], kind: str, msg: str) -> None:
        super().__init__(msg)
        self.loc, self.kind, self.msg = loc, kind, msg
        self.value: Any = None
        self.expected: Any = None


@dataclasses.dataclass(frozen=True)
class _Field:
    name: str
    type: Any
    spec: Spec
    default: Any  # _REQUIRED for a required field


_compiled: dict[type, tuple[_Field, ...]] = {}
_NO_LIMITS = Spec()


def _fields(cls: type) -> tuple[_Field, ...]:
    found = _compiled.get(cls)
    if found is None:
        hints = typing.get_type_hints(cls)
        found = tuple(
            _Field(f.name, hints[f.name], f.metadata.get(_SPEC, Spec()), _default(f)) for f in dataclasses.fields(cls)
        )
        _compiled[cls] = found
    return found


def _default(f: dataclasses.Field[Any]) -> Any:
    if f.default_factory is not dataclasses.MISSING:
        return f.default_factory()  # for the schema's "default"; parse leaves it to the class
    return f.default


# Declared types are few and hashable: what typing says of each is looked up once, not once per value checked.
_origin: typing.Callable[[Any], Any] = functools.cache(typing.get_origin)
_args: typing.Callable[[Any], tuple[Any, ...]] = functools.cache(typing.get_args)


@functools.cache
def _members(tp: Any) -> tuple[Any, ...] | None:
    """The members of a union type (``X | Y`` or ``Union[X, Y]``), else None."""
    if _origin(tp) in (Union, types.UnionType):
        return _args(tp)
    return None


def _number(x: float) -> str:
    return str(int(x)) if isinstance(x, float) and x.is_integer() else str(x)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


# Which JSON value a union member takes, to pick the member to check a value against and to name it in messages.
def _kind(tp: Any) -> tuple[type | tuple[type, ...], str]:
    origin = typing.get_origin(tp)
    if tp is str or origin is Literal:
        return str, "a string"
    if tp is bool:
        return bool, "a boolean"
    if tp is int:
        return int, "an integer"
    if tp is float:
        return (int, float), "a number"
    if origin is list or tp is list:
        args = typing.get_args(tp)
        what = _kind(args[0])[1].split(" ", 1)[1] + "s" if args else "value"
        return list, f"a list of {what}"
    if tp is type(None):
        return type(None), "null"
    return dict, "an object"  # a dataclass or dict[str, Any]


def _check(tp: Any, value: Any, loc: tuple[str | int, ...], limits: Spec, extra: Extra = "forbid") -> Any:
    try:
        entry = _plans.get(id(tp))
        tag, data = entry[1] if entry is not None and entry[0] is tp else _plan(tp)
        if tag == "scalar":  # the most common case, first
            return _check_scalar(tp, value, loc, limits)
        return _check_type(tp, tag, data, value, loc, limits, extra)
    except Invalid as exc:
        if exc.loc == loc:  # about this value (not one inside it): the outermost declaration names what was expected
            exc.value, exc.expected = value, tp
        raise


def _plan(tp: Any) -> tuple[str, Any]:
    """What checking a value against ``tp`` takes, worked out once per declared type (typing's own lookups, and
    hashing a ``Literal``, cost more than the check itself). Keyed by identity; the entry keeps ``tp`` alive."""
    entry = _plans.get(id(tp))
    if entry is None or entry[0] is not tp:
        entry = (tp, _make_plan(tp))
        _plans[id(tp)] = entry
    return entry[1]


_plans: dict[int, tuple[Any, tuple[str, Any]]] = {}


def _make_plan(tp: Any) -> tuple[str, Any]:
    if tp is Any:
        return "any", None
    if tp is type(None):
        return "none", None
    members = _members(tp)
    if members is not None:
        choices = tuple(m for m in members if m is not type(None))
        kinds = tuple((m, _kind(m)[0], m is bool) for m in choices)
        names = " or ".join(_kind(m)[1] for m in choices)
        return "union", (type(None) in members, choices, kinds, names)
    origin = _origin(tp)
    if origin is Literal:
        allowed = _args(tp)
        quoted = [repr(a) for a in allowed]
        names = quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " or " + quoted[-1]
        return "literal", (allowed, f"Input should be {names}")
    if origin is list:
        return "list", _args(tp)[0]
    if origin is dict:
        return "dict", None
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return "class", None
    return "scalar", None


def _check_type(
    tp: Any, tag: str, data: Any, value: Any, loc: tuple[str | int, ...], limits: Spec, extra: Extra
) -> Any:
    if tag == "any":
        return value
    if tag == "none":
        if value is not None:
            raise Invalid(loc, "none_required", "Input should be null")
        return None
    if tag == "union":
        none_ok, choices, kinds, names = data
        if value is None and none_ok:
            return None
        if len(choices) == 1:
            return _check(choices[0], value, loc, limits, extra)
        for member, kind, is_bool in kinds:
            if isinstance(value, kind) and (is_bool or not isinstance(value, bool)):
                return _check(member, value, loc, limits, extra)
        raise Invalid(loc, "union_type", f"Input should be {names}")
    if tag == "literal":
        allowed, message = data
        if not isinstance(value, str) or value not in allowed:
            raise Invalid(loc, "literal_error", message)
        return value
    if tag == "list":
        if not isinstance(value, list):
            raise Invalid(loc, "list_type", "Input should be a valid list")
        items = [_check(data, v, (*loc, i), _NO_LIMITS, extra) for i, v in enumerate(value)]
        if limits.min_length is not None and len(items) < limits.min_length:
            raise Invalid(
                loc,
                "too_short",
                f"List should have at least {_plural(limits.min_length, 'item')} after validation, not {len(items)}",
            )
        return items
    if tag == "dict":
        if not isinstance(value, dict):
            raise Invalid(loc, "dict_type", "Input should be a valid dictionary")
        return value
    return _build(tp, value, loc, extra)  # "class"


def _check_scalar(tp: Any, value: Any, loc: tuple[str | int, ...], limits: Spec) -> Any:
    if tp is str:
        if not isinstance(value, str):
            raise Invalid(loc, "string_type", "Input should be a valid string")
        if limits.min_length is not None and len(value) < limits.min_length:
            raise Invalid(
                loc, "string_too_short", f"String should have at least {_plural(limits.min_length, 'character')}"
            )
        if limits.pattern is not None and not re.match(limits.pattern, value):
            raise Invalid(loc, "string_pattern_mismatch", f"String should match pattern '{limits.pattern}'")
        return value
    if tp is bool:
        if not isinstance(value, bool):
            raise Invalid(loc, "bool_type", "Input should be a valid boolean")
        return value
    if tp is int:
        if isinstance(value, float) and not isinstance(value, bool) and value.is_integer():
            value = int(value)  # 1.0 is 1 (as pydantic had it)
        elif isinstance(value, float) and math.isfinite(value):
            raise Invalid(loc, "int_from_float", "Input should be a valid integer, got a number with a fractional part")
        if not isinstance(value, int) or isinstance(value, bool):
            raise Invalid(loc, "int_type", "Input should be a valid integer")
        return _bounded(value, loc, limits)
    if tp is float:
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            raise Invalid(loc, "float_type", "Input should be a valid number")
        try:
            number = float(value)
        except OverflowError:  # an integer with hundreds of digits
            number = math.inf
        if not math.isfinite(number):
            raise Invalid(loc, "finite_number", "Input should be a finite number")
        return _bounded(number, loc, limits)
    raise TypeError(f"fields: no check for {tp!r}")  # a declaration this module does not know: a bug, not the client's


def _limited(value: Any, loc: tuple[str | int, ...], limits: Spec) -> Any:
    """The limits that apply to any type: how long, and which values."""
    if limits.max_length is not None and isinstance(value, (list, dict)) and len(value) > limits.max_length:
        unit = "key" if isinstance(value, dict) else "item"
        raise Invalid(loc, "too_long", f"Input should have at most {_plural(limits.max_length, unit)}")
    if limits.only is not None and value is not None and value not in limits.only:
        names = " or ".join(json.dumps(v) for v in limits.only)
        raise Invalid(loc, "only", f"Input should be {names}")
    return value


def _bounded(value: float, loc: tuple[str | int, ...], limits: Spec) -> Any:
    if limits.ge is not None and not value >= limits.ge:
        raise Invalid(loc, "greater_than_equal", f"Input should be greater than or equal to {_number(limits.ge)}")
    if limits.gt is not None and not value > limits.gt:
        raise Invalid(loc, "greater_than", f"Input should be greater than {_number(limits.gt)}")
    if limits.le is not None and not value <= limits.le:
        raise Invalid(loc, "less_than_equal", f"Input should be less than or equal to {_number(limits.le)}")
    return value


def _build(cls: type[T], data: Any, loc: tuple[str | int, ...], extra: Extra = "forbid") -> T:
    if not isinstance(data, Mapping):
        raise Invalid(loc, "model_type", f"Input should be a valid dictionary or instance of {cls.__name__}")
    values: dict[str, Any] = {}
    fields = _fields(cls)
    for field in fields:
        if field.name in data:
            values[field.name] = _field_value(field, data[field.name], (*loc, field.name), extra)
        elif field.default is _REQUIRED:
            raise Invalid((*loc, field.name), "missing", "Field required")
    if extra == "forbid" and len(values) < len(data):  # a field this class does not know: refused, never ignored
        known = {f.name for f in fields}
        unknown = next(str(k) for k in data if k not in known)
        raise Invalid((*loc, unknown), "unknown", f"Unrecognized request argument supplied: {unknown}")
    return cls(**values)


def _field_value(field: _Field, value: Any, loc: tuple[str | int, ...], extra: Extra = "forbid") -> Any:
    try:
        return _limited(_check(field.type, value, loc, field.spec, extra), loc, field.spec)
    except Invalid as exc:
        if exc.loc == loc and exc.expected is None:  # a limit (_limited) rather than the type
            exc.value, exc.expected = value, field.type
        if field.spec.refusal is None:
            raise
        refused = Invalid(loc, "unsupported", field.spec.refusal)
        refused.value, refused.expected = value, field.type
        raise refused from exc


def parse(cls: type[T], data: Any, *, extra: Extra = "forbid") -> T:
    """``data`` (decoded JSON) as a ``cls``; ``Invalid`` for the first field that does not fit, in field order.

    ``extra``: "forbid" refuses a key no class declares (naming it), "ignore" skips it, here and in nested classes.
    """
    return _build(cls, data, (), extra)


def parse_each(cls: type[T], data: Mapping[str, Any]) -> tuple[dict[str, Any], list[Invalid]]:
    """Each declared field of ``data`` checked on its own: the values that fit, and a problem for each one that does
    not (keys no field declares are left out of both). For a file where one bad value must not cost the others."""
    values: dict[str, Any] = {}
    problems: list[Invalid] = []
    for field in _fields(cls):
        if field.name in data:
            try:
                values[field.name] = _field_value(field, data[field.name], (field.name,), "ignore")
            except Invalid as exc:
                problems.append(exc)
    return values, problems


# --- JSON Schema (2020-12, as OpenAPI 3.1 uses) of the same declarations ---


def _schema(tp: Any, refs: dict[type, str], ref_template: str) -> dict[str, Any]:
    if tp is Any:
        return {}
    members = _members(tp)
    if members is not None:
        return {"anyOf": [_schema(m, refs, ref_template) for m in members]}
    if tp is type(None):
        return {"type": "null"}
    origin = typing.get_origin(tp)
    if origin is Literal:
        return {"type": "string", "enum": list(typing.get_args(tp))}
    if origin is list:
        return {"type": "array", "items": _schema(typing.get_args(tp)[0], refs, ref_template)}
    if origin is dict:
        return {"type": "object", "additionalProperties": True}
    if dataclasses.is_dataclass(tp):
        assert isinstance(tp, type)
        refs.setdefault(tp, tp.__name__)
        return {"$ref": ref_template.format(model=tp.__name__)}
    return {"type": {str: "string", bool: "boolean", int: "integer", float: "number"}[tp]}


def _with_limits(schema: dict[str, Any], limits: Spec) -> dict[str, Any]:
    """The limits go on the member they are about (``anyOf: [{number, maximum}, {null}]``), as pydantic wrote them."""
    if "anyOf" in schema:
        return {"anyOf": [s if s.get("type") == "null" else _with_limits(s, limits) for s in schema["anyOf"]]}
    out = dict(schema)
    for key, value in (("minimum", limits.ge), ("exclusiveMinimum", limits.gt), ("maximum", limits.le)):
        if value is not None:
            out[key] = value
    kind = {"array": "Items", "object": "Properties"}.get(out.get("type", ""), "Length")
    if limits.min_length is not None:
        out["min" + kind] = limits.min_length
    if limits.max_length is not None and kind != "Length":
        out["max" + kind] = limits.max_length
    if limits.pattern is not None:
        out["pattern"] = limits.pattern
    if limits.only is not None:
        out["enum"] = [v for v in limits.only if v is not None]
    return out


def _object_schema(cls: type, refs: dict[type, str], ref_template: str) -> dict[str, Any]:
    properties: dict[str, Any] = {}
    required: list[str] = []
    for field in _fields(cls):
        prop = _with_limits(_schema(field.type, refs, ref_template), field.spec)
        if field.default is _REQUIRED:
            required.append(field.name)
        elif field.default is not ABSENT:
            prop["default"] = field.default
        words = [w for w in (field.spec.description, field.spec.refusal) if w]
        if words:
            prop["description"] = " ".join(words)
        properties[field.name] = prop
    out: dict[str, Any] = {
        "type": "object",
        "title": cls.__name__,
        "properties": properties,
        "required": required,
        "additionalProperties": False,  # any other field gets a 400 naming it
    }
    doc = cls.__doc__ or ""
    if doc and not doc.startswith(cls.__name__ + "("):  # dataclasses make up a docstring from the signature
        out["description"] = doc.strip()
    return out


def json_schema(classes: list[type], ref_template: str) -> tuple[dict[type, dict[str, Any]], dict[str, Any]]:
    """For each class its ``{"$ref": ...}``, and the definitions of it and every class it uses, by class name."""
    refs: dict[type, str] = {}
    top = {cls: _schema(cls, refs, ref_template) for cls in classes}
    defs: dict[str, Any] = {}
    done: set[type] = set()
    while len(done) < len(refs):
        for cls in list(refs):
            if cls not in done:
                done.add(cls)
                defs[cls.__name__] = _object_schema(cls, refs, ref_template)
    return top, dict(sorted(defs.items()))
