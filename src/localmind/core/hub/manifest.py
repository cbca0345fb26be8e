"""The manifest that makes a folder an installed model.

``<models>/<id>/localmind-manifest.json`` lists where the model came from and
every file with its size and hash. It is written last, inside the staging
folder, before the one rename that installs the model: a folder without a
complete manifest is a download that never finished and is never listed.
"""

from __future__ import annotations

import json
import os
import posixpath
import re
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from localmind.core.hub.hashing import GIT_SHA1, SHA256

MANIFEST_NAME = "localmind-manifest.json"
FORMAT = 1
SOURCES = ("hub", "folder", "reference", "zip")
_ID = re.compile(r"^[a-z0-9][a-z0-9._-]{0,79}$")


def now_iso() -> str:
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat()


def valid_model_id(model_id: str) -> bool:
    return bool(_ID.match(model_id)) and ".." not in model_id


def slugify(text: str) -> str:
    slug = re.sub(r"[^a-z0-9._-]+", "-", text.lower()).strip("-._")
    slug = re.sub(r"-{2,}", "-", slug)[:80].strip("-._")
    return slug or "model"


def safe_relative_path(path: str) -> bool:
    """True for a plain relative path that stays inside its folder (no '..', no root, no drive)."""
    if not path or "\\" in path or path.startswith("/") or re.match(r"^[A-Za-z]:", path):
        return False
    parts = path.split("/")
    return all(part not in ("", ".", "..") for part in parts) and posixpath.normpath(path) == path


@dataclass(frozen=True)
class ManifestFile:
    path: str  # relative, with "/"
    size: int
    algorithm: str  # SHA256 or GIT_SHA1
    hash: str


@dataclass(frozen=True)
class Manifest:
    id: str
    name: str
    source: str  # one of SOURCES
    files: tuple[ManifestFile, ...]
    total_bytes: int
    installed_at: str
    repo: str | None = None
    revision: str | None = None  # as asked for
    commit: str | None = None  # what it resolved to
    folder: str | None = None  # inside the repo
    endpoint: str | None = None
    origin_path: str | None = None  # imported from here; for "reference", the model is still there
    verified_at: str | None = None
    damaged: tuple[str, ...] = field(default=())  # files the last verification found wrong
    # Set when LocalMind generated files (an onnx-community download): the config, from what, which variant,
    # which graph rewrites, and the Hub's hash of each file it changed.
    generated: dict[str, Any] | None = None
    # "chat", or "embedding": a model for Documents' search, never offered to the chat (absent in older manifests).
    kind: str = "chat"
    format: int = FORMAT

    def to_json(self) -> str:
        data = asdict(self)
        data["files"] = [asdict(f) for f in self.files]
        data["damaged"] = list(self.damaged)
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"

    @classmethod
    def from_dict(cls, data: Any) -> Manifest:
        """Parse strictly: anything missing or odd raises ValueError (the folder then counts as not installed)."""
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ValueError("unknown manifest format")
        files_raw = data.get("files")
        if not isinstance(files_raw, list) or not files_raw:
            raise ValueError("no files")
        files = []
        for raw in files_raw:
            if not isinstance(raw, dict):
                raise ValueError("bad file entry")
            path, size, algorithm, digest = raw.get("path"), raw.get("size"), raw.get("algorithm"), raw.get("hash")
            if not isinstance(path, str) or not safe_relative_path(path):
                raise ValueError(f"bad path {path!r}")
            if (
                not isinstance(size, int)
                or size < 0
                or algorithm not in (SHA256, GIT_SHA1)
                or not isinstance(digest, str)
                or not digest
            ):
                raise ValueError(f"bad entry for {path}")
            files.append(ManifestFile(path, size, str(algorithm), digest))
        model_id, source = data.get("id"), data.get("source")
        if not isinstance(model_id, str) or not valid_model_id(model_id) or source not in SOURCES:
            raise ValueError("bad id or source")
        for key in ("name", "installed_at"):
            if not isinstance(data.get(key), str):
                raise ValueError(f"no {key}")
        total = data.get("total_bytes")
        if not isinstance(total, int) or total != sum(f.size for f in files):
            raise ValueError("total_bytes does not add up")

        def opt(key: str) -> str | None:
            value = data.get(key)
            return value if isinstance(value, str) else None

        damaged = data.get("damaged") or []
        generated = data.get("generated")
        return cls(
            id=model_id,
            name=data["name"],
            source=str(source),
            files=tuple(files),
            total_bytes=total,
            installed_at=data["installed_at"],
            repo=opt("repo"),
            revision=opt("revision"),
            commit=opt("commit"),
            folder=opt("folder"),
            endpoint=opt("endpoint"),
            origin_path=opt("origin_path"),
            verified_at=opt("verified_at"),
            damaged=tuple(str(d) for d in damaged) if isinstance(damaged, list) else (),
            generated=generated if isinstance(generated, dict) else None,
            kind="embedding" if data.get("kind") == "embedding" else "chat",
        )

    def with_verification(self, damaged: list[str]) -> Manifest:
        return replace(self, verified_at=now_iso(), damaged=tuple(damaged))

    def describe_source(self) -> str:
        if self.source == "hub" and self.repo:
            variant = self.generated.get("variant") if self.generated else None
            where = f" ({self.folder})" if self.folder else (f" (variant {variant})" if variant else "")
            commit = f" at {self.commit[:12]}" if self.commit else ""
            return f"{self.repo}{where}{commit}"
        if self.source == "reference":
            return f"used in place from {self.origin_path}"
        return f"imported from {self.origin_path}"


def read_manifest(folder: Path) -> Manifest | None:
    """The folder's manifest, or None when it has no complete one."""
    try:
        return Manifest.from_dict(json.loads((folder / MANIFEST_NAME).read_text(encoding="utf-8")))
    except (OSError, ValueError):
        return None


def write_manifest(folder: Path, manifest: Manifest) -> None:
    """Write atomically (temp file, fsync, replace): a crash leaves the old manifest or the new one, never half."""
    target = folder / MANIFEST_NAME
    tmp = folder / (MANIFEST_NAME + ".tmp")
    with tmp.open("w", encoding="utf-8") as handle:
        handle.write(manifest.to_json())
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, target)
