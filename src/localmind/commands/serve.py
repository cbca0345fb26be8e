"""``localmind serve``: the model as an HTTP API (OpenAI-compatible, plus ``/generate``), headless.

No Qt is imported: it runs on a server, in a container, over SSH. The engine runs in a child process (the
same one the window uses), so a forward pass never stalls the event loop and a crash in native code is
reported as an error, not the end of the server.
"""

from __future__ import annotations

import argparse
import errno
import ipaddress
import logging
import os
import socket
import sys
from pathlib import Path
from typing import Any

from localmind import startup_trace
from localmind.commands.serve_options import (
    ENV_API_KEY,
    check_context_fits,
    check_numbers,
    hide_key_from_ps,
    read_api_key,
)
from localmind.engine.types import DEVICES, LoadOptions
from localmind.errors import UserFacingError


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser("serve", help="serve a model over HTTP (OpenAI-compatible API)")
    p.add_argument("--model", required=True, metavar="ID|DIR", help="an installed model's id, or a model folder")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1, this computer only)")
    p.add_argument("--port", type=_port, default=None, help="port (default: $PORT, else 8000)")
    p.add_argument(
        "--api-key",
        metavar="KEY",
        help=f"require this key (other local users can read it in `ps`: prefer --api-key-file or ${ENV_API_KEY})",
    )
    p.add_argument(
        "--api-key-file",
        metavar="PATH",
        help=f"require the key in this file's first line ('-': read it from standard input); also ${ENV_API_KEY}",
    )
    p.add_argument(
        "--device", choices=DEVICES, default="auto", help="hardware to run on (default: the best that works)"
    )
    p.add_argument("--max-queue", type=int, default=16, metavar="N", help="requests that may wait; more get 429")
    p.add_argument(
        "--cors-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="allow browser pages from ORIGIN (repeat for several); CORS is off by default",
    )
    p.add_argument("--context", type=int, metavar="TOKENS", help="context budget (default: min(model context, 4096))")
    p.add_argument("--threads", type=int, metavar="N", help="CPU threads (default: physical cores)")
    p.add_argument("--max-body-bytes", type=int, default=1_000_000, metavar="N", help="largest request body")
    p.add_argument(
        "--drop-oldest",
        action="store_true",
        help="a conversation longer than the context loses its oldest turns (default: 400 context_length_exceeded)",
    )
    p.add_argument(
        "--max-connections", type=int, default=512, metavar="N", help="open connections at most (default 512)"
    )
    p.add_argument(
        "--header-timeout",
        type=float,
        default=10.0,
        metavar="S",
        help="seconds a client has to send a request's headers, and between pieces of its body (default 10)",
    )
    p.add_argument("--max-prompt-chars", type=int, default=200_000, metavar="N", help="longest prompt in characters")
    p.set_defaults(handler=run)


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        port = -1
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port: use a number from 1 to 65535")
    return port


def listen(host: str, port: int) -> socket.socket:
    """The server's socket, bound before the model loads: a port in use or an unknown address is said at once, not
    after the model's load (seconds) and after a line that announced the server as running."""
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)  # as uvicorn binds
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # a restart right after a stop gets the port
        sock.bind((host, port))
        sock.listen(2048)
    except (OSError, UnicodeError) as exc:
        sock.close()
        raise _listen_error(host, port, exc) from exc
    return sock


def _listen_error(host: str, port: int, exc: BaseException) -> UserFacingError:
    code = getattr(exc, "errno", None)
    if code == errno.EADDRINUSE:
        return UserFacingError(
            f"Port {port} is in use on {host} (another LocalMind server, or another program).",
            hint="Pick another with --port, or stop the program using it.",
        )
    if code == errno.EACCES:
        return UserFacingError(
            f"This user may not listen on port {port}.",
            hint="Ports below 1024 need administrator rights: pick one above.",
        )
    if isinstance(exc, socket.gaierror) or code == errno.EADDRNOTAVAIL or isinstance(exc, UnicodeError):
        return UserFacingError(
            f"Cannot listen on {host}: it is not an address of this computer.",
            hint="Use --host 127.0.0.1 (this computer only), 0.0.0.0 (all its networks) or one of its addresses.",
        )
    return UserFacingError(
        f"Cannot listen on {host} port {port}: {getattr(exc, 'strerror', None) or exc}.",
        hint="Pick another --host or --port.",
    )


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_exposure(host: str, api_key: str | None) -> None:
    if not is_loopback(host) and not api_key:
        raise UserFacingError(
            f"Listening on {host} lets other computers use this model, so the server needs an API key.",
            hint=f"Add --api-key-file PATH (or set ${ENV_API_KEY}), or listen on this computer only with --host 127.0.0.1.",
        )


def resolve_model(spec: str) -> tuple[str, Path]:
    """(id clients will use, folder) for an installed model id or a folder path."""
    path = Path(spec).expanduser()
    if path.is_dir():
        return path.resolve().name, path.resolve()
    if os.sep in spec or (os.altsep and os.altsep in spec):
        raise UserFacingError(f"Model folder not found: {spec}.", hint="Check the path, or pass an installed model id.")
    from localmind.core.hub.installed import require_installed

    model = require_installed(spec)
    if not model.ok:
        raise UserFacingError(
            f"The model {spec!r} cannot be used: {model.problem}.", hint=f"Run `localmind models verify {spec}`."
        )
    return model.id, model.model_path


def _env_port() -> int:
    text = os.environ.get("PORT") or "8000"
    try:
        return _port(text)
    except argparse.ArgumentTypeError as exc:
        raise UserFacingError(
            f"$PORT is {text!r}, not a port.", hint="Set it to a number from 1 to 65535, or pass --port."
        ) from exc


def _configure_logging() -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(message)s", "%Y-%m-%dT%H:%M:%S"))
    for name in ("localmind.server", "localmind.serve"):
        logger = logging.getLogger(name)
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
        logger.propagate = False


def _config(args: argparse.Namespace, api_key: str | None) -> Any:
    from localmind.server.context import LOOPBACK_HOSTS, ServerConfig

    return ServerConfig(
        api_key=api_key,
        cors_origins=tuple(args.cors_origin),
        # Beyond loopback the key protects the API; names are the deployment's business (proxies, DNS).
        allowed_hosts=LOOPBACK_HOSTS if is_loopback(args.host) else (),
        max_body_bytes=args.max_body_bytes,
        max_prompt_chars=args.max_prompt_chars,
        body_timeout_s=args.header_timeout,
        drop_oldest=args.drop_oldest,
    )


def run(args: argparse.Namespace) -> int:
    startup_trace.trace("serve-run")
    check_numbers(args)
    api_key = read_api_key(args)
    if args.api_key is not None and api_key is not None:
        hide_key_from_ps(api_key)  # starts this command again without it, where it can
    check_exposure(args.host, api_key)
    port = args.port if args.port is not None else _env_port()
    model_id, folder = resolve_model(args.model)

    from localmind.engine.process import EngineProcess

    # Cold start (issue 12; a scale-to-zero host pays it at every wake-up): the engine child starts first, forked
    # before this process imports its web framework, and loads the model meanwhile; its first turn does not wait
    # for the whole context's KV buffer either (kv_after_first_turn).
    engine = EngineProcess(fork_first=True)
    try:
        engine.start_load(
            str(folder),
            LoadOptions(
                device=args.device, threads=args.threads, context_budget=args.context, kv_after_first_turn=True
            ),
        )
        startup_trace.trace("serve-engine-started", startup_trace.web_framework_loaded())
        # After the fork (the engine child must not hold the port) and before the model is loaded.
        sock = listen(args.host, port)
        from localmind.engine.service import EngineService
        from localmind.server.app import create_app
        from localmind.server.connections import uvicorn_server
        from localmind.server.context import ServedModel
        from localmind.server.scheduler import Scheduler

        startup_trace.trace("serve-framework-imported", startup_trace.web_framework_loaded())
        _configure_logging()
        say = logging.getLogger("localmind.serve")
        info = engine.wait_loaded()
        startup_trace.trace("serve-model-loaded")
        for warning in info.warnings:
            say.info("note: %s", warning)
        check_context_fits(info.context_budget, info.kv_bytes_per_token, explicit=args.context is not None)
        served = ServedModel(id=model_id, name=info.model_name, context_budget=info.context_budget)
        # From here on the engine service is the engine's one owner: every request is a job of it.
        service = EngineService(engine)
        scheduler = Scheduler(service, max_queue=args.max_queue)
        app = create_app(scheduler, lambda: served, _config(args, api_key))
        server = uvicorn_server(
            app, args.host, port, header_timeout=args.header_timeout, max_connections=args.max_connections
        )
        shown = f"[{args.host}]" if ":" in args.host else args.host
        say.info(
            "LocalMind API: %s on %s (%s threads) at http://%s:%d/v1 — docs at /docs%s",
            model_id,
            info.device,
            info.threads,
            shown,
            port,
            "" if api_key else " (no API key)",
        )
        try:
            server.run(sockets=[sock])
        finally:
            sock.close()
            scheduler.close()
            service.close()
            # What the server imported in all, requests served included (the tests: never fastapi).
            startup_trace.trace("serve-stopped", startup_trace.web_framework_loaded())
        if not server.started:
            raise UserFacingError(
                f"Could not listen on {shown}:{port}.",
                hint="Another program may be using the port: pick another with --port.",
            )
    finally:
        engine.close()
    return 0
