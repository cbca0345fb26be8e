"""After an onnx-community download: generate genai_config.json, apply the graph rewrites, record what was done.

The engine's ``formats`` package does the work inside the staging folder (LocalMind owns it, so the generated
files live in the installed model's folder). Here: progress for the download row, and the manifest's record of
what was generated, from what, which variant, which rewrites — and the hashes of the files as installed, so
``verify`` checks the rewritten graph, with the Hub's hash of each changed file kept beside it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from localmind.core.hub.community import CommunityPlan
from localmind.core.hub.errors import DownloadStopped, HubError
from localmind.core.hub.hashing import SHA256, hash_file
from localmind.core.hub.manifest import MANIFEST_NAME, ManifestFile, now_iso
from localmind.errors import Phrase, UserFacingError

# Files in the staging folder that are LocalMind's bookkeeping, never part of the model.
_SKIP_SUFFIXES = (".part", ".tmp", ".rewrite")
_SKIP_NAMES = (MANIFEST_NAME, ".localmind-download.json")


def _stamps(folder: Path) -> dict[str, tuple[int, int]]:
    out = {}
    for path in folder.rglob("*"):
        rel = path.relative_to(folder).as_posix()
        if path.is_file() and not rel.startswith(".") and not rel.endswith(_SKIP_SUFFIXES) and rel not in _SKIP_NAMES:
            stat = path.stat()
            out[rel] = (stat.st_size, stat.st_mtime_ns)
    return out


def prepare_community_folder(
    staging: Path,
    plan: CommunityPlan,
    entries: list[ManifestFile],
    *,
    on_step: Callable[[str], None],
    check: Callable[[], None],
) -> tuple[list[ManifestFile], dict[str, Any]]:
    """Make the staged download loadable; return the manifest's file entries as installed and its record."""
    from localmind.engine.formats.prepare import install_in_place

    before = _stamps(staging)

    def progress(fraction: float, what: str) -> None:
        check()
        on_step(Phrase("{what} ({percent}%)", what=what, percent=f"{100 * fraction:.0f}"))

    on_step(Phrase("Preparing the model for this computer"))
    try:
        prepared = install_in_place(staging, variant=plan.variant.name, device="cpu", progress=progress)
    except DownloadStopped:
        raise
    except Exception as exc:  # onnx raises its own errors for a graph it cannot parse
        detail = (
            exc.message_phrase()
            if isinstance(exc, UserFacingError)
            else Phrase("{file} is not a readable ONNX graph", file=plan.variant.onnx_path)
        )
        raise HubError.say(
            "{repo} downloaded fine, but LocalMind could not prepare it to run: {reason}.",
            "Pick another model or variant.",
            repo=plan.repo,
            reason=detail,
        ) from exc
    after = _stamps(staging)
    changed = sorted(rel for rel, stamp in after.items() if before.get(rel) != stamp)
    by_path = {e.path: e for e in entries}
    hub_hashes = {rel: by_path[rel].hash for rel in changed if rel in by_path}
    result = [e for e in entries if e.path not in changed]
    for rel in changed:
        check()
        path = staging / rel
        result.append(ManifestFile(rel, path.stat().st_size, SHA256, hash_file(path, SHA256, check=check)))
    generated_files = sorted(rel for rel in changed if rel not in by_path)
    record_path = staging / "localmind-generated.json"
    try:
        record = json.loads(record_path.read_text(encoding="utf-8")) if record_path.is_file() else {}
    except (OSError, ValueError):
        record = {}
    rewrites = [n for n in prepared.notes if "accuracy_level" in n or "rewrit" in n.lower()]
    generated: dict[str, Any] = {
        "layout": "onnx-community",
        "config": "genai_config.json",
        "generated_at": now_iso(),
        "from": sorted({"config.json", plan.variant.onnx_path, *_sources(staging)}),
        "variant": plan.variant.name,
        "quantization": plan.variant.quantization,
        "onnx": plan.variant.onnx_path,
        "variants_available": [v.name for v in plan.variants],
        "model_type": plan.model_type,
        "rewrites": rewrites,
        "notes": list(prepared.notes),
        "generated_files": generated_files,
        "changed_files": {rel: {"hub_hash": h} for rel, h in hub_hashes.items()},
        "record": record if isinstance(record, dict) else {},
    }
    return sorted(result, key=lambda e: e.path), generated


def _sources(staging: Path) -> list[str]:
    return [
        name
        for name in ("generation_config.json", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json")
        if (staging / name).is_file()
    ]
