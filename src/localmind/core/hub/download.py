"""Download a model folder from the Hub, verify it and install it.

Everything lands in ``<models>/.staging/<id>/`` next to a plan file (what is
being downloaded, at which commit); every file is checked against the hash the
Hub lists; the manifest is written last and one rename installs the folder.
Pausing, a lost connection or a killed app leave the staging folder as it is,
and the next start of the same download continues from there. Cancel deletes it.
"""

from __future__ import annotations

import json
import logging
import posixpath
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from localmind import paths
from localmind.core.catalog import CatalogEntry, free_disk_bytes
from localmind.core.hub.community import CommunityPlan, community_model_id, is_community, plan_community
from localmind.core.hub.control import CANCEL, TransferControl
from localmind.core.hub.embedding import (
    EmbeddingCheck,
    EmbeddingPlan,
    catalog_embedding_entry,
    finish_embedding_folder,
    plan_embedding,
)
from localmind.core.hub.errors import (
    AlreadyInstalledError,
    DownloadStopped,
    HubError,
    HubUnreachableError,
    NotEnoughDiskError,
)
from localmind.core.hub.installed import InstalledModel, discard_folder, get_installed, install_staged
from localmind.core.hub.listing import CONFIG_NAME, RemoteFile, RepoListing, check_repo_id, list_repo
from localmind.core.hub.lock import DownloadLock
from localmind.core.hub.manifest import (
    Manifest,
    ManifestFile,
    now_iso,
    safe_relative_path,
    slugify,
    valid_model_id,
    write_manifest,
)
from localmind.core.hub.prepare import prepare_community_folder
from localmind.core.hub.progress import DONE, INSTALLING, LISTING, PREPARING, ProgressCallback, ProgressTracker
from localmind.core.hub.settings import HubSettings
from localmind.core.hub.transfer import (
    PART_SUFFIX,
    FileFetcher,
    FileSource,
    OpenPart,
    open_part_for_append,
    part_path,
    part_size,
)
from localmind.engine.validate import validate_model_folder
from localmind.errors import UserFacingError

log = logging.getLogger(__name__)

PLAN_NAME = ".localmind-download.json"
# What was asked, written when a download starts (before the Hub is asked anything): a download stopped before its
# plan was written (the connection lost while listing the repo) is still listed, and resumed, after a restart.
REQUEST_NAME = ".localmind-request.json"
XET_SCRATCH = ".xet"


@dataclass(frozen=True)
class DownloadRequest:
    repo: str
    revision: str = "main"
    folder: str | None = None  # None: the repo's only model folder (an error lists them when there are several)
    model_id: str | None = None  # None: made from the repo and folder names
    name: str | None = None
    fallback_device: str | None = None  # catalog downloads: if the listed folder moved, take the one for this device
    variant: str | None = None  # onnx-community repos: "q4", "fp16"... (None: the one for ``device``)
    device: str = "cpu"  # the device the model will run on (picks the variant of an onnx-community repo)
    kind: str = "chat"  # "embedding": a model for Documents' search (catalog kind), installed without genai_config
    # Embedding models: the catalog's settings (prefixes, pooling, similarity floor), written to embedding.json.
    embedding: Mapping[str, Any] = field(default_factory=dict, hash=False)


def request_for_catalog(entry: CatalogEntry, device: str = "cpu", revision: str | None = None) -> DownloadRequest:
    variant = entry.variant_for(device)
    name = entry.name if variant.device == "cpu" else f"{entry.name} ({variant.device.upper()})"
    model_id = entry.id if variant.device == "cpu" else f"{entry.id}-{variant.device}"
    return DownloadRequest(
        repo=entry.repo,
        revision=revision or entry.revision,
        folder=variant.folder if not variant.variant else None,
        model_id=model_id,
        name=name,
        fallback_device=variant.device,
        variant=variant.variant,
        device=variant.device,
        kind=entry.kind,
        embedding=entry.embedding,
    )


def as_catalog_embedding(request: DownloadRequest) -> DownloadRequest:
    """A download by repo id of the catalog's embedding model becomes the catalog's download (kind, settings written
    to embedding.json, variant, id), keeping a variant or id the user chose. Any other request is returned as is."""
    if request.kind != "chat" or request.folder:
        return request
    entry = catalog_embedding_entry(request.repo)
    if entry is None:
        return request
    catalog = request_for_catalog(entry, "cpu")  # Documents runs it on the CPU
    revision = request.revision if request.revision not in ("", "main") else catalog.revision
    if request.variant and request.variant != catalog.variant:
        return replace(
            catalog,
            revision=revision,
            variant=request.variant,
            model_id=request.model_id or f"{entry.id}-{request.variant}",
        )
    return replace(catalog, revision=revision, model_id=request.model_id or catalog.model_id)


def default_model_id(repo: str, folder: str) -> str:
    base = slugify(repo.split("/")[-1])
    return slugify(f"{base}-{posixpath.basename(folder)}") if folder else base


def choose_folder(listing: RepoListing, wanted: str | None, fallback_device: str | None = None) -> str:
    folders = listing.model_folders()
    if not folders:
        raise HubError.say(
            "{repo} has no onnxruntime-genai model: no folder in it holds a {config}.",
            "LocalMind runs ONNX models made for onnxruntime-genai; pick one from the catalog.",
            repo=listing.repo,
            config=CONFIG_NAME,
        )
    shown = ", ".join(f or "(the repo root)" for f in folders)
    if wanted is None:
        if len(folders) == 1:
            return folders[0]
        raise HubError.say(
            "{repo} holds several model variants: {folders}.",
            "Pick one (in the terminal: --include FOLDER).",
            repo=listing.repo,
            folders=shown,
        )
    wanted = wanted.strip("/")
    if wanted in folders:
        return wanted
    if fallback_device:
        matches = [f for f in folders if fallback_device in f.lower()]
        if len(matches) == 1:
            log.info("%s: %r not found, using %r", listing.repo, wanted, matches[0])
            return matches[0]
    raise HubError.say(
        "{repo} has no model folder {folder}. Folders with a model: {folders}.",
        "Pick one of those.",
        repo=listing.repo,
        folder=repr(wanted),
        folders=shown,
    )


def check_listed_path(repo: str, relative: str) -> str:
    """A path from the Hub's listing, refused unless it stays inside the staging folder.

    The listing is data from the network: a hostile mirror (HF_ENDPOINT) could list ``../../.bashrc``.
    """
    if not safe_relative_path(relative):
        raise HubError.say(
            "{repo} lists a file with an unsafe path ({path}); nothing was downloaded.",
            "The server may not be Hugging Face or may be tampered with: check HF_ENDPOINT.",
            repo=repo,
            path=repr(relative),
        )
    return relative


def files_of_folder(listing: RepoListing, folder: str) -> list[tuple[RemoteFile, str]]:
    """(file, path inside the installed folder) for the folder, without other model folders nested in it."""
    nested = [f for f in listing.model_folders() if f != folder and (not folder or f.startswith(folder + "/"))]
    result = []
    for file in listing.files_in(folder):
        if any(file.path.startswith(n + "/") for n in nested):
            continue
        relative = file.path[len(folder) + 1 :] if folder else file.path
        if (
            relative in (".gitattributes",)
            or relative.endswith(PART_SUFFIX)
            or relative.startswith((XET_SCRATCH + "/", PLAN_NAME, REQUEST_NAME))
        ):
            continue
        result.append((file, check_listed_path(listing.repo, relative)))
    return sorted(result, key=lambda pair: (pair[0].size, pair[1]))


@dataclass(frozen=True)
class UnfinishedDownload:
    model_id: str
    name: str
    repo: str
    revision: str
    folder: str
    done_bytes: int
    total_bytes: int
    variant: str | None = None
    kind: str = "chat"
    embedding: Mapping[str, Any] = field(default_factory=dict, hash=False)
    requested: DownloadRequest | None = None  # as asked, when it stopped before its plan was written

    def request(self) -> DownloadRequest:
        if self.requested is not None:
            return self.requested
        return DownloadRequest(
            repo=self.repo,
            revision=self.revision,
            folder=self.folder if not self.variant else None,
            model_id=self.model_id,
            name=self.name,
            variant=self.variant,
            kind=self.kind,
            embedding=self.embedding,
        )


def _read_plan(staging: Path) -> dict[str, object] | None:
    try:
        data = json.loads((staging / PLAN_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _read_request(staging: Path) -> DownloadRequest | None:
    try:
        data = json.loads((staging / REQUEST_NAME).read_text(encoding="utf-8"))
        request = DownloadRequest(**{k: v for k, v in data.items() if k in DownloadRequest.__dataclass_fields__})
    except (OSError, ValueError, TypeError, AttributeError):
        return None
    return request if isinstance(request.repo, str) and request.model_id == staging.name else None


def _unfinished_request(staging: Path, request: DownloadRequest) -> UnfinishedDownload:
    """A download that stopped before it knew its files: nothing downloaded yet, resumed from the request."""
    return UnfinishedDownload(
        model_id=staging.name,
        name=request.name or staging.name,
        repo=request.repo,
        revision=request.revision,
        folder=request.folder or "",
        done_bytes=0,
        total_bytes=0,
        variant=request.variant,
        kind=request.kind,
        embedding=request.embedding,
        requested=request,
    )


def _bytes_present(staging: Path, files: dict[str, object]) -> int:
    done = 0
    for relative, spec in files.items():
        size = spec.get("size") if isinstance(spec, dict) else None
        final = staging / relative
        if isinstance(size, int) and part_size(final) == size:
            done += size
        else:
            done += part_size(part_path(final))
    return done


def list_unfinished() -> list[UnfinishedDownload]:
    """Downloads that were paused, failed or interrupted (the app was closed or killed): they can be resumed."""
    root = paths.staging_dir()
    if not root.is_dir():
        return []
    found = []
    for staging in sorted(root.iterdir()):
        if not staging.is_dir() or staging.name.startswith("."):
            continue
        plan = _read_plan(staging)
        if plan is None:
            if (request := _read_request(staging)) is not None:
                found.append(_unfinished_request(staging, request))
            continue
        files = plan.get("files")
        try:
            found.append(
                UnfinishedDownload(
                    model_id=staging.name,
                    name=str(plan["name"]),
                    repo=str(plan["repo"]),
                    revision=str(plan["revision"]),
                    folder=str(plan["folder"]),
                    done_bytes=_bytes_present(staging, files) if isinstance(files, dict) else 0,
                    total_bytes=int(str(plan["total_bytes"])),
                    variant=str(plan["variant"]) if plan.get("variant") else None,
                    kind="embedding" if plan.get("kind") == "embedding" else "chat",
                    embedding=embedding if isinstance(embedding := plan.get("embedding"), dict) else {},
                )
            )
        except (KeyError, ValueError):
            continue
    return found


def discard_unfinished(model_id: str) -> None:
    if not valid_model_id(model_id):
        raise UserFacingError.say("{model} is not a model id.", model=repr(model_id))
    with DownloadLock(paths.staging_dir() / f"{model_id}.lock", model_id):
        discard_folder(paths.staging_dir() / model_id)


class DownloadJob:
    """One download, run on the calling thread; pause/cancel through ``control`` from any thread."""

    def __init__(
        self,
        request: DownloadRequest,
        *,
        token: str | None = None,
        settings: HubSettings | None = None,
        on_progress: ProgressCallback | None = None,
        control: TransferControl | None = None,
        open_part: OpenPart = open_part_for_append,
        disk_free: Callable[[Path], int | None] = free_disk_bytes,
        embedding_check: EmbeddingCheck | None = None,
    ) -> None:
        # The catalog's embedding model asked for by its repo id: downloaded as the catalog entry (embedding kind).
        self.request = request = as_catalog_embedding(request)
        self.token = token
        self.settings = settings or HubSettings()
        self.control = control or TransferControl()
        self._open_part = open_part
        self._disk_free = disk_free
        self._embedding_check = embedding_check
        label = request.model_id or request.repo
        self.tracker = ProgressTracker(label, on_progress, self.settings.progress_interval_s)
        self.model_id: str | None = request.model_id

    def run(self) -> InstalledModel:
        """Download and install; a download stopped by the network stays listed (``list_unfinished``) to resume."""
        staging = self._remember_request()
        try:
            return self._run()
        except HubUnreachableError:
            raise  # kept, with what was asked: listed after a restart, resumed from there
        except BaseException as exc:
            kept = isinstance(exc, DownloadStopped) and exc.reason != CANCEL
            if staging is not None and not kept and not (staging / PLAN_NAME).exists():
                discard_folder(staging)  # stopped before anything was downloaded: nothing to resume
            raise

    def _remember_request(self) -> Path | None:
        """Write what was asked into the download's staging folder, unless it has begun there already."""
        model_id = self.request.model_id
        if model_id is None or not valid_model_id(model_id) or get_installed(model_id) is not None:
            return None
        staging = paths.staging_dir() / model_id
        if (staging / PLAN_NAME).exists():
            return None
        staging.mkdir(parents=True, exist_ok=True)
        record = {k: (dict(v) if k == "embedding" else v) for k, v in self.request.__dict__.items()}
        tmp = staging / (REQUEST_NAME + ".tmp")
        tmp.write_text(json.dumps(record, indent=2), encoding="utf-8")
        tmp.replace(staging / REQUEST_NAME)
        return staging

    def _run(self) -> InstalledModel:
        request = self.request
        repo = check_repo_id(request.repo)
        if request.model_id is not None and not valid_model_id(request.model_id):
            raise UserFacingError.say(
                "{model} is not a valid model id.",
                "Use lower-case letters, digits, '.', '-' and '_'.",
                model=repr(request.model_id),
            )
        self.tracker.set_phase(LISTING)
        listing = list_repo(
            repo,
            request.revision,
            token=self.token,
            settings=self.settings,
            control=self.control,
            on_retry=self.tracker.set_status,
        )
        community: CommunityPlan | None = None
        embedding: EmbeddingPlan | None = None
        if request.kind == "embedding":
            # Checked before the onnx-community case: an embedding repo has that layout, but is not a chat model.
            embedding = plan_embedding(listing, request.variant)
            folder = ""
            model_id = request.model_id or community_model_id(repo, embedding.variant.name)
        elif is_community(listing):
            # config.json first (a few kB): an architecture that cannot run is refused before any weights come.
            community = plan_community(
                listing, variant=request.variant, device=request.device, token=self.token, settings=self.settings
            )
            folder = ""
            model_id = request.model_id or community_model_id(repo, community.variant.name)
        else:
            if request.variant:
                raise HubError.say(
                    "{repo} is an onnxruntime-genai package: it has model folders, not variants.",
                    "Leave out the variant (in the terminal: use --include FOLDER).",
                    repo=repo,
                )
            folder = choose_folder(listing, request.folder, request.fallback_device)
            model_id = request.model_id or default_model_id(repo, folder)
        self.model_id = self.tracker.model_id = model_id
        if get_installed(model_id) is not None:
            raise AlreadyInstalledError(model_id)
        staging = paths.staging_dir() / model_id
        with DownloadLock(paths.staging_dir() / f"{model_id}.lock", model_id):
            try:
                return self._run_locked(listing, folder, model_id, staging, community, embedding)
            except DownloadStopped as stop:
                if stop.reason == CANCEL:
                    discard_folder(staging)
                raise

    def _run_locked(
        self,
        listing: RepoListing,
        folder: str,
        model_id: str,
        staging: Path,
        community: CommunityPlan | None,
        embedding: EmbeddingPlan | None = None,
    ) -> InstalledModel:
        if embedding is not None:
            files = [(f, check_listed_path(listing.repo, f.path)) for f in embedding.files]
            name = self.request.name or f"{listing.repo.split('/')[-1]} ({embedding.variant.name})"
        elif community is not None:
            files = [(f, check_listed_path(listing.repo, f.path)) for f in community.files]
            name = self.request.name or f"{listing.repo.split('/')[-1]} ({community.variant.name})"
        else:
            files = files_of_folder(listing, folder)
            if not any(relative == CONFIG_NAME for _, relative in files):
                raise HubError.say(
                    "{repo}/{folder} has no {config}.",
                    "Pick a folder that holds a model.",
                    repo=listing.repo,
                    folder=folder,
                    config=CONFIG_NAME,
                )
            name = self.request.name or (
                f"{listing.repo.split('/')[-1]} ({posixpath.basename(folder)})"
                if folder
                else listing.repo.split("/")[-1]
            )
        staging.mkdir(parents=True, exist_ok=True)
        plan = embedding or community
        self._write_plan(staging, listing, folder, name, files, plan.variant.name if plan else None)
        total = sum(f.size for f, _ in files)
        present = _bytes_present(staging, {rel: {"size": f.size} for f, rel in files})
        free = self._disk_free(staging)
        needed = total - present
        margin = 50_000_000 + total // 100
        if free is not None and needed + margin > free:
            raise NotEnoughDiskError(needed + margin, free, str(paths.models_dir()))
        done_files = sum(1 for f, rel in files if part_size(staging / rel) == f.size and (staging / rel).is_file())
        self.tracker.start(total, present, len(files), done_files)
        fetcher = FileFetcher(
            FileSource(listing.repo, listing.commit, listing.endpoint, self.token),
            self.settings,
            self.control,
            on_bytes=self.tracker.add,
            on_status=self.tracker.set_status,
            open_part=self._open_part,
            scratch_dir=staging / XET_SCRATCH,
        )
        entries = []
        for file, relative in files:
            final = staging / relative
            if final.is_file() and final.stat().st_size == file.size:
                # Renamed from .part only after its hash matched: done in an earlier run.
                entries.append(ManifestFile(relative, file.size, file.algorithm, file.expected_hash))
                continue
            self.tracker.set_file(relative)
            digest = fetcher.fetch(file, final)
            entries.append(ManifestFile(relative, file.size, file.algorithm, digest))
            self.tracker.file_done()
        self.control.check()
        generated = None
        if embedding is not None:
            self.tracker.set_phase(PREPARING)
            entries, generated = finish_embedding_folder(
                staging, embedding, entries, self.request.embedding, check=self.control.check, embeds=self._embeds
            )
        elif community is not None:
            self.tracker.set_phase(PREPARING)
            entries, generated = prepare_community_folder(
                staging, community, entries, on_step=self.tracker.set_status, check=self.control.check
            )
        self.tracker.set_phase(INSTALLING)
        installed = self._install(staging, listing, folder, model_id, name, entries, generated)
        self.tracker.set_phase(DONE)
        return installed

    def _embeds(self, folder: Path) -> int:
        if self._embedding_check is None:  # a bug: whoever downloads an embedding model passes the check
            raise ValueError(f"{self.request.repo}: an embedding model is downloaded with an embedding_check")
        return self._embedding_check(folder)

    def _write_plan(
        self,
        staging: Path,
        listing: RepoListing,
        folder: str,
        name: str,
        files: list[tuple[RemoteFile, str]],
        variant: str | None,
    ) -> None:
        old = _read_plan(staging)
        old_files = old.get("files") if old else None
        wanted = {rel: {"size": f.size, "hash": f.expected_hash} for f, rel in files}
        if isinstance(old_files, dict):
            # A file that changed upstream since the last run: its partial bytes belong to another version.
            for relative, spec in old_files.items():
                if wanted.get(relative) != spec and safe_relative_path(relative):
                    (staging / relative).unlink(missing_ok=True)
                    part_path(staging / relative).unlink(missing_ok=True)
        plan = {
            "format": 1,
            "name": name,
            "repo": listing.repo,
            "revision": listing.revision,
            "commit": listing.commit,
            "folder": folder,
            "variant": variant,
            "kind": self.request.kind,
            "embedding": dict(self.request.embedding),
            "endpoint": listing.endpoint,
            "total_bytes": sum(f.size for f, _ in files),
            "files": wanted,
        }
        tmp = staging / (PLAN_NAME + ".tmp")
        tmp.write_text(json.dumps(plan, indent=2), encoding="utf-8")
        tmp.replace(staging / PLAN_NAME)

    def _install(
        self,
        staging: Path,
        listing: RepoListing,
        folder: str,
        model_id: str,
        name: str,
        entries: list[ManifestFile],
        generated: dict[str, object] | None = None,
    ) -> InstalledModel:
        discard_folder(staging / XET_SCRATCH)
        (staging / PLAN_NAME).unlink(missing_ok=True)
        (staging / REQUEST_NAME).unlink(missing_ok=True)
        try:
            if self.request.kind != "embedding":  # an embedding model was checked by running it (no genai_config)
                validate_model_folder(staging)
        except UserFacingError as exc:
            discard_folder(staging)
            raise HubError.say(
                "{repo}/{folder} downloaded fine but is not a usable model: {reason}",
                "Pick another model.",
                repo=listing.repo,
                folder=folder or "",
                reason=exc,
            ) from exc
        manifest = Manifest(
            id=model_id,
            name=name,
            source="hub",
            files=tuple(sorted(entries, key=lambda e: e.path)),
            total_bytes=sum(e.size for e in entries),
            installed_at=now_iso(),
            repo=listing.repo,
            revision=listing.revision,
            commit=listing.commit,
            folder=folder,
            endpoint=listing.endpoint,
            verified_at=now_iso(),
            generated=generated,
            kind="embedding" if self.request.kind == "embedding" else "chat",
        )
        write_manifest(staging, manifest)
        install_staged(staging, model_id)
        installed = get_installed(model_id)
        if installed is None:  # pragma: no cover - the rename just put it there
            raise HubError.say("{model} could not be installed.", model=model_id)
        return installed
