"""Where prepared model folders live, and the fingerprint that says whether one is still current.

Shared by ``prepare`` (onnx-community exports) and ``package`` (onnxruntime-genai packages); kept apart so opening
an onnxruntime-genai package imports none of the export code.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

PREPARED = "prepared"


def listing(folder: Path, depth: int = 2) -> list[str]:
    """Relative posix paths of the files under ``folder`` (top and one level down is all the layout uses)."""
    out: list[str] = []
    for root, dirs, files in os.walk(folder):
        rel = Path(root).relative_to(folder)
        if len(rel.parts) >= depth:
            dirs[:] = []
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        out.extend((rel / name).as_posix() for name in files)
    return out


def fingerprint(folder: Path, rels: list[str], version: int) -> dict[str, Any]:
    """Each file's size and modification time, with the version of what is made from them."""
    out: dict[str, Any] = {"format_version": version, "source": str(folder)}
    for rel in sorted(rels):
        st = (folder / rel).stat()
        out[rel] = [st.st_size, st.st_mtime_ns]
    return out


def slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-.")[:60] or "model"


def prepared_root(data_dir: Path | None = None) -> Path:
    if data_dir is None:
        from localmind.paths import data_dir as default_data_dir

        data_dir = default_data_dir()
    return data_dir / PREPARED


__all__ = ["PREPARED", "fingerprint", "listing", "prepared_root", "slug"]
