"""Where LocalMind keeps its files.

Everything LocalMind writes goes under one data folder: ``--data-dir`` wins,
then the ``LOCALMIND_DATA_DIR`` environment variable, then the platform's user
data folder (never next to the program, which may be read-only).
"""

from __future__ import annotations

import os
from pathlib import Path

from platformdirs import user_data_dir

from localmind import APP_NAME

ENV_DATA_DIR = "LOCALMIND_DATA_DIR"
_override: Path | None = None


def set_data_dir(path: str | Path | None) -> None:
    """Make ``path`` the data folder for this process (``None`` restores the default)."""
    global _override
    _override = Path(path).expanduser().resolve() if path is not None else None


def data_dir() -> Path:
    if _override is not None:
        return _override
    env = os.environ.get(ENV_DATA_DIR)
    if env:
        return Path(env).expanduser().resolve()
    # Not roaming: models are gigabytes, and a roaming profile would copy them between machines at every logon.
    return Path(user_data_dir(APP_NAME, appauthor=False, roaming=False))


def ensure_data_dir() -> Path:
    path = data_dir()
    path.mkdir(parents=True, exist_ok=True)
    return path


def models_dir() -> Path:
    """Installed models: ``<data>/models/<id>/`` each with a manifest."""
    return data_dir() / "models"


def staging_dir() -> Path:
    """Downloads in progress; installed into ``models_dir()`` by one atomic rename."""
    return models_dir() / ".staging"


def database_path() -> Path:
    return data_dir() / "conversations.sqlite3"


def settings_path() -> Path:
    return data_dir() / "settings.json"


def window_state_path() -> Path:
    return data_dir() / "window.ini"


def logs_dir() -> Path:
    return data_dir() / "logs"
