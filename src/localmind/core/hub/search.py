"""Search the Hub for ONNX chat models and say, before any download, whether each one runs here.

``HfApi.list_models`` gives names, downloads, likes and dates a page at a time. For each result LocalMind
then lists the repo's files (sizes included) and, for an onnx-community export, reads its config.json (a few
kB): the verdict, the size of what it would download, the parameters and the memory needed all come from
those — no weights are fetched. The window runs this in a background task, the terminal directly.
"""

from __future__ import annotations

import enum
import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

import httpx2
from huggingface_hub import HfApi, get_session
from huggingface_hub import errors as hf_errors

from localmind.core.hub.community import (
    UnsupportedArchitectureError,
    estimate_parameters,
    is_community,
    plan_community,
)
from localmind.core.hub.errors import HubError, HubUnreachableError
from localmind.core.hub.listing import RepoListing, explain_hub_error, list_repo, token_arg
from localmind.core.hub.settings import HubSettings

ONNX_TAG = "onnx"
PAGE_SIZE = 20
# Memory to run a model: its weights, plus the KV cache and activations of a few thousand tokens, plus
# onnxruntime itself. Measured for the SmolLM2 and Qwen3-0.6B shapes (README: 219 MB RSS for 0.14 GB of
# weights; 734 MB for 0.6 GB) and rounded up: a hint, not a promise.
MEMORY_FACTOR = 1.3
MEMORY_OVERHEAD_BYTES = 250_000_000
# og packages ship no config.json to count parameters from: estimate them from 4-bit weights (~0.6 B/param).
INT4_BYTES_PER_PARAM = 0.6


class Verdict(str, enum.Enum):
    READY = "ready"  # an onnxruntime-genai package: loads as it is
    SETUP = "setup"  # onnx-community layout of a supported architecture: LocalMind writes its config
    UNSUPPORTED = "unsupported"
    UNKNOWN = "unknown"  # could not be checked (network); try again

    @property
    def rank(self) -> int:
        return {"ready": 0, "setup": 1, "unknown": 2, "unsupported": 3}[self.value]


@dataclass(frozen=True)
class Compatibility:
    verdict: Verdict
    reason: str  # English, for the terminal; the window words its own from ``code`` and the fields
    code: str = ""  # package, community, no_onnx, layout, architecture, unchecked
    model_type: str = ""
    architecture: str = ""
    choice: str = ""  # the og folder or the onnx-community variant LocalMind would download
    quantization: str = ""
    download_bytes: int | None = None
    parameters: int | None = None
    memory_bytes: int | None = None
    variants: tuple[str, ...] = ()

    @property
    def runs(self) -> bool:
        return self.verdict in (Verdict.READY, Verdict.SETUP)


@dataclass(frozen=True)
class SearchResult:
    repo: str
    downloads: int | None
    likes: int | None
    last_modified: datetime | None
    tags: tuple[str, ...] = ()
    compatibility: Compatibility | None = None  # None until checked

    def to_json(self) -> dict[str, Any]:
        c = self.compatibility
        return {
            "repo": self.repo,
            "downloads": self.downloads,
            "likes": self.likes,
            "last_modified": self.last_modified.isoformat() if self.last_modified else None,
            "verdict": c.verdict.value if c else None,
            "reason": c.reason if c else None,
            "model_type": c.model_type if c else None,
            "download": c.choice if c else None,
            "quantization": c.quantization if c else None,
            "download_bytes": c.download_bytes if c else None,
            "parameters": c.parameters if c else None,
            "memory_bytes": c.memory_bytes if c else None,
            "variants": list(c.variants) if c else [],
        }


def memory_needed(download_bytes: int) -> int:
    return int(download_bytes * MEMORY_FACTOR) + MEMORY_OVERHEAD_BYTES


class HubSearch:
    """One search: pages of results on demand (each page is one request to the Hub)."""

    def __init__(
        self,
        text: str,
        *,
        settings: HubSettings | None = None,
        token: str | None = None,
        page_size: int = PAGE_SIZE,
        onnx_only: bool = True,
    ) -> None:
        self.text = text.strip()
        self.settings = settings or HubSettings()
        self.token = token
        self.page_size = page_size
        self.onnx_only = onnx_only
        self.exhausted = False
        self._items: Iterator[Any] | None = None

    def next_page(self) -> list[SearchResult]:
        """The next page of results (empty once there are no more)."""
        if self.exhausted:
            return []
        endpoint = self.settings.resolved_endpoint()
        try:
            if self._items is None:
                # One quick request first: offline, the client's own retries would take ~25 s to give up.
                get_session().head(endpoint, timeout=self.settings.connect_timeout_s)
                api = HfApi(endpoint=endpoint)
                self._items = iter(
                    api.list_models(
                        search=self.text or None,
                        filter=ONNX_TAG if self.onnx_only else None,
                        sort="downloads",
                        expand=["downloads", "likes", "lastModified", "tags"],
                        token=token_arg(self.token),
                    )
                )
            page = list(itertools.islice(self._items, self.page_size))
        except (hf_errors.HfHubHTTPError, hf_errors.OfflineModeIsEnabled, httpx2.HTTPError) as exc:
            self._items = None
            raise _search_error(exc, self.text, endpoint) from exc
        if len(page) < self.page_size:
            self.exhausted = True
        return [
            SearchResult(
                repo=str(info.id),
                downloads=info.downloads,
                likes=info.likes,
                last_modified=info.last_modified,
                tags=tuple(info.tags or ()),
            )
            for info in page
        ]


def _search_error(exc: BaseException, text: str, endpoint: str) -> HubError:
    if isinstance(exc, httpx2.TransportError):
        return OfflineError(endpoint)
    return explain_hub_error(exc, f"search {text!r}", "main", endpoint, had_token=False)


class OfflineError(HubUnreachableError):
    """The Hub cannot be reached at all: searching and downloading need the internet."""

    def __init__(self, endpoint: str) -> None:
        super().__init__("")
        self.tell(
            "Cannot reach Hugging Face ({endpoint}): searching for models needs an internet connection.",
            "Check the connection (and proxy settings), then search again.",
            endpoint=endpoint,
        )
        self.endpoint = endpoint


def check_listing(
    listing: RepoListing, *, device: str = "cpu", token: str | None = None, settings: HubSettings | None = None
) -> Compatibility:
    """The verdict for a listed repo (reads config.json of an onnx-community export; never any weights)."""
    folders = listing.model_folders()
    if folders:
        # The folder for the device, else a CPU one (runs everywhere), else the first: what a download would take.
        preferred = [f for f in folders if device in f.lower()] or [f for f in folders if "cpu" in f.lower()]
        folder = (preferred or folders)[0]
        size = listing.size_of(folder)
        weights = sum(f.size for f in listing.files_in(folder) if f.path.endswith((".onnx", ".data", ".onnx_data")))
        return Compatibility(
            Verdict.READY,
            "an onnxruntime-genai package: runs as it is",
            code="package",
            choice=folder or "(repo root)",
            quantization="int4" if "int4" in folder.lower() else "",
            download_bytes=size,
            parameters=int(weights / INT4_BYTES_PER_PARAM) if "int4" in folder.lower() and weights else None,
            memory_bytes=memory_needed(size),
            variants=tuple(f or "(repo root)" for f in folders),
        )
    if not is_community(listing):
        names = [f.path for f in listing.files]
        if any(n.endswith(".onnx") for n in names):
            why = "its ONNX files are not in a layout LocalMind knows (no genai_config.json, no onnx/model*.onnx)"
            return Compatibility(Verdict.UNSUPPORTED, why, code="layout")
        return Compatibility(Verdict.UNSUPPORTED, "it has no ONNX model files", code="no_onnx")
    try:
        plan = plan_community(listing, device=device, token=token, settings=settings)
    except UnsupportedArchitectureError as exc:
        return Compatibility(
            Verdict.UNSUPPORTED,
            exc.reason,
            code="architecture",
            model_type=exc.model_type,
            architecture=exc.architecture,
        )
    architectures = plan.config.get("architectures")
    size = plan.total_bytes
    return Compatibility(
        Verdict.SETUP,
        f"onnx-community layout of a supported architecture ({plan.model_type}): LocalMind prepares it on download",
        code="community",
        model_type=plan.model_type,
        architecture=str(architectures[0]) if isinstance(architectures, list) and architectures else "",
        choice=plan.variant.name,
        quantization=plan.variant.quantization,
        download_bytes=size,
        parameters=estimate_parameters(plan.config),
        memory_bytes=memory_needed(size),
        variants=tuple(v.name for v in plan.variants),
    )


def check_repo(
    repo: str, *, device: str = "cpu", token: str | None = None, settings: HubSettings | None = None
) -> Compatibility:
    try:
        listing = list_repo(repo, token=token, settings=settings)
        return check_listing(listing, device=device, token=token, settings=settings)
    except HubError as exc:
        return Compatibility(Verdict.UNKNOWN, f"could not be checked: {exc.message}", code="unchecked")


def check_results(
    results: list[SearchResult],
    *,
    device: str = "cpu",
    token: str | None = None,
    settings: HubSettings | None = None,
    on_checked: Callable[[int, SearchResult], None] | None = None,
    stopped: Callable[[], bool] | None = None,
) -> list[SearchResult]:
    """Fill in each result's verdict, one repo at a time (``on_checked`` after each, for a live list)."""
    out = []
    for i, result in enumerate(results):
        if stopped is not None and stopped():
            break
        checked = replace(result, compatibility=check_repo(result.repo, device=device, token=token, settings=settings))
        out.append(checked)
        if on_checked is not None:
            on_checked(i, checked)
    return out


def compatible_first(results: list[SearchResult]) -> list[SearchResult]:
    """Runs-here first (ready, then needs set-up), then unknown, then unsupported; most downloaded first within."""

    def key(r: SearchResult) -> tuple[int, int]:
        rank = r.compatibility.verdict.rank if r.compatibility else Verdict.UNKNOWN.rank
        return rank, -(r.downloads or 0)

    return sorted(results, key=key)


__all__ = [
    "Compatibility",
    "HubSearch",
    "OfflineError",
    "SearchResult",
    "Verdict",
    "check_listing",
    "check_repo",
    "check_results",
    "compatible_first",
    "memory_needed",
]
