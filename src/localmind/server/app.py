"""The Starlette application: routes, error shape, guards, CORS (only when origins are listed), request log."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response

from localmind.server import embeddings_routes, generate_routes, openai_routes
from localmind.server import response_schemas as rs
from localmind.server.context import ServedModel, ServerConfig, ServerContext, context_of
from localmind.server.errors import exception_handlers
from localmind.server.middleware import GuardMiddleware, RequestLogMiddleware
from localmind.server.routing import ApiRoute, get
from localmind.server.scheduler import Scheduler

_own: list[ApiRoute] = []


@get(
    _own,
    "/health",
    summary="Ready when a model is loaded and the engine answers (no key needed: for health checks)",
    needs_key=False,
    content=rs.json_content("Health"),
)
async def health(request: Request) -> Response:
    ctx = context_of(request)
    model = ctx.served()
    problem = ctx.scheduler.health() if model else None  # the model failed to reload, or the engine is frozen
    status = "ok" if model and problem is None else ("unavailable" if model else "no_model")
    body: dict[str, Any] = {
        "status": status,
        "model": model.id if model else None,
        "waiting": ctx.scheduler.waiting,
        "busy": ctx.scheduler.running,
    }
    if problem is not None:
        body["reason"] = problem
    return JSONResponse(body, status_code=200 if status == "ok" else 503)


def _openapi(request: Request) -> dict[str, Any]:
    # Built on the first request for it, never at start-up (the serve cold start does not pay for it).
    state = request.app.state
    if getattr(state, "openapi", None) is None:
        from localmind.server.openapi import build_openapi

        state.openapi = build_openapi(api_routes())
    doc: dict[str, Any] = state.openapi
    return doc


@get(_own, "/openapi.json", summary="This API's description (OpenAPI 3.1)", needs_key=False, content=rs.OPENAPI)
async def openapi_json(request: Request) -> Response:
    return JSONResponse(_openapi(request))


@get(_own, "/docs", summary="This API's documentation as a web page", needs_key=False, content=rs.HTML)
async def docs(request: Request) -> Response:
    from localmind.server.docs_page import CONTENT_SECURITY_POLICY, render_docs

    served = context_of(request).served()
    page = render_docs(_openapi(request), str(request.base_url).rstrip("/"), served.id if served else None)
    # Nothing on the page loads from anywhere: no scripts at all, styles inline (it works offline, tracks no one).
    return HTMLResponse(page, headers={"Content-Security-Policy": CONTENT_SECURITY_POLICY})


def api_routes() -> tuple[ApiRoute, ...]:
    """Every route the app serves, as declared (what /openapi.json describes)."""
    return (*openai_routes.routes, *embeddings_routes.routes, *generate_routes.routes, *_own)


def create_app(scheduler: Scheduler, served: Callable[[], ServedModel | None], config: ServerConfig) -> Starlette:
    middleware = [
        Middleware(RequestLogMiddleware),  # outermost: logs refusals by the guard too
        Middleware(
            GuardMiddleware,
            allowed_hosts=config.allowed_hosts,
            max_body_bytes=config.max_body_bytes,
            allowed_origins=config.cors_origins,
            body_timeout_s=config.body_timeout_s,
        ),
    ]
    if config.cors_origins:
        from starlette.middleware.cors import CORSMiddleware

        middleware.append(
            Middleware(
                CORSMiddleware,
                allow_origins=list(config.cors_origins),
                allow_methods=["GET", "POST"],
                # Any header a listed page asks for: the official JS SDK sends x-stainless-* (its version, OS,
                # runtime, retry count, timeout) and OpenAI-Organization/-Project, and adds new ones over time.
                # The page is trusted by being listed; the key is still checked.
                allow_headers=["*"],
                max_age=600,
            )
        )
    app = Starlette(
        routes=[r.route() for r in api_routes()], middleware=middleware, exception_handlers=exception_handlers()
    )
    app.state.ctx = ServerContext(scheduler, served, config)
    app.state.openapi = None
    return app
