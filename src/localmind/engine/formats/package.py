"""An onnxruntime-genai package whose decoder computes logits for every position it reads: load a copy whose
graph computes them for the last position only (``last_logits``), made once, never touching the user's folder.

The copy lives in ``<data>/prepared/<name>-<hash>/last-logits/``: the rewritten graph (a small file: the
weights stay in the package's external data) and hard links to every other file. Hard links, because
onnxruntime refuses external data whose real path lies outside the graph's own folder; a hard link changes
nothing in the user's file. Where they cannot be made (the data folder on another drive, a file system without
them) or the graph does not qualify, the package loads as it is, nothing is written, and the log says why. A
stamp beside a copy keys it by every file's size and modification time, so a later open only stats files.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import shutil
from pathlib import Path

from localmind.engine.formats.prepared import fingerprint, listing, prepared_root, slug

log = logging.getLogger(__name__)
REWRITE_VERSION = 1  # bump when the rewrite changes, so copies are made again
FOLDER = "last-logits"
_STAMP = "last-logits.json"
_SMALL = 16 * 1024 * 1024  # where a hard link is impossible, files up to this size are copied


def loadable_folder(folder: Path, data_dir: Path | None = None) -> Path:
    """The folder og should load for the package in ``folder``: the last-position copy, or ``folder`` itself."""
    try:
        root = prepared_root(data_dir).resolve()
        source = folder.resolve()
        if source == root or root in source.parents:  # a folder LocalMind prepared is rewritten already
            return folder
        return _prepared(source, root)
    except Exception as exc:  # never let a speed-up stop a model from loading
        log.info("logits computed for every position in %s: %s", folder, exc)
        return folder


def _prepared(source: Path, root: Path) -> Path:
    config = json.loads((source / "genai_config.json").read_text(encoding="utf-8"))
    decoder = config["model"]["decoder"]
    graph_rel = str(decoder["filename"])
    logits = str(decoder.get("outputs", {}).get("logits", "logits"))
    files = listing(source)
    stamp = fingerprint(source, files, REWRITE_VERSION)
    home = root / f"{slug(source.name)}-{hashlib.sha256(str(source).encode('utf-8')).hexdigest()[:12]}"
    target = home / FOLDER
    with contextlib.suppress(OSError, ValueError):
        previous = json.loads((home / _STAMP).read_text(encoding="utf-8"))
        if previous.get("inputs") == stamp and previous.get("applies") and (target / graph_rel).is_file():
            return target
    why = _build(source, target, files, graph_rel, logits)
    if why is not None:  # nothing is written for a graph that keeps its logits: its next open asks again (cheap)
        log.info("logits computed for every position in %s: %s", source, why)
        return source
    home.mkdir(parents=True, exist_ok=True)
    record = {"inputs": stamp, "applies": True}
    (home / _STAMP).write_text(json.dumps(record) + "\n", encoding="utf-8")
    log.info("%s loads with logits for the last position only (%s)", source, target)
    return target


def _build(source: Path, target: Path, files: list[str], graph_rel: str, logits: str) -> str | None:
    """Make the copy in ``target``; the reason it was not made, or None."""
    from localmind.engine.formats import last_logits, onnx_graph

    graph = onnx_graph.read_graph(source / graph_rel)
    try:
        plan = last_logits.plan(graph, logits)
    except last_logits.NoMatch as exc:
        return str(exc)
    building = target.with_name(target.name + ".building")
    shutil.rmtree(building, ignore_errors=True)
    building.mkdir(parents=True)
    try:
        for rel in files:
            if rel != graph_rel and not _link(source / rel, building / rel):
                return f"{rel} cannot be hard-linked into the data folder (another drive?)"
        onnx_graph.write_graph(
            source / graph_rel, building / graph_rel, plan.nodes, initializers=plan.initializers, outputs=plan.outputs
        )
        shutil.rmtree(target, ignore_errors=True)
        building.rename(target)
    finally:
        shutil.rmtree(building, ignore_errors=True)
    return None


def _link(src: Path, dst: Path) -> bool:
    dst.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(src, dst)
        return True
    except OSError:
        if src.stat().st_size > _SMALL:
            return False
        shutil.copy2(src, dst)
        return True


__all__ = ["FOLDER", "REWRITE_VERSION", "loadable_folder"]
