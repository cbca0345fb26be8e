"""Where LocalMind keeps its files.

Everything LocalMind writes goes under one data folder: ``--data-dir`` wins,
then the ``LOCALMIND_DATA_DIR`` environment variable, then the platform's user
data folder (never next to the program, which may be read-only).
"""

from __future__ import annotations

import contextlib
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
    return private_dir(data_dir())


# Conversations and documents are nobody else's business: the data folder is 0700 and its databases 0600 (as an
# export file is), whatever the umask. A folder or file made by an older version is tightened when it is opened.
PRIVATE_DIR_MODE = 0o700
PRIVATE_FILE_MODE = 0o600


def _tighten(path: Path, mode: int) -> None:
    """chmod ``path`` to ``mode`` when others may read it and it is ours; never fails (a read-only disk, Windows)."""
    if os.name == "nt":
        return  # NTFS permissions are not mode bits; the user's profile folder is already private
    with contextlib.suppress(OSError):
        st = path.stat()
        if st.st_mode & 0o077 and st.st_uid == os.getuid():
            path.chmod(mode)


def private_dir(path: Path) -> Path:
    """Create ``path`` (and missing parents) readable by its owner only; an existing one is tightened."""
    path.mkdir(mode=PRIVATE_DIR_MODE, parents=True, exist_ok=True)
    _tighten(path, PRIVATE_DIR_MODE)
    return path


def private_file(path: Path) -> Path:
    """Make sure a database file (and its WAL and shared-memory files, which SQLite gives the same mode) is 0600:
    an existing one is tightened; a missing one is created empty with that mode (an empty file is a valid SQLite
    database), so SQLite never makes it world-readable under a 022 umask."""
    for sibling in (path, Path(f"{path}-wal"), Path(f"{path}-shm"), Path(f"{path}-journal")):
        if sibling.exists():
            _tighten(sibling, PRIVATE_FILE_MODE)
    if not path.exists() and os.name != "nt":
        with contextlib.suppress(OSError):  # SQLite's own open then says what is wrong, in its words
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE_MODE))
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
