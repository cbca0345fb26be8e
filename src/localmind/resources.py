"""Find LocalMind's read-only resources (catalog, icons, translations).

They live in the top-level ``resources/`` folder of a source checkout, and in
``<bundle>/resources`` inside a PyInstaller bundle (``sys._MEIPASS``). Paths
are resolved from this file, never from the working directory, so the app
finds them wherever it is started from.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ENV_RESOURCES_DIR = "LOCALMIND_RESOURCES_DIR"


def _source_tree_dir() -> Path:
    # src/localmind/resources.py -> <checkout>/resources
    return Path(__file__).resolve().parent.parent.parent / "resources"


def _candidates() -> list[Path]:
    found: list[Path] = []
    env = os.environ.get(ENV_RESOURCES_DIR)
    if env:
        found.append(Path(env))
    bundle = getattr(sys, "_MEIPASS", None)
    if bundle:
        found.append(Path(bundle) / "resources")
    # Installed as package data, the folder would sit next to this file.
    found += [_source_tree_dir(), Path(__file__).resolve().parent / "resources"]
    return found


def resources_dir() -> Path:
    """The first resources folder that exists (where it should be when none does, so errors name a sensible path)."""
    for candidate in _candidates():
        if candidate.is_dir():
            return candidate
    bundle = getattr(sys, "_MEIPASS", None)
    return Path(bundle) / "resources" if bundle else _source_tree_dir()


def resource_path(*parts: str) -> Path:
    """``resources/<parts...>``; the file may not exist (callers report that)."""
    return resources_dir().joinpath(*parts)
