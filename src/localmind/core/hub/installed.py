"""Installed models: list, install (one rename), remove, verify again."""

from __future__ import annotations

import logging
import os
import shutil
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from localmind import paths
from localmind.core.hub.control import TransferControl
from localmind.core.hub.hashing import hash_file
from localmind.core.hub.manifest import MANIFEST_NAME, Manifest, read_manifest, valid_model_id, write_manifest
from localmind.errors import Phrase, UserFacingError

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class InstalledModel:
    id: str
    folder: Path  # <models>/<id>
    model_path: Path  # where the model files are (the folder itself, or the referenced one)
    manifest: Manifest
    size_on_disk: int
    problem: str | None = None  # set when the model must not be loaded as it is

    @property
    def ok(self) -> bool:
        return self.problem is None

    @property
    def name(self) -> str:
        return self.manifest.name

    @property
    def kind(self) -> str:
        """ "chat", or "embedding" (Documents' search model: not for the chat's model menu)."""
        return self.manifest.kind


@dataclass(frozen=True)
class VerifyReport:
    model_id: str
    checked_files: int
    damaged: list[str]  # "path: what is wrong"

    @property
    def ok(self) -> bool:
        return not self.damaged


def _model_path(folder: Path, manifest: Manifest) -> Path:
    if manifest.source == "reference" and manifest.origin_path:
        return Path(manifest.origin_path)
    return folder


def _quick_problem(model_path: Path, manifest: Manifest) -> str | None:
    """Cheap checks (existence and sizes): hashing every file on each listing would take minutes."""
    if manifest.damaged:
        return Phrase("failed verification ({files})", files=", ".join(manifest.damaged[:3]))
    if not model_path.is_dir():
        return Phrase("its folder {folder} is gone", folder=model_path)
    for entry in manifest.files:
        try:
            size = (model_path / entry.path).stat().st_size
        except OSError:
            return Phrase("{file} is missing", file=entry.path)
        if size != entry.size:
            return Phrase("{file} has the wrong size", file=entry.path)
    return None


def _load(folder: Path) -> InstalledModel | None:
    manifest = read_manifest(folder)
    if manifest is None or manifest.id != folder.name:
        return None
    model_path = _model_path(folder, manifest)
    problem = _quick_problem(model_path, manifest)
    size = manifest.total_bytes if manifest.source != "reference" else 0
    return InstalledModel(manifest.id, folder, model_path, manifest, size, problem)


def list_installed() -> list[InstalledModel]:
    """Every folder under the models folder with a complete manifest, sorted by name. Others are unfinished or foreign."""
    root = paths.models_dir()
    if not root.is_dir():
        return []
    found = []
    for folder in sorted(root.iterdir()):
        if folder.name.startswith(".") or not folder.is_dir():
            continue
        model = _load(folder)
        if model is not None:
            found.append(model)
    return sorted(found, key=lambda m: m.name.lower())


def get_installed(model_id: str) -> InstalledModel | None:
    if not valid_model_id(model_id):
        return None
    folder = paths.models_dir() / model_id
    return _load(folder) if folder.is_dir() else None


def require_installed(model_id: str) -> InstalledModel:
    model = get_installed(model_id)
    if model is None:
        names = ", ".join(m.id for m in list_installed()) or "none"
        raise UserFacingError.say(
            "No installed model is called {model} (installed: {names}).",
            "Run `localmind models list`.",
            model=repr(model_id),
            names=names,
        )
    return model


def trash_dir() -> Path:
    return paths.staging_dir() / ".trash"


def discard_folder(folder: Path) -> None:
    """Delete ``folder`` so that it vanishes at once: rename it into the trash first, then delete it there.

    A folder half-deleted in place could look like a model; one in the trash never does.
    """
    if not folder.exists():
        return
    trash = trash_dir()
    trash.mkdir(parents=True, exist_ok=True)
    target = trash / f"{folder.name}-{uuid.uuid4().hex[:8]}"
    try:
        os.replace(folder, target)
    except OSError:
        target = folder  # another disk (a referenced import never gets here) or locked: delete in place
    shutil.rmtree(target, ignore_errors=True)
    if target.exists():
        log.warning("Could not delete everything in %s; it will be retried at the next start.", target)


def empty_trash() -> None:
    shutil.rmtree(trash_dir(), ignore_errors=True)


def install_staged(staged: Path, model_id: str) -> Path:
    """Move a complete staged folder (manifest included) into place with one rename."""
    if read_manifest(staged) is None:
        raise RuntimeError(f"{staged} has no complete manifest")  # a bug: callers write it first
    target = paths.models_dir() / model_id
    if target.exists():
        if read_manifest(target) is not None:
            raise UserFacingError.say(
                "A model called {model} is already installed.",
                "Remove it first, or pick another name.",
                model=repr(model_id),
            )
        discard_folder(target)  # leftovers of something that never finished installing
    os.replace(staged, target)
    return target


def remove_model(model_id: str) -> InstalledModel:
    """Delete an installed model. A model imported by reference keeps its files where they are; only LocalMind's record goes."""
    model = require_installed(model_id)
    # The manifest goes first: from then on the folder is not a model, whatever happens to the rest.
    (model.folder / MANIFEST_NAME).unlink()
    discard_folder(model.folder)
    return model


def verify_model(
    model_id: str,
    *,
    on_bytes: Callable[[int], None] | None = None,
    control: TransferControl | None = None,
) -> VerifyReport:
    """Hash every file again and record the result in the manifest (a damaged model is then not offered for loading)."""
    model = require_installed(model_id)
    damaged: list[str] = []
    for entry in model.manifest.files:
        path = model.model_path / entry.path
        try:
            size = path.stat().st_size
        except OSError:
            damaged.append(f"{entry.path}: missing")
            continue
        if size != entry.size:
            damaged.append(f"{entry.path}: {size} bytes, expected {entry.size}")
            continue
        digest = hash_file(path, entry.algorithm, on_bytes=on_bytes, check=control.check if control else None)
        if digest != entry.hash:
            damaged.append(f"{entry.path}: content changed ({entry.algorithm} differs)")
    write_manifest(model.folder, model.manifest.with_verification([d.split(":")[0] for d in damaged]))
    return VerifyReport(model_id, len(model.manifest.files), damaged)
