"""Import a model the user already has: a folder (copied, or used where it is) or a .zip."""

from __future__ import annotations

import hashlib
import stat
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path

from localmind import paths
from localmind.core.catalog import free_disk_bytes
from localmind.core.hub.hashing import READ_CHUNK, SHA256, hash_file
from localmind.core.hub.installed import InstalledModel, discard_folder, get_installed, install_staged
from localmind.core.hub.listing import CONFIG_NAME
from localmind.core.hub.manifest import (
    MANIFEST_NAME,
    Manifest,
    ManifestFile,
    now_iso,
    safe_relative_path,
    slugify,
    valid_model_id,
    write_manifest,
)
from localmind.engine.validate import validate_model_folder
from localmind.errors import Phrase, UserFacingError

ByteCallback = Callable[[int], None]
_SKIP = {MANIFEST_NAME, ".DS_Store", "Thumbs.db"}


def unique_model_id(base: str) -> str:
    base = slugify(base)
    taken = {p.name for p in paths.models_dir().iterdir()} if paths.models_dir().is_dir() else set()
    candidate, n = base, 2
    while candidate in taken or get_installed(candidate) is not None:
        candidate, n = f"{base}-{n}", n + 1
    return candidate


def _model_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file() and p.name not in _SKIP and not p.is_symlink())


def _check_id(model_id: str | None, fallback: str) -> str:
    if model_id is None:
        return unique_model_id(fallback)
    if not valid_model_id(model_id):
        raise UserFacingError.say(
            "{model} is not a valid model id.",
            "Use lower-case letters, digits, '.', '-' and '_'.",
            model=repr(model_id),
        )
    if (paths.models_dir() / model_id).exists():
        raise UserFacingError.say(
            "A model called {model} already exists.",
            "Pick another name, or remove that model first.",
            model=repr(model_id),
        )
    return model_id


def _name_for(folder: Path) -> str:
    if folder.name.lower().startswith(("cpu", "cuda", "dml", "gpu")) and folder.parent.name:
        return f"{folder.parent.name} ({folder.name})"
    return folder.name


def _copy_hashing(src: Path, dst: Path, on_bytes: ByteCallback | None) -> str:
    hasher = hashlib.sha256()
    dst.parent.mkdir(parents=True, exist_ok=True)
    with src.open("rb") as reader, dst.open("wb") as writer:
        while chunk := reader.read(READ_CHUNK):
            writer.write(chunk)
            hasher.update(chunk)
            if on_bytes is not None:
                on_bytes(len(chunk))
    return hasher.hexdigest()


def _check_disk(needed: int) -> None:
    free = free_disk_bytes(paths.models_dir())
    if free is not None and needed + 50_000_000 > free:
        raise UserFacingError.say(
            "Not enough disk space to import: {needed} GB needed, {free} GB free.",
            "Free some space, or import the folder by reference (it stays where it is).",
            needed=f"{needed / 1e9:.2f}",
            free=f"{free / 1e9:.2f}",
        )


def import_folder(
    source: str | Path,
    *,
    copy: bool = True,
    model_id: str | None = None,
    on_bytes: ByteCallback | None = None,
    variant: str | None = None,
    progress: Callable[[float, str], None] | None = None,
) -> InstalledModel:
    """Install a model folder: copied into LocalMind's models folder, or (``copy=False``) used where it is.

    An onnx-community / Optimum export (no genai_config.json) is imported as one variant (``variant``, or the
    best for this computer): only that variant's graph and weights plus the small files are copied, then
    made an onnxruntime-genai package in the staging folder (generated genai_config.json, the tuned graph;
    ``progress`` reports the rewrite). By reference, the folder stays as it is and is prepared when loaded.
    """
    from localmind.engine.formats import prepare

    given = Path(source).expanduser()
    if given.is_dir() and prepare.is_community_folder(given):
        return _import_community(given.resolve(), copy, model_id, on_bytes, variant, progress)
    folder = validate_model_folder(source).path
    _refuse_models_folder(folder)
    model_id = _check_id(model_id, _name_for(folder))
    files = _model_files(folder)
    staging = paths.staging_dir() / f"import-{model_id}"
    discard_folder(staging)
    staging.mkdir(parents=True)
    try:
        entries = []
        if copy:
            _check_disk(sum(f.stat().st_size for f in files))
        for path in files:
            relative = path.relative_to(folder).as_posix()
            if copy:
                digest = _copy_hashing(path, staging / relative, on_bytes)
            else:
                digest = hash_file(path, SHA256, on_bytes=on_bytes)
            entries.append(ManifestFile(relative, path.stat().st_size, SHA256, digest))
        if copy:
            validate_model_folder(staging)
        _install(staging, model_id, _name_for(folder), copy, folder, entries)
    except BaseException:
        discard_folder(staging)
        raise
    return _installed(model_id)


def _import_community(
    folder: Path,
    copy: bool,
    model_id: str | None,
    on_bytes: ByteCallback | None,
    variant: str | None,
    progress: Callable[[float, str], None] | None,
) -> InstalledModel:
    from localmind.engine.formats import prepare, variants

    _refuse_models_folder(folder)
    prepare.check_folder(folder)  # an architecture LocalMind cannot run is refused before anything is copied
    listing = prepare.listing(folder)
    chosen = prepare.select_variant(folder, listing, variant, "auto")
    small = [f for f in variants.small_files(listing) if (folder / f).is_file() and not (folder / f).is_symlink()]
    rels = sorted({*small, *chosen.files})
    name = f"{folder.name} ({chosen.name})"
    model_id = _check_id(model_id, name)
    staging = paths.staging_dir() / f"import-{model_id}"
    discard_folder(staging)
    staging.mkdir(parents=True)
    try:
        digests: dict[str, str] = {}
        if copy:
            _check_disk(sum((folder / r).stat().st_size for r in rels))
            for rel in rels:
                digests[rel] = _copy_hashing(folder / rel, staging / rel, on_bytes)
            before = {rel: (staging / rel).stat().st_mtime_ns for rel in rels}
            prepare.install_in_place(staging, variant=chosen.name, progress=progress)
            validate_model_folder(staging)
            entries = []
            for path in _model_files(staging):
                rel = path.relative_to(staging).as_posix()
                unchanged = rel in digests and before.get(rel) == path.stat().st_mtime_ns
                digest = digests[rel] if unchanged else hash_file(path, SHA256)
                entries.append(ManifestFile(rel, path.stat().st_size, SHA256, digest))
        else:
            validate_model_folder(folder, variant=chosen.name)  # prepared now, so the first load is quick
            entries = [
                ManifestFile(
                    rel, (folder / rel).stat().st_size, SHA256, hash_file(folder / rel, SHA256, on_bytes=on_bytes)
                )
                for rel in rels
            ]
        _install(staging, model_id, name, copy, folder, entries)
    except BaseException:
        discard_folder(staging)
        raise
    return _installed(model_id)


def _refuse_models_folder(folder: Path) -> None:
    models = paths.models_dir().resolve()
    if folder == models or models in folder.parents:
        raise UserFacingError.say(
            "{folder} is already inside LocalMind's models folder.", "Pick a folder elsewhere.", folder=folder
        )


def _install(staging: Path, model_id: str, name: str, copy: bool, folder: Path, entries: list[ManifestFile]) -> None:
    """Write the manifest of what was imported (copied, or referenced where it is) and install the staging folder."""
    manifest = Manifest(
        id=model_id,
        name=name,
        source="folder" if copy else "reference",
        files=tuple(entries),
        total_bytes=sum(e.size for e in entries),
        installed_at=now_iso(),
        origin_path=str(folder),
        verified_at=now_iso(),
    )
    write_manifest(staging, manifest)
    install_staged(staging, model_id)


def _installed(model_id: str) -> InstalledModel:
    installed = get_installed(model_id)
    assert installed is not None
    return installed


def _check_member(info: zipfile.ZipInfo) -> str:
    name = info.filename.replace("\\", "/")
    mode = info.external_attr >> 16
    if stat.S_ISLNK(mode):
        raise UserFacingError.say(
            "The zip contains a link ({file}); it was not imported.",
            "Unpack it yourself and import the folder.",
            file=info.filename,
        )
    relative = name.rstrip("/") if info.is_dir() else name
    if relative and not safe_relative_path(relative):
        raise UserFacingError.say(
            "The zip contains a path that leaves its folder ({file}); nothing was imported.",
            "The file may be malicious; only import zips from sources you trust.",
            file=repr(info.filename),
        )
    return relative


def import_zip(
    zip_path: str | Path, *, model_id: str | None = None, on_bytes: ByteCallback | None = None
) -> InstalledModel:
    """Unpack a zipped model folder safely (no path may leave the target) and install it."""
    zip_path = Path(zip_path).expanduser()
    try:
        archive = zipfile.ZipFile(zip_path)
    except FileNotFoundError as exc:
        raise UserFacingError.say("File not found: {path}.", path=zip_path) from exc
    except (zipfile.BadZipFile, OSError) as exc:
        raise UserFacingError.say(
            "{file} is not a readable zip file ({reason}).", "Download it again.", file=zip_path.name, reason=exc
        ) from exc
    with archive:
        members = [(info, _check_member(info)) for info in archive.infolist()]
        files = [(info, rel) for info, rel in members if not info.is_dir() and rel]
        if not any(rel.split("/")[-1] == CONFIG_NAME for _, rel in files):
            raise UserFacingError.say(
                "{file} holds no {config}: it is not an onnxruntime-genai model.",
                file=zip_path.name,
                config=CONFIG_NAME,
            )
        _check_disk(sum(info.file_size for info, _ in files))
        unpack = paths.staging_dir() / f"unzip-{slugify(zip_path.stem)}"
        discard_folder(unpack)
        unpack.mkdir(parents=True)
        try:
            hashes: dict[str, str] = {}
            for info, relative in files:
                try:
                    hashes[relative] = _extract(archive, info, unpack / relative, on_bytes)
                except (zipfile.BadZipFile, EOFError, zlib.error) as exc:  # a size or checksum that lies (store)
                    raise _lying_zip(zip_path, info, str(exc)) from exc
                if (unpack / relative).stat().st_size != info.file_size:
                    raise _lying_zip(zip_path, info, Phrase("it is smaller than the zip says"))
            model_root = _find_model_root(unpack)
            prefix = "" if model_root == unpack else model_root.relative_to(unpack).as_posix()
            validate_model_folder(model_root)
            chosen_id = _check_id(model_id, _name_for(model_root) if prefix else zip_path.stem)
            entries = []
            for path in _model_files(model_root):
                relative = path.relative_to(model_root).as_posix()
                key = f"{prefix}/{relative}" if prefix else relative
                entries.append(ManifestFile(relative, path.stat().st_size, SHA256, hashes[key]))
            manifest = Manifest(
                id=chosen_id,
                name=_name_for(model_root) if prefix else zip_path.stem,
                source="zip",
                files=tuple(entries),
                total_bytes=sum(e.size for e in entries),
                installed_at=now_iso(),
                origin_path=str(zip_path.resolve()),
                verified_at=now_iso(),
            )
            write_manifest(model_root, manifest)
            install_staged(model_root, chosen_id)
        finally:
            discard_folder(unpack)
    installed = get_installed(chosen_id)
    assert installed is not None
    return installed


def _lying_zip(zip_path: Path, info: zipfile.ZipInfo, problem: str) -> UserFacingError:
    return UserFacingError.say(
        "{zip} is damaged or not what it claims: {file} does not match its recorded size and "
        "checksum ({problem}). Nothing was imported.",
        "Download the zip again, or import the model folder itself.",
        zip=zip_path.name,
        file=info.filename,
        problem=problem,
    )


def _extract(archive: zipfile.ZipFile, info: zipfile.ZipInfo, target: Path, on_bytes: ByteCallback | None) -> str:
    target.parent.mkdir(parents=True, exist_ok=True)
    hasher = hashlib.sha256()
    written = 0
    with archive.open(info) as reader, target.open("wb") as writer:
        while chunk := reader.read(READ_CHUNK):
            written += len(chunk)
            if written > info.file_size:
                # zipfile checks CRCs, not that an entry stops at its declared size: a zip bomb would fill the disk.
                raise UserFacingError.say(
                    "{file} in the zip is larger than it claims; nothing was imported.", file=info.filename
                )
            writer.write(chunk)
            hasher.update(chunk)
            if on_bytes is not None:
                on_bytes(len(chunk))
    return hasher.hexdigest()


def _find_model_root(unpacked: Path) -> Path:
    if (unpacked / CONFIG_NAME).is_file():
        return unpacked
    configs = sorted(unpacked.rglob(CONFIG_NAME), key=lambda p: len(p.parts))
    if len(configs) != 1:
        names = ", ".join(str(c.parent.relative_to(unpacked)) for c in configs)
        raise UserFacingError.say(
            "The zip holds several models ({names}).", "Zip one model folder at a time.", names=names
        )
    return configs[0].parent
