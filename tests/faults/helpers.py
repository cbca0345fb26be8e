"""Fault makers for the fault suite: a small full or read-only disk, a damaged page, a held lock, hostile files."""

from __future__ import annotations

import contextlib
import functools
import json
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

PAGE = 4096


def export_data(count: int, *, messages: int = 4, seed: int = 1) -> dict[str, Any]:
    """A LocalMind JSON export with ``count`` conversations of varied, partly long text."""
    rng = random.Random(seed)
    conversations = []
    for i in range(count):
        msgs = []
        for j in range(messages):
            words = " ".join(
                rng.choice(["alpha", "beta", "gamma", "delta", "你好", "世界"]) for _ in range(rng.randint(5, 400))
            )
            msgs.append(
                {
                    "role": "user" if j % 2 == 0 else "assistant",
                    "content": f"conversation {i} message {j}: {words}",
                    "created_at": 1_700_000_000 + i * 100 + j,
                }
            )
        conversations.append(
            {
                "id": uuid.UUID(int=rng.getrandbits(128)).hex,
                "title": f"Chat number {i}",
                "created_at": 1_700_000_000 + i * 100,
                "updated_at": 1_700_000_000 + i * 100 + messages,
                "messages": msgs,
            }
        )
    return {"format": "localmind-conversations", "version": 1, "conversations": conversations}


def damage_page(db_path: Path, page: int = 104, *, seed: int = 7) -> None:
    """Overwrite one page with random bytes after a checkpoint, as ``dd if=/dev/urandom ... conv=notrunc`` does."""
    db = sqlite3.connect(db_path)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    with open(db_path, "r+b") as f:
        f.seek(page * PAGE)
        f.write(random.Random(seed).randbytes(PAGE))


@functools.cache
def can_mount() -> bool:
    """Whether a tmpfs can be mounted here: root on Linux, and allowed to (a container may forbid it): tried once."""
    if not (
        sys.platform.startswith("linux") and hasattr(os, "geteuid") and os.geteuid() == 0 and shutil.which("mount")
    ):
        return False
    probe = Path(tempfile.mkdtemp(prefix="localmind-mount-probe-"))
    try:
        mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(probe)], capture_output=True)
        if mounted.returncode != 0:
            return False
        subprocess.run(["umount", str(probe)], capture_output=True)
        return True
    finally:
        with contextlib.suppress(OSError):
            probe.rmdir()


@contextlib.contextmanager
def small_disk(where: Path, size: str = "2m") -> Iterator[Path]:
    """A tmpfs of ``size`` mounted at ``where`` (root only); unmounted afterwards."""
    where.mkdir(parents=True, exist_ok=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)], check=True)
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def fill(folder: Path, leave_bytes: int = 0) -> Path:
    """Fill the disk holding ``folder`` until about ``leave_bytes`` are free; returns the filler file."""
    filler = folder / "filler.bin"
    with open(filler, "wb") as f, contextlib.suppress(OSError):
        while True:
            free = shutil.disk_usage(folder).free
            if free <= leave_bytes:
                break
            f.write(b"\0" * min(65536, max(4096, free - leave_bytes)))
            f.flush()
    return filler


def remount(where: Path, mode: str) -> None:
    subprocess.run(["mount", "-o", f"remount,{mode}", str(where)], check=True)


HOLD_LOCK = r"""
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], isolation_level=None)
if sys.argv[2] == "exclusive":
    db.execute("PRAGMA locking_mode = EXCLUSIVE")
db.execute("BEGIN EXCLUSIVE")
if sys.argv[2] == "exclusive":
    db.execute("CREATE TABLE IF NOT EXISTS held (x)")
    db.execute("COMMIT")
    db.execute("BEGIN EXCLUSIVE")
print("held", flush=True)
sys.stdin.read()
"""


@contextlib.contextmanager
def lock_held(db_path: Path, how: str = "write") -> Iterator[subprocess.Popen[str]]:
    """Another process holds the database's write lock (``write``) or all of it (``exclusive``) until the block ends."""
    child = subprocess.Popen(
        [sys.executable, "-c", HOLD_LOCK, str(db_path), how], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert child.stdout is not None and child.stdout.readline().strip() == "held"
    try:
        yield child
    finally:
        assert child.stdin is not None
        child.stdin.close()
        child.wait(10)
        child.stdout.close()


def write_json(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path
