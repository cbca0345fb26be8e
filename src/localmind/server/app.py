"""The FastAPI application: routes, error shape, guards, CORS (only when origins are listed), request log."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from localmind import __version__
from localmind.server import generate_routes, openai_routes
from localmind.server.context import ServedModel, ServerConfig, ServerContext, context_of
from localmind.server.errors import install_error_handlers
from localmind.server.middleware import GuardMiddleware, RequestLogMiddleware
from localmind.server.scheduler import Scheduler


def create_app(scheduler: Scheduler, served: Callable[[], ServedModel | None], config: ServerConfig) -> FastAPI:
    app = FastAPI(
        title="LocalMind API",
        version=__version__,
        description="OpenAI-compatible chat and completions, and a simple /generate, answered by a model running "
        "on this computer. Send the API key (if the server has one) as `Authorization: Bearer KEY`.",
        redoc_url=None,
    )
    app.state.ctx = ServerContext(scheduler, served, config)
    install_error_handlers(app)
    app.include_router(openai_routes.router)
    app.include_router(generate_routes.router)

    @app.get("/health", summary="Ready when a model is loaded (no key needed: for health checks)")
    async def health(request: Request) -> JSONResponse:
        ctx = context_of(request)
        model = ctx.served()
        body: dict[str, Any] = {
            "status": "ok" if model else "no_model",
            "model": model.id if model else None,
            "waiting": ctx.scheduler.waiting,
            "busy": ctx.scheduler.running,
        }
        return JSONResponse(body, status_code=200 if model else 503)

    if config.cors_origins:
        from fastapi.middleware.cors import CORSMiddleware

        app.add_middleware(
            CORSMiddleware,
            allow_origins=list(config.cors_origins),
            allow_methods=["GET", "POST"],
            allow_headers=["Authorization", "Content-Type"],
        )
    app.add_middleware(GuardMiddleware, allowed_hosts=config.allowed_hosts, max_body_bytes=config.max_body_bytes)
    app.add_middleware(RequestLogMiddleware)  # outermost: logs refusals by the guard too
    return app
