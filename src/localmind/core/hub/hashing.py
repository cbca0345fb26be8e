"""The hashes the Hub lists: sha256 for LFS files, the git blob sha1 for the others."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

SHA256 = "sha256"
GIT_SHA1 = "git-sha1"
READ_CHUNK = 4 * 1024 * 1024


class Hasher(Protocol):
    def update(self, data: bytes, /) -> None: ...

    def hexdigest(self) -> str: ...


def new_hasher(algorithm: str, size: int) -> Hasher:
    """A hasher for a file of ``size`` bytes (git's blob hash covers a header with the size)."""
    if algorithm == SHA256:
        return hashlib.sha256()
    if algorithm == GIT_SHA1:
        hasher = hashlib.sha1(usedforsecurity=False)
        hasher.update(b"blob %d\0" % size)
        return hasher
    raise ValueError(f"unknown hash algorithm {algorithm!r}")


def hash_file(
    path: Path,
    algorithm: str,
    *,
    on_bytes: Callable[[int], None] | None = None,
    check: Callable[[], None] | None = None,
) -> str:
    """Hash a whole file; ``check`` may raise to stop between chunks."""
    size = path.stat().st_size
    hasher = new_hasher(algorithm, size)
    with path.open("rb") as handle:
        while chunk := handle.read(READ_CHUNK):
            hasher.update(chunk)
            if on_bytes is not None:
                on_bytes(len(chunk))
            if check is not None:
                check()
    return hasher.hexdigest()


def feed_file(hasher: Hasher, path: Path, length: int) -> None:
    """Feed the first ``length`` bytes of ``path`` (a partial download being resumed) into ``hasher``."""
    remaining = length
    with path.open("rb") as handle:
        while remaining > 0:
            chunk = handle.read(min(READ_CHUNK, remaining))
            if not chunk:
                raise OSError(f"{path} is shorter than {length} bytes")
            hasher.update(chunk)
            remaining -= len(chunk)
