"""What a model measured in memory the first time it ran (model-memory.json in the data folder).

A chat model's figure comes from the engine after its load; the embedding model's from Documents after its first run
(documents/embed.py). Kept apart from core/hub so Documents can record it without importing the hub client.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from localmind import paths

STATS_NAME = "model-memory.json"


def _stats_path() -> Path:
    return paths.data_dir() / STATS_NAME


def _read() -> dict[str, Any]:
    try:
        data = json.loads(_stats_path().read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        return {}
    return data if isinstance(data, dict) else {}


def _key(model_dir: str | Path) -> str:
    return os.path.normcase(str(Path(model_dir).expanduser().resolve()))


def record_loaded_memory(model_dir: str | Path, memory_bytes: int) -> None:
    """Remember what was measured after loading ``model_dir`` (best effort: a failure only loses a hint)."""
    if memory_bytes <= 0:
        return
    path = _stats_path()
    data = _read()
    data[_key(model_dir)] = int(memory_bytes)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")  # the app and a terminal command may both write
        tmp.write_text(json.dumps(data, indent=1), encoding="utf-8")
        tmp.replace(path)
    except OSError:
        pass


def loaded_memory(model_dir: str | Path) -> int | None:
    value = _read().get(_key(model_dir))
    return int(value) if isinstance(value, int) and value > 0 else None
