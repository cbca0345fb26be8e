"""onnx-community / Optimum repos on the Hub: decide what to fetch before fetching any weights.

Such a repo holds several multi-GB variants of one model (``onnx/model.onnx``, ``model_q4.onnx``,
``model_fp16.onnx``...) and no ``genai_config.json``. LocalMind reads ``config.json`` first (a few kB):
an architecture it cannot run is refused before a byte of weights is downloaded. Otherwise it fetches
the one variant for the device (its graph and external data) and the small files beside it; the engine's
``formats`` package then writes the genai_config.json the folder lacks.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import httpx2
from huggingface_hub import get_session, hf_hub_url
from huggingface_hub.utils import build_hf_headers  # type: ignore[attr-defined]  # public, re-exported lazily

from localmind.core.hub.errors import HubError
from localmind.core.hub.listing import RemoteFile, RepoListing, explain_hub_error, token_arg, with_retries
from localmind.core.hub.manifest import slugify
from localmind.core.hub.settings import HubSettings
from localmind.engine.formats.variants import (
    Variant,
    architecture_problem,
    choose_variant,
    find_variants,
    is_community_layout,
    small_files,
)
from localmind.errors import Phrase

CONFIG_JSON = "config.json"
MAX_CONFIG_BYTES = 2_000_000  # config.json is a few kB; a bigger one is not a config


@dataclass(frozen=True)
class CommunityPlan:
    """What to download from a community-layout repo for one device."""

    repo: str
    variant: Variant
    variants: tuple[Variant, ...]  # every variant the repo has (to offer another)
    files: tuple[RemoteFile, ...]  # the variant's graph and data, and the small files
    config: Mapping[str, Any]

    @property
    def total_bytes(self) -> int:
        return sum(f.size for f in self.files)

    @property
    def model_type(self) -> str:
        return str(self.config.get("model_type") or "")


def is_community(listing: RepoListing) -> bool:
    return not listing.model_folders() and is_community_layout(f.path for f in listing.files)


def variant_bytes(listing: RepoListing, variant: Variant) -> int:
    sizes = {f.path: f.size for f in listing.files}
    return sum(sizes.get(p, 0) for p in (variant.onnx_path, *variant.data_paths))


def community_model_id(repo: str, variant: str) -> str:
    return slugify(f"{repo.split('/')[-1]}-{variant}")


def pick_variant(listing: RepoListing, variants: Sequence[Variant], wanted: str | None, device: str) -> Variant:
    if wanted:
        found = next((v for v in variants if v.name == wanted.strip().lower()), None)
        if found is None:
            names = ", ".join(v.name for v in variants)
            raise HubError.say(
                "{repo} has no variant {variant}. Variants: {names}.",
                "Pick one of those (in the terminal: --variant NAME).",
                repo=listing.repo,
                variant=repr(wanted),
                names=names,
            )
        return found
    chosen = choose_variant(variants, device)
    if chosen is None:  # pragma: no cover - is_community() means there is at least one
        raise HubError.say("{repo} has no ONNX model file.", "Pick another model.", repo=listing.repo)
    return chosen


def fetch_json(
    listing: RepoListing, path: str, *, token: str | None = None, settings: HubSettings | None = None
) -> dict[str, Any]:
    """A small JSON file of the repo, read into memory and checked against the listed hash (never written to disk)."""
    settings = settings or HubSettings()
    entry = next((f for f in listing.files if f.path == path), None)
    if entry is None:
        raise HubError.say("{repo} has no {file}.", "Pick another model.", repo=listing.repo, file=path)
    if entry.size > MAX_CONFIG_BYTES:
        raise HubError.say(
            "{file} in {repo} is {size} bytes: too big to be a config.", file=path, repo=listing.repo, size=entry.size
        )
    url = hf_hub_url(listing.repo, path, revision=listing.commit, endpoint=listing.endpoint)
    headers = build_hf_headers(token=token_arg(token))
    timeout = settings.connect_timeout_s + settings.stall_timeout_s

    def get() -> bytes:
        response = get_session().get(url, headers=headers, timeout=timeout, follow_redirects=True)
        response.raise_for_status()
        return bytes(response.content)

    try:
        data = with_retries(get, settings)
    except Exception as exc:
        if isinstance(exc, (httpx2.HTTPError,)) or type(exc).__module__.startswith("huggingface_hub"):
            raise explain_hub_error(exc, listing.repo, listing.commit, listing.endpoint, had_token=bool(token)) from exc
        raise
    if entry.sha256:
        digest = hashlib.sha256(data).hexdigest()
    else:
        digest = hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()
    if len(data) != entry.size or digest != entry.expected_hash:
        raise HubError.say(
            "{file} of {repo} arrived damaged (it does not match what Hugging Face lists).",
            "Try again later or on another network.",
            file=path,
            repo=listing.repo,
        )
    try:
        parsed = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise HubError.say(
            "{file} of {repo} is not valid JSON.", "Pick another model.", file=path, repo=listing.repo
        ) from exc
    if not isinstance(parsed, dict):
        raise HubError.say(
            "{file} of {repo} is not a JSON object.", "Pick another model.", file=path, repo=listing.repo
        )
    return parsed


def plan_community(
    listing: RepoListing,
    *,
    variant: str | None = None,
    device: str = "cpu",
    token: str | None = None,
    settings: HubSettings | None = None,
) -> CommunityPlan:
    """Read config.json, refuse an architecture LocalMind cannot run, pick the variant and list its files."""
    config = fetch_json(listing, CONFIG_JSON, token=token, settings=settings)
    problem = architecture_problem(config)
    if problem is not None:
        source, values = problem
        raise UnsupportedArchitectureError(listing.repo, Phrase(source, **values), config)
    paths = [f.path for f in listing.files]
    variants = find_variants(paths)
    chosen = pick_variant(listing, variants, variant, device)
    wanted = {*small_files(paths), *chosen.files}
    files = tuple(sorted((f for f in listing.files if f.path in wanted), key=lambda f: (f.size, f.path)))
    return CommunityPlan(listing.repo, chosen, tuple(variants), files, config)


class UnsupportedArchitectureError(HubError):
    """config.json names an architecture LocalMind cannot run: refused before any weights were fetched."""

    def __init__(self, repo: str, reason: str, config: Mapping[str, Any]) -> None:
        from localmind.core.hub.embedding import ENCODER_HINT, GET_IT, is_encoder

        super().__init__("")
        if is_encoder(config):
            self.tell("{repo} cannot be used: {reason}", ENCODER_HINT, repo=repo, reason=reason, get_it=GET_IT)
        else:
            self.tell(
                "{repo} cannot be used: {reason}", "Pick a model of a supported architecture.", repo=repo, reason=reason
            )
        self.repo = repo
        self.reason = reason
        self.model_type = str(config.get("model_type") or "")
        architectures = config.get("architectures")
        self.architecture = str(architectures[0]) if isinstance(architectures, list) and architectures else ""


def estimate_parameters(config: Mapping[str, Any]) -> int | None:
    """Parameters of a decoder from its config.json shapes (embeddings, attention, MLP, lm head); None if unknown."""
    text = config.get("text_config")
    cfg: Mapping[str, Any] = text if isinstance(text, dict) else config
    try:
        hidden = int(cfg["hidden_size"])
        layers = int(cfg["num_hidden_layers"])
        vocab = int(cfg["vocab_size"])
        heads = int(cfg["num_attention_heads"])
    except (KeyError, TypeError, ValueError):
        return None
    kv_heads = int(cfg.get("num_key_value_heads") or heads)
    head_dim = int(cfg.get("head_dim") or hidden // max(1, heads))
    intermediate = int(cfg.get("intermediate_size") or 4 * hidden)
    attention = hidden * head_dim * (heads * 2 + kv_heads * 2)
    mlp = 3 * hidden * intermediate
    embeddings = vocab * hidden * (1 if cfg.get("tie_word_embeddings", config.get("tie_word_embeddings")) else 2)
    return embeddings + layers * (attention + mlp + 2 * hidden)
