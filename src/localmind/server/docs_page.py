"""/docs: the API's documentation as one self-contained HTML page, generated from /openapi.json's document.

No scripts and nothing fetched from elsewhere (LocalMind works offline and tracks no one): each endpoint, what it
takes, what it answers and a curl command to try it. Everything interpolated is escaped.
"""

from __future__ import annotations

import json
import re
import shlex
from html import escape
from typing import Any
from urllib.parse import quote

CONTENT_SECURITY_POLICY = (
    "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
_STYLE = """
body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#1d1d1f;background:#fafafa}
main{max-width:60rem;margin:0 auto;padding:1.5rem}
section{background:#fff;border:1px solid #ddd;border-radius:8px;padding:0 1.2rem 1rem;margin:1.2rem 0}
code,pre{font:13px/1.45 ui-monospace,monospace}pre{background:#f2f2f2;padding:.8rem;border-radius:6px;overflow:auto}
table{border-collapse:collapse;width:100%}th,td{text-align:left;border-bottom:1px solid #eee;padding:.3rem .5rem;
vertical-align:top}th{font-weight:600}.m{font-weight:700;color:#fff;border-radius:4px;padding:0 .4rem;margin-right:.4rem}
.GET{background:#2b7a3d}.POST{background:#1f5fa8}.note{color:#555}
"""
_REF_PREFIX = "#/components/schemas/"


def _inline(text: str) -> str:
    """Escaped text with `code` spans (the descriptions' only markup)."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", escape(text))


def _ref_name(schema: dict[str, Any]) -> str | None:
    ref = schema.get("$ref")
    return ref[len(_REF_PREFIX) :] if isinstance(ref, str) and ref.startswith(_REF_PREFIX) else None


def _type(schema: dict[str, Any]) -> str:
    name = _ref_name(schema)
    if name:
        return name
    if "anyOf" in schema:
        return " or ".join(dict.fromkeys(_type(s) for s in schema["anyOf"]))
    if "const" in schema:
        return json.dumps(schema["const"])
    if "enum" in schema:
        return " | ".join(json.dumps(v) for v in schema["enum"])
    kind = schema.get("type")
    if kind == "array":
        return f"array of {_type(schema.get('items', {}))}"
    if isinstance(kind, list):
        return " or ".join(str(k) for k in kind)
    return str(kind) if kind else "any"


_LIMITS = (
    ("minimum", "≥ {}"),
    ("maximum", "≤ {}"),
    ("exclusiveMinimum", "> {}"),
    ("exclusiveMaximum", "< {}"),
    ("minLength", "length ≥ {}"),
    ("minItems", "length ≥ {}"),
)


def _limits(schema: dict[str, Any]) -> list[str]:
    found = [text.format(schema[key]) for key, text in _LIMITS if key in schema]
    for member in schema.get("anyOf", []):
        found += _limits(member)
    return found


def _refs_in(schema: Any) -> list[str]:
    """Model names a schema refers to, in order, each once."""
    names: list[str] = []
    if isinstance(schema, dict):
        name = _ref_name(schema)
        if name:
            names.append(name)
        for value in schema.values():
            names += _refs_in(value)
    elif isinstance(schema, list):
        for value in schema:
            names += _refs_in(value)
    return list(dict.fromkeys(names))


def _fields_table(name: str, schema: dict[str, Any]) -> str:
    required = set(schema.get("required", []))
    rows = []
    fields = sorted(schema.get("properties", {}).items(), key=lambda item: item[0] not in required)  # required first
    for field, spec in fields:
        extras = [*_limits(spec)]
        if "default" in spec and spec["default"] is not None:
            extras.append(f"default {json.dumps(spec['default'])}")
        notes = " ".join([spec.get("description", ""), f"({', '.join(extras)})" if extras else ""]).strip()
        rows.append(
            f"<tr><td><code>{escape(field)}</code></td><td>{escape(_type(spec))}</td>"
            f"<td>{'yes' if field in required else ''}</td><td>{_inline(notes)}</td></tr>"
        )
    head = "<tr><th>Field</th><th>Type</th><th>Required</th><th>Notes</th></tr>"
    about = f"<p class='note'>{_inline(schema['description'])}</p>" if schema.get("description") else ""
    return f"<h4>{escape(name)}</h4>{about}<table>{head}{''.join(rows)}</table>"


def _body_tables(body_ref: dict[str, Any], schemas: dict[str, Any]) -> str:
    """The body model's fields, then each model it uses (messages → Message → ContentPart ...), once each."""
    queue, seen, out = _refs_in(body_ref), set(), []
    while queue:
        name = queue.pop(0)
        if name in seen or name not in schemas:
            continue
        seen.add(name)
        out.append(_fields_table(name, schemas[name]))
        queue += _refs_in(schemas[name].get("properties", {}))
    return "".join(out)


def _curl(base_url: str, path: str, method: str, op: dict[str, Any], model_id: str | None) -> str:
    # -N prints events as they come
    if model_id:
        path = path.replace("{model_id}", quote(model_id, safe=""))
    streams = path.endswith("/stream") or path == "/stream_generate"
    parts = [f"curl {'-N ' if streams else ''}{shlex.quote(base_url + path)}"]
    if op.get("security"):
        parts.append('-H "Authorization: Bearer $LOCALMIND_API_KEY"')
    example = op.get("requestBody", {}).get("content", {}).get("application/json", {}).get("example")
    if method == "post" and example is not None:
        if "model" in example and model_id:
            example = {**example, "model": model_id}
        parts += ["-H 'Content-Type: application/json'", "-d " + shlex.quote(json.dumps(example, ensure_ascii=False))]
    return " \\\n  ".join(parts)


def _section(path: str, method: str, op: dict[str, Any], doc: dict[str, Any], base: str, model: str | None) -> str:
    verb = method.upper()
    anchor = op.get("operationId", f"{method}{path}")
    key = (
        "Needs the API key, when the server has one: <code>Authorization: Bearer KEY</code>."
        if op.get("security")
        else "No API key needed."
    )
    html = [
        f"<section id='{escape(anchor, quote=True)}'><h2><span class='m {verb}'>{verb}</span>"
        f"<code>{escape(path)}</code></h2><p>{_inline(op.get('summary', ''))}</p><p class='note'>{key}</p>"
    ]
    media = op.get("requestBody", {}).get("content", {}).get("application/json")
    if media:
        html.append(
            "<h3>Request body (JSON)</h3><p class='note'>Any other field is refused with a 400 that names it.</p>"
        )
        html.append(_body_tables(media["schema"], doc.get("components", {}).get("schemas", {})))
    html.append("<h3>Responses</h3><ul>")
    responses = doc.get("components", {}).get("responses", {})
    for status, response in op.get("responses", {}).items():
        name = _ref_name_of_response(response)
        response = responses.get(name, response) if name else response
        types = ", ".join(response.get("content", {}))
        shown = f" <span class='note'>({escape(types)})</span>" if types else ""
        html.append(f"<li><b>{escape(status)}</b> {_inline(response.get('description', ''))}{shown}</li>")
    html.append("</ul><h3>Try it</h3>")
    html.append(f"<pre>{escape(_curl(base, path, method, op, model))}</pre></section>")
    return "".join(html)


def _ref_name_of_response(response: dict[str, Any]) -> str | None:
    ref = response.get("$ref")
    prefix = "#/components/responses/"
    return ref[len(prefix) :] if isinstance(ref, str) and ref.startswith(prefix) else None


def render_docs(doc: dict[str, Any], base_url: str, model_id: str | None = None) -> str:
    """The page for OpenAPI document ``doc``; curl examples address ``base_url`` and ask for ``model_id``."""
    info = doc.get("info", {})
    title = escape(info.get("title", "API"))
    ops = [(path, method, op) for path, item in doc.get("paths", {}).items() for method, op in item.items()]
    toc = "".join(
        f"<li><a href='#{escape(op.get('operationId', ''), quote=True)}'>{method.upper()} {escape(path)}</a>"
        f" — {_inline(op.get('summary', ''))}</li>"
        for path, method, op in ops
    )
    serving = f" It serves <code>{escape(model_id)}</code>." if model_id else " No model is loaded right now."
    sections = "".join(_section(path, method, op, doc, base_url, model_id) for path, method, op in ops)
    return (
        f"<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        f"<meta name='viewport' content='width=device-width, initial-scale=1'><title>{title}</title>"
        f"<style>{_STYLE}</style></head><body><main><h1>{title} <small class='note'>"
        f"{escape(str(info.get('version', '')))}</small></h1><p>{_inline(info.get('description', ''))}</p>"
        f"<p>This server: <code>{escape(base_url)}</code>.{serving} OpenAI's client libraries work with "
        f"<code>{escape(base_url)}/v1</code> as their base URL. The machine-readable description: "
        f"<a href='/openapi.json'>/openapi.json</a> (OpenAPI 3.1).</p><ul>{toc}</ul>{sections}</main></body></html>"
    )
