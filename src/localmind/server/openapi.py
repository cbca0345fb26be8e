"""/openapi.json: an OpenAPI 3.1 description of the routes, built from their declarations (``routing.ApiRoute``)
and the JSON schemas of the request bodies' declarations (``fields.json_schema``). Imported on the first request for it, never at start-up."""

from __future__ import annotations

from typing import Any

from localmind import __version__
from localmind.server.fields import json_schema
from localmind.server.response_schemas import SCHEMAS
from localmind.server.routing import ApiRoute

TITLE = "LocalMind API"
DESCRIPTION = (
    "OpenAI-compatible chat and completions, and a simple /generate, answered by a model running on this computer. "
    "Send the API key (if the server has one) as `Authorization: Bearer KEY`."
)
_REF = "#/components/schemas/{model}"
_ERROR = {
    "type": "object",
    "description": "OpenAI's error shape.",
    "properties": {
        "error": {
            "type": "object",
            "properties": {
                "message": {"type": "string", "description": "What went wrong and what to do about it."},
                "type": {"type": "string", "examples": ["invalid_request_error", "server_error"]},
                "param": {"type": ["string", "null"], "description": "The field at fault, when one is."},
                "code": {"type": ["string", "null"], "examples": ["missing_api_key", "model_not_found"]},
            },
            "required": ["message", "type", "param", "code"],
        }
    },
    "required": ["error"],
}
_ERRORS = {
    "400": "The request is not valid: the message says which field and why (`param` names it). Also: a Host header "
    "that is not this server's (`invalid_host`), a POST body that is not `application/json`, JSON nested more than "
    "64 levels (`too_deep`), a field LocalMind does not know (`unknown_parameter`) or cannot honour "
    "(`unsupported_parameter`, as each field's description says), `stream_options` without `stream`, `min_tokens` "
    "with a JSON `response_format`, a JSON schema the engine cannot follow (`invalid_json_schema`), a prompt over "
    "the server's character limit (`prompt_too_long`) and a conversation longer than the context "
    "(`context_length_exceeded`, with the token counts); tools, tool calls and tool turns in `messages`, "
    "`tool_choice`, `logit_bias`, `top_logprobs` and `n` whose content or combination cannot be honoured "
    "(`invalid_value`, naming the field).",
    "400host": "The Host header is not one of this server's names (`invalid_host`).",
    "401": "The API key is missing or not correct.",
    "403": "Sent by a web page from an origin the server does not allow (`origin_not_allowed`; see --cors-origin).",
    "404": "No such model here (GET /v1/models lists the one served).",
    "408": "The request's headers or body stopped arriving (`request_timeout`); the connection is closed.",
    "413": "The request body is larger than the server accepts.",
    "429": "Too many requests are waiting for the model; see Retry-After.",
    "500": "The engine failed while answering (`engine_error`); the server keeps running.",
    "503": "No model is loaded yet, or the server is stopping.",
}


_Refs = dict[type, dict[str, Any]]


def _schemas(routes: tuple[ApiRoute, ...]) -> tuple[_Refs, dict[str, Any]]:
    wanted: list[type] = []
    for route in routes:
        for model in (route.body, route.response):
            if model is not None and model not in wanted:
                wanted.append(model)
    return json_schema(wanted, ref_template=_REF)


def _error_statuses(route: ApiRoute) -> list[str]:
    statuses = ["400" if route.body is not None else "400host", "403"]  # Host and Origin come before any route
    if route.body is not None:
        statuses += ["408", "413", "429", "500", "503"]
    if route.path.startswith("/v1/") and (route.body is not None or "{" in route.path):
        statuses.append("404")
    if route.needs_key:
        statuses.append("401")
    return statuses


def _operation_id(route: ApiRoute) -> str:
    name = route.path.replace("/", "_").replace(".", "_").replace("{", "_").replace("}", "")
    return route.method.lower() + (name if name != "_" else "_root")


def _operation(route: ApiRoute, refs: _Refs) -> dict[str, Any]:
    ok: dict[str, Any] = {"description": route.response_description}
    if route.response is not None:
        ok["content"] = {"application/json": {"schema": refs[route.response]}}
    else:
        ok["content"] = route.content or {"application/json": {"schema": {"type": "object"}}}
    op: dict[str, Any] = {"summary": route.summary, "operationId": _operation_id(route), "responses": {"200": ok}}
    params = [p[1:-1] for p in route.path.split("/") if p.startswith("{")]
    if params:
        op["parameters"] = [{"name": p, "in": "path", "required": True, "schema": {"type": "string"}} for p in params]
    if route.body is not None:
        media: dict[str, Any] = {"schema": refs[route.body]}
        if route.example is not None:
            media["example"] = route.example
        op["requestBody"] = {"required": True, "content": {"application/json": media}}
    for status in _error_statuses(route):
        op["responses"][status[:3]] = {"$ref": f"#/components/responses/E{status}"}
    if route.needs_key:
        op["security"] = [{"bearerAuth": []}]
    elif route.path == "/health":
        op["responses"]["503"] = {
            "description": "No model is loaded (the body says so).",
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Health"}}},
        }
    op["responses"] = dict(sorted(op["responses"].items()))
    return op


def build_openapi(routes: tuple[ApiRoute, ...]) -> dict[str, Any]:
    refs, defs = _schemas(routes)
    paths: dict[str, dict[str, Any]] = {}
    for route in routes:
        paths.setdefault(route.path, {})[route.method.lower()] = _operation(route, refs)
    error_ref = {"$ref": "#/components/schemas/Error"}
    responses = {
        f"E{status}": {"description": text, "content": {"application/json": {"schema": error_ref}}}
        for status, text in _ERRORS.items()
    }
    return {
        "openapi": "3.1.0",
        "info": {"title": TITLE, "version": __version__, "description": DESCRIPTION},
        "paths": paths,
        "components": {
            "schemas": {**defs, **SCHEMAS, "Error": _ERROR},
            "responses": responses,
            "securitySchemes": {
                "bearerAuth": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "The server's API key (`--api-key` or LOCALMIND_API_KEY; the app's key in "
                    "Settings). A server without a key accepts requests without one.",
                }
            },
        },
    }
