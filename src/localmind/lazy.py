"""Modules imported on first use, for start-up paths that may never need them (issue 12: cold start)."""

from __future__ import annotations

import importlib.util
import sys
from typing import Any


def lazy_module(name: str) -> Any:
    """``name`` as a module whose import runs when one of its attributes is first read (``importlib.util.LazyLoader``).

    For a module used only inside functions: importing the caller costs nothing until then. An already imported
    module is returned as it is.
    """
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None:
        raise ModuleNotFoundError(f"No module named {name!r}", name=name)
    loader = importlib.util.LazyLoader(spec.loader)
    spec.loader = loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    loader.exec_module(module)
    return module
