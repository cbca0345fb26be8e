"""Hidden start-up switches for the tests and bench/coldstart.py; not for users. No Qt: ``localmind serve``
and the engine child use them.

Honoured only with ``LOCALMIND_TEST_HOOKS=1`` (as the window's test switches in tests/helpers/app_hooks.py) and
this package loaded from a source checkout, never frozen.

* ``LOCALMIND_TEST_TRACE`` set: each start-up step prints ``<step> <time.time()> <pid> [detail]`` on stdout
  (``serve`` and its engine child share it), so a test can check their order and the bench where time goes.
* ``LOCALMIND_TEST_LOAD_GATE``: the engine child's model load waits until this file exists (a model slow to load).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

ENV_ENABLE = "LOCALMIND_TEST_HOOKS"
ENV_TRACE = "LOCALMIND_TEST_TRACE"
ENV_LOAD_GATE = "LOCALMIND_TEST_LOAD_GATE"
# What ``localmind serve`` imports for HTTP: the engine child needs none of it before (or after) its model loads.
# fastapi is listed so the tests can check the server never imports it (it runs on plain Starlette for its cold start).
WEB_FRAMEWORK = ("fastapi", "uvicorn", "starlette", "pydantic", "anyio")


def is_checkout_package(package: Path) -> bool:
    """Whether ``package`` is ``<root>/src/localmind`` beside ``<root>/pyproject.toml`` and ``<root>/tests``."""
    root = package.parent.parent
    return package.parent.name == "src" and (root / "pyproject.toml").is_file() and (root / "tests").is_dir()


def active() -> bool:
    if getattr(sys, "frozen", False) or os.environ.get(ENV_ENABLE) != "1":
        return False
    return is_checkout_package(Path(__file__).resolve().parent)


def tracing() -> bool:
    return bool(os.environ.get(ENV_TRACE)) and active()


def trace(step: str, *detail: object) -> None:
    """Print one trace line (when tracing): ``step time pid detail...``."""
    if tracing():
        print(step, f"{time.time():.4f}", os.getpid(), *detail, flush=True)


def web_framework_loaded() -> str:
    """The web framework's top-level modules this process has imported, comma-separated ("-" for none)."""
    return ",".join(m for m in WEB_FRAMEWORK if m in sys.modules) or "-"


def wait_for_load_gate(timeout_s: float = 300.0) -> None:
    """Hold a model load until the gate file exists (when the switch is set)."""
    gate = os.environ.get(ENV_LOAD_GATE)
    if not gate or not active():
        return
    deadline = time.monotonic() + timeout_s
    while not Path(gate).exists() and time.monotonic() < deadline:
        time.sleep(0.02)
