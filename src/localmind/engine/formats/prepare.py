"""Make an onnx-community / Optimum export loadable by onnxruntime-genai without touching the user's folder.

For a folder the user picked, LocalMind builds ``<data>/prepared/<name>-<hash>/<variant>/``: links to the
user's files (tokenizer, config, the chosen variant's graph and external data), plus what LocalMind generates
(genai_config.json, tokenizer_config.json when the folder lacks one, and the rewritten graph from
``optimize``). og loads that folder. The user's folder is only read. A prepared folder is reused while the
files it was made from are unchanged (size and modification time) and rebuilt otherwise.

Links: symbolic links. Where they cannot be made (Windows without Developer Mode or the privilege), weight
files are hard-linked when on the same drive and copied otherwise; small files are copied. One exception:
onnxruntime refuses external data whose real path lies outside the graph's own folder, so when LocalMind
writes a rewritten graph (a real file) its external data is hard-linked; where that is impossible (the data
folder on another drive) the original graph is linked instead, untuned, and the notes say so. A hard link
changes nothing in the user's file (bytes and modification time stay; only its link count grows).

For a download the model manager calls :func:`install_in_place` on its staging folder: the generated files
then live inside the installed model's own folder.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from localmind.engine.formats import genai_config, variants
from localmind.engine.formats.prepared import PREPARED, fingerprint, listing, prepared_root, slug
from localmind.engine.types import ModelLoadError

Progress = Callable[[float, str], None]  # (fraction 0..1, what is happening)
_STAMP = "localmind-prepared.json"
_GPU_WHEELS = ("onnxruntime-genai-cuda", "onnxruntime-genai-directml", "onnxruntime-genai-winml")


@dataclass(frozen=True)
class PreparedModel:
    path: Path  # the folder og loads
    source: Path  # the user's folder (or the installed model's)
    variant: variants.Variant
    available: tuple[str, ...]  # every variant's name in the source
    link_mode: str  # "symlink", "hardlink/copy", or "in place"
    notes: tuple[str, ...] = ()


def is_community_folder(folder: Path) -> bool:
    return folder.is_dir() and variants.is_community_layout(listing(folder))


def resolve_device(device: str) -> str:
    """The device a variant is chosen for: "auto" means a GPU only when a GPU build of og is installed."""
    if device != "auto":
        return device
    from importlib import metadata

    for dist in _GPU_WHEELS:
        with contextlib.suppress(metadata.PackageNotFoundError):
            metadata.version(dist)
            return "dml" if "cuda" not in dist else "cuda"
    return "cpu"


def select_variant(folder: Path, files: list[str], variant: str | None, device: str) -> variants.Variant:
    found = variants.find_variants(files)
    names = ", ".join(v.name for v in found)
    if variant:
        for v in found:
            if v.name == variant:
                return v
        raise ModelLoadError.say(
            "{folder} has no {variant} variant.",
            "Variants in this folder: {names}.",
            folder=folder,
            variant=repr(variant),
            names=names or "none",
        )
    chosen = variants.choose_variant(found, resolve_device(device))
    if chosen is None:
        raise ModelLoadError.say(
            "{folder} has no ONNX decoder graph (onnx/model*.onnx).", "Pick another folder.", folder=folder
        )
    return chosen


def check_folder(folder: Path) -> dict[str, Any]:
    """config.json of ``folder`` if its architecture runs here; else a ModelLoadError naming it."""
    try:
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ModelLoadError.say(
            "config.json in {folder} cannot be read: {reason}", "Pick another folder.", folder=folder, reason=exc
        ) from exc
    if not isinstance(config, dict):
        raise ModelLoadError.say("config.json in {folder} is not a JSON object.", "Pick another folder.", folder=folder)
    problem = variants.architecture_problem(config)
    if problem:
        source, values = problem
        raise ModelLoadError.say(source, "Pick a model of a supported architecture.", **values)
    return config


class _Linker:
    """Symlinks where the system allows them; else hard links (weights) or copies."""

    def __init__(self) -> None:
        self.mode = "symlink"

    def link(self, src: Path, dst: Path, big: bool) -> None:
        dst.parent.mkdir(parents=True, exist_ok=True)
        if self.mode == "symlink":
            try:
                os.symlink(src, dst)
                return
            except (OSError, NotImplementedError):
                self.mode = "hardlink/copy"
        if big:
            try:
                os.link(src, dst)
                return
            except OSError:
                pass
        shutil.copy2(src, dst)


def prepare_folder(
    folder: str | Path,
    *,
    variant: str | None = None,
    device: str = "auto",
    data_dir: Path | None = None,
    optimize: bool = True,
    progress: Progress | None = None,
) -> PreparedModel:
    """Build (or reuse) the loadable folder for the onnx-community export in ``folder``; never write to ``folder``."""
    source = Path(folder).expanduser().resolve()
    files = listing(source)
    config = check_folder(source)
    chosen = select_variant(source, files, variant, device)
    available = tuple(v.name for v in variants.find_variants(files))
    small = [f for f in variants.small_files(files) if not f.lower().startswith(("readme", "license", "notice"))]
    inputs = [*small, *chosen.files]
    stamp = fingerprint(source, inputs, genai_config.FORMAT_VERSION)
    stamp["optimize"] = optimize
    digest = hashlib.sha256(str(source).encode("utf-8")).hexdigest()[:12]
    target = prepared_root(data_dir) / f"{slug(source.name)}-{digest}" / slug(chosen.name)
    with contextlib.suppress(OSError, json.JSONDecodeError, UnicodeDecodeError):
        previous = json.loads((target / _STAMP).read_text(encoding="utf-8"))
        if previous.get("inputs") == stamp and (target / "genai_config.json").is_file():
            return PreparedModel(target, source, chosen, available, str(previous.get("link_mode", "symlink")))
    building = target.with_name(target.name + ".building")
    shutil.rmtree(building, ignore_errors=True)
    building.mkdir(parents=True)
    linker = _Linker()
    for rel in small:
        linker.link(source / rel, building / rel, big=False)
    notes: list[str] = []
    if not (source / "tokenizer_config.json").is_file():
        # og looks for tokenizer_config.json next to genai_config.json and fails without it.
        (building / "tokenizer_config.json").write_text(json.dumps(_tokenizer_config(source)) + "\n", encoding="utf-8")
        notes.append("generated tokenizer_config.json")
    rewritten = 0
    if optimize:
        from localmind.engine.formats import optimize as optimizer

        graph = building / chosen.onnx_path
        report = optimizer.rewrite_graph(source / chosen.onnx_path, graph, progress=progress, config=config)
        rewritten = report.changed_nodes
        # onnxruntime refuses external data whose real path is outside the graph's folder, so next to a
        # rewritten graph (a real file here) the weights must be hard links, not symbolic links.
        if rewritten and not _hard_link_all(source, building, chosen.data_paths):
            graph.unlink()
            rewritten = 0
            notes.append("the tuned graph was not used: the data folder is on another drive than the model")
        notes.extend(report.notes if rewritten else ())
    if not rewritten:
        linker.link(source / chosen.onnx_path, building / chosen.onnx_path, big=True)
        for rel in chosen.data_paths:
            linker.link(source / rel, building / rel, big=True)
    record = {"source": str(source), "variant": chosen.name, "rewritten_nodes": rewritten, "link_mode": linker.mode}
    record["rewrites"] = list(notes)
    genai_config.write_genai_config(building, chosen.onnx_path, extra_record=record)
    (building / _STAMP).write_text(json.dumps({"inputs": stamp, "link_mode": linker.mode}) + "\n", encoding="utf-8")
    if linker.mode != "symlink":
        notes.append("symbolic links are not allowed here: LocalMind hard-linked or copied the files it needs")
    shutil.rmtree(target, ignore_errors=True)
    building.rename(target)
    return PreparedModel(target, source, chosen, available, linker.mode, tuple(notes))


def _hard_link_all(source: Path, building: Path, rels: tuple[str, ...]) -> bool:
    made: list[Path] = []
    for rel in rels:
        dst = building / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.link(source / rel, dst)
        except OSError:
            for path in made:
                path.unlink()
            return False
        made.append(dst)
    return True


def install_in_place(
    folder: str | Path, *, variant: str | None = None, device: str = "auto", progress: Progress | None = None
) -> PreparedModel:
    """For a download being installed (the staging folder LocalMind owns): write genai_config.json and the
    rewritten graph into the folder itself, so it loads as an onnxruntime-genai package afterwards."""
    path = Path(folder).resolve()
    files = listing(path)
    config = check_folder(path)
    chosen = select_variant(path, files, variant, device)
    notes: list[str] = []
    from localmind.engine.formats import optimize as optimizer

    graph = path / chosen.onnx_path
    tmp = graph.with_name(graph.name + ".rewrite")
    report = optimizer.rewrite_graph(graph, tmp, progress=progress, config=config)
    if report.written:
        os.replace(tmp, graph)
    notes.extend(report.notes)
    if not (path / "tokenizer_config.json").is_file():
        (path / "tokenizer_config.json").write_text(json.dumps(_tokenizer_config(path)) + "\n", encoding="utf-8")
        notes.append("generated tokenizer_config.json")
    record = {"variant": chosen.name, "rewritten_nodes": report.changed_nodes, "rewrites": list(report.notes)}
    genai_config.write_genai_config(path, chosen.onnx_path, extra_record=record)
    available = tuple(v.name for v in variants.find_variants(files))
    return PreparedModel(path, path, chosen, available, "in place", tuple(notes))


def _tokenizer_config(folder: Path) -> dict[str, Any]:
    """A minimal tokenizer_config.json from special_tokens_map.json (og needs the file to exist)."""
    config: dict[str, Any] = {"tokenizer_class": "PreTrainedTokenizerFast"}
    with contextlib.suppress(OSError, json.JSONDecodeError, UnicodeDecodeError):
        special = json.loads((folder / "special_tokens_map.json").read_text(encoding="utf-8"))
        if isinstance(special, dict):
            for key in ("bos_token", "eos_token", "pad_token", "unk_token"):
                if key in special:
                    config[key] = special[key]
    with contextlib.suppress(OSError, UnicodeDecodeError):
        config["chat_template"] = (folder / "chat_template.jinja").read_text(encoding="utf-8")
    return config


__all__ = [
    "PREPARED",
    "PreparedModel",
    "check_folder",
    "install_in_place",
    "is_community_folder",
    "listing",
    "prepare_folder",
    "prepared_root",
    "resolve_device",
    "select_variant",
]
