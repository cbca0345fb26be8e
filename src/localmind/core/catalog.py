"""The curated list of ready-to-run models, and whether each fits this computer.

The catalog (``resources/catalog.json``) is a hint list: names, repos, the
folder for each device and approximate sizes. What is really downloaded — the
file list, sizes and hashes — always comes from the Hub at download time.
"""

from __future__ import annotations

import ctypes
import enum
import json
import os
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from localmind import paths
from localmind.core.cpu_speed import (
    COMFORTABLE_TOKENS_PER_S,
    CpuSpeed,
    cpu_speed,
    estimated_tokens_per_s,
    parse_parameters,
)
from localmind.errors import UserFacingError
from localmind.resources import resource_path

GB = 1_000_000_000
# Beyond the files themselves: room for the staging copy's metadata and for the OS not to run dry.
DISK_MARGIN_BYTES = 500_000_000
KNOWN_DEVICES = ("cpu", "cuda", "dml")
CHAT = "chat"
EMBEDDING = "embedding"  # a model that turns text into vectors for Documents' search; never loaded in the chat
KINDS = (CHAT, EMBEDDING)


@dataclass(frozen=True)
class CatalogVariant:
    device: str
    folder: str  # inside the repo; "" is the repo root
    download_bytes: int
    ram_bytes: int
    variant: str | None = None  # onnx-community repos: the variant to fetch ("q4"); None for og packages


@dataclass(frozen=True)
class CatalogEntry:
    id: str
    name: str
    repo: str
    parameters: str
    context_length: int
    licence: str
    variants: dict[str, CatalogVariant]
    description: dict[str, str]
    recommended: bool = False
    revision: str = "main"
    starter: bool = False  # a good first model where the recommended one would be too slow
    # Why this form of the model (og package or onnx-community export), per language; "" when there is one form.
    form_note: dict[str, str] = field(default_factory=dict)
    kind: str = CHAT
    # Embedding models: how the model wants its texts and vectors (prefixes, pooling, the similarity floor...),
    # written to the installed folder's embedding.json. Empty for chat models.
    embedding: dict[str, Any] = field(default_factory=dict)

    @property
    def form(self) -> str:
        """ "community" when the CPU variant is an onnx-community export LocalMind prepares, else "og"."""
        return "community" if self.variant_for("cpu").variant else "og"

    @property
    def parameters_b(self) -> float | None:
        return parse_parameters(self.parameters)

    def form_note_for(self, language: str) -> str:
        base = language.replace("-", "_").split("_")[0].lower()
        return self.form_note.get(base) or self.form_note.get("en", "")

    def variant_for(self, device: str = "cpu") -> CatalogVariant:
        """The variant for ``device``; the CPU one (which runs everywhere) when the repo has none for it."""
        return self.variants.get(device) or self.variants.get("cpu") or next(iter(self.variants.values()))

    def description_for(self, language: str) -> str:
        """The description in ``language`` ("zh_CN", "zh-TW", "en"...), English when there is none."""
        base = language.replace("-", "_").split("_")[0].lower()
        return self.description.get(base) or self.description.get("en") or next(iter(self.description.values()), "")

    @property
    def page_url(self) -> str:
        return f"https://huggingface.co/{self.repo}"


class Fit(str, enum.Enum):
    GOOD = "good"
    TIGHT = "tight"  # runs, but leaves little memory for anything else
    TOO_BIG = "too_big"  # not enough memory
    NO_DISK = "no_disk"  # not enough free disk to download it


@dataclass(frozen=True)
class MachineInfo:
    total_ram_bytes: int | None
    free_disk_bytes: int | None
    cpu: CpuSpeed | None = None  # None: speed unknown, the recommendation looks at memory only


@dataclass(frozen=True)
class FitHint:
    fit: Fit
    ram_needed_bytes: int
    disk_needed_bytes: int
    machine: MachineInfo = field(repr=False)

    @property
    def usable(self) -> bool:
        return self.fit in (Fit.GOOD, Fit.TIGHT)

    def describe(self) -> str:
        """A short English explanation (the window builds its own, translated, from the same fields)."""
        ram = f"needs about {self.ram_needed_bytes / GB:.1f} GB of memory"
        if self.fit is Fit.NO_DISK:
            free = self.machine.free_disk_bytes or 0
            return f"not enough disk space: needs {self.disk_needed_bytes / GB:.1f} GB, {free / GB:.1f} GB free"
        if self.fit is Fit.TOO_BIG:
            total = self.machine.total_ram_bytes or 0
            return f"too big for this computer ({ram}, it has {total / GB:.1f} GB)"
        if self.fit is Fit.TIGHT:
            return f"fits, but tight ({ram}; close other programs)"
        return f"fits this computer ({ram})"


def _gb(value: Any, what: str) -> int:
    if not isinstance(value, (int, float)) or value < 0:
        raise ValueError(f"{what} must be a number of GB")
    return int(value * GB)


def _parse_entry(raw: Any) -> CatalogEntry:
    if not isinstance(raw, dict):
        raise ValueError("each model must be an object")
    for key in ("id", "name", "repo", "parameters", "licence"):
        if not isinstance(raw.get(key), str) or not raw[key]:
            raise ValueError(f"model {raw.get('id', '?')!r} has no {key}")
    variants_raw = raw.get("variants")
    if not isinstance(variants_raw, dict) or not variants_raw:
        raise ValueError(f"model {raw['id']!r} has no variants")
    variants: dict[str, CatalogVariant] = {}
    for device, spec in variants_raw.items():
        if device not in KNOWN_DEVICES or not isinstance(spec, dict) or not isinstance(spec.get("folder"), str):
            raise ValueError(f"model {raw['id']!r} has a bad variant {device!r}")
        variants[device] = CatalogVariant(
            device=device,
            folder=spec["folder"].strip("/"),
            download_bytes=_gb(spec.get("download_gb"), f"{raw['id']}.{device}.download_gb"),
            ram_bytes=_gb(spec.get("ram_gb"), f"{raw['id']}.{device}.ram_gb"),
            variant=str(spec["variant"]) if spec.get("variant") else None,
        )
    description = raw.get("description")
    if not isinstance(description, dict) or not isinstance(description.get("en"), str):
        raise ValueError(f"model {raw['id']!r} has no English description")
    kind = raw.get("kind", CHAT)
    if kind not in KINDS:
        raise ValueError(f"model {raw['id']!r} has an unknown kind {kind!r}")
    embedding = raw.get("embedding") or {}
    if not isinstance(embedding, dict) or (kind == EMBEDDING) != bool(embedding):
        raise ValueError(f"model {raw['id']!r}: 'embedding' settings go with kind 'embedding' only")
    context = raw.get("context_length")
    if not isinstance(context, int) or context <= 0:
        raise ValueError(f"model {raw['id']!r} has no context_length")
    return CatalogEntry(
        id=raw["id"],
        name=raw["name"],
        repo=raw["repo"],
        parameters=raw["parameters"],
        context_length=context,
        licence=raw["licence"],
        variants=variants,
        description={str(k): str(v) for k, v in description.items()},
        recommended=bool(raw.get("recommended", False)),
        revision=str(raw.get("revision", "main")),
        starter=bool(raw.get("starter", False)),
        form_note={str(k): str(v) for k, v in (raw.get("form_note") or {}).items()},
        kind=str(kind),
        embedding=dict(embedding),
    )


def load_catalog(path: Path | None = None) -> list[CatalogEntry]:
    """Read the catalog; a damaged file is a :class:`UserFacingError` (the app ships it, so reinstalling fixes it)."""
    path = path or resource_path("catalog.json")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        models = data["models"]
        if not isinstance(models, list):
            raise ValueError("'models' must be a list")
        entries = [_parse_entry(raw) for raw in models]
    except FileNotFoundError as exc:
        raise UserFacingError.say("The model catalog is missing ({path}).", "Reinstall LocalMind.", path=path) from exc
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise UserFacingError.say(
            "The model catalog {path} is damaged: {reason}.", "Reinstall LocalMind.", path=path, reason=exc
        ) from exc
    ids = [e.id for e in entries]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise UserFacingError.say(
            "The model catalog {path} lists {ids} twice.", "Reinstall LocalMind.", path=path, ids=", ".join(duplicates)
        )
    return entries


def find_entry(entries: list[CatalogEntry], model_id: str) -> CatalogEntry | None:
    return next((e for e in entries if e.id == model_id), None)


def total_ram_bytes() -> int | None:
    """Physical memory, or None where the platform will not say."""
    if sys.platform == "win32":

        class _MemoryStatus(ctypes.Structure):
            _fields_ = [  # ctypes reads this class attribute
                ("dwLength", ctypes.c_ulong),
                ("dwMemoryLoad", ctypes.c_ulong),
                ("ullTotalPhys", ctypes.c_ulonglong),
                ("ullAvailPhys", ctypes.c_ulonglong),
                ("ullTotalPageFile", ctypes.c_ulonglong),
                ("ullAvailPageFile", ctypes.c_ulonglong),
                ("ullTotalVirtual", ctypes.c_ulonglong),
                ("ullAvailVirtual", ctypes.c_ulonglong),
                ("ullAvailExtendedVirtual", ctypes.c_ulonglong),
            ]

        status = _MemoryStatus()
        status.dwLength = ctypes.sizeof(_MemoryStatus)
        windll: Any = getattr(ctypes, "windll", None)
        if windll is not None and windll.kernel32.GlobalMemoryStatusEx(ctypes.byref(status)):
            return int(status.ullTotalPhys)
        return None
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return None


def free_disk_bytes(path: Path) -> int | None:
    """Free space on the disk that holds ``path`` (or its nearest existing parent)."""
    probe = path
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    try:
        return shutil.disk_usage(probe).free
    except OSError:
        return None


def machine_info() -> MachineInfo:
    return MachineInfo(
        total_ram_bytes=total_ram_bytes(), free_disk_bytes=free_disk_bytes(paths.models_dir()), cpu=cpu_speed()
    )


def fit_hint(entry: CatalogEntry, machine: MachineInfo, device: str = "cpu") -> FitHint:
    variant = entry.variant_for(device)
    disk_needed = variant.download_bytes + DISK_MARGIN_BYTES
    fit = Fit.GOOD
    ram = machine.total_ram_bytes
    if ram is not None:
        # The OS and the app itself keep roughly a third of memory busy.
        if variant.ram_bytes > ram * 0.85:
            fit = Fit.TOO_BIG
        elif variant.ram_bytes > ram * 0.6:
            fit = Fit.TIGHT
    if machine.free_disk_bytes is not None and disk_needed > machine.free_disk_bytes:
        fit = Fit.NO_DISK
    return FitHint(fit=fit, ram_needed_bytes=variant.ram_bytes, disk_needed_bytes=disk_needed, machine=machine)


def tokens_per_s(entry: CatalogEntry, machine: MachineInfo) -> float | None:
    """Roughly how fast ``entry`` writes on this CPU (None when the speed or the size is unknown)."""
    params = entry.parameters_b
    if machine.cpu is None or not params or entry.kind != CHAT:
        return None
    return estimated_tokens_per_s(params, machine.cpu, entry.form)


def fast_enough(entry: CatalogEntry, machine: MachineInfo, device: str = "cpu") -> bool:
    if device != "cpu":
        return True  # a GPU: memory decides
    speed = tokens_per_s(entry, machine)
    return speed is None or speed >= COMFORTABLE_TOKENS_PER_S


def recommend(entries: list[CatalogEntry], machine: MachineInfo, device: str = "cpu") -> CatalogEntry | None:
    """The model to suggest to a first-time user.

    It must fit in memory and write comfortably fast on this CPU (a 2-core laptop is not offered a 3.8B model):
    the catalog's pick when it does, else the largest starter model that does, else the largest that does.
    """
    entries = [e for e in entries if e.kind == CHAT]  # an embedding model cannot answer a chat
    good = [e for e in entries if fit_hint(e, machine, device).fit is Fit.GOOD]
    quick = [e for e in good if fast_enough(e, machine, device)]
    flagged = [e for e in quick if e.recommended]
    if flagged:
        return flagged[0]
    starters = [e for e in quick if e.starter]
    if starters or quick:
        return max(starters or quick, key=lambda e: e.parameters_b or 0.0)
    if good:
        return min(good, key=lambda e: e.variant_for(device).ram_bytes)
    usable = [e for e in entries if fit_hint(e, machine, device).usable]
    return min(usable, key=lambda e: e.variant_for(device).ram_bytes) if usable else None
