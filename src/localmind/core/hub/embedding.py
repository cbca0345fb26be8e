"""Embedding models from the Hub (catalog ``kind: "embedding"``): what to fetch, and how to finish the folder.

Such a repo (e.g. Xenova/multilingual-e5-small, a Transformers.js export) has the onnx-community layout:
``config.json`` and tokenizer files at the top, ``onnx/model.onnx`` and quantized siblings. Unlike a chat model it
needs no genai_config.json: Documents runs it with plain onnxruntime. So LocalMind fetches one graph variant and
the small files, writes ``embedding.json`` (the catalog's prefixes, pooling and similarity floor, and which graph),
runs the model once on a sentence — a folder that does not embed is refused before it is installed — and installs
it like any model (manifest with hashes, ``kind: "embedding"``), so verify and remove work as for the others.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from localmind.core.hub.errors import HubError
from localmind.core.hub.hashing import SHA256, hash_file
from localmind.core.hub.listing import RemoteFile, RepoListing
from localmind.core.hub.manifest import ManifestFile, now_iso
from localmind.engine.formats.variants import Variant, find_variants, small_files
from localmind.errors import UserFacingError, translatable

if TYPE_CHECKING:
    from localmind.core.catalog import CatalogEntry

# Loads the model in a folder and embeds a text: the vector width, or a UserFacingError. Documents has it
# (documents.embed.check_embedding_model); the Hub client is below Documents, so its callers pass it in.
EmbeddingCheck = Callable[[Path], int]

CONFIG_NAME = "embedding.json"
TOKENIZER = "tokenizer.json"
# On a CPU: the 8-bit dynamic quantization is a quarter of fp32's size and the fastest on x86 (int8 matmuls);
# then fp32. 4-bit graphs lose more quality on a small encoder, fp16 graphs are slow on CPUs: last.
CPU_ORDER = ("quantized", "int8", "uint8", "fp32", "q4", "bnb4", "fp16", "q4f16")


# Encoders (text in, vectors out): what sentence-embedding models are built on. Not chat models.
ENCODER_TYPES = frozenset(
    {"bert", "xlm-roberta", "roberta", "distilbert", "mpnet", "camembert", "electra", "nomic_bert", "modernbert"}
)
GET_IT = "localmind models download multilingual-e5-small"


def is_encoder(config: Mapping[str, Any]) -> bool:
    """config.json describes a BERT/XLM-R-style encoder (an embedding model's base), not a text generator."""
    model_type = str(config.get("model_type") or "").lower()
    architectures = config.get("architectures")
    arch = str(architectures[0]) if isinstance(architectures, list) and architectures else ""
    return model_type in ENCODER_TYPES and not arch.endswith("ForCausalLM")


# What to do instead of downloading an encoder as a chat model (the repo-id path cannot know its prefixes and
# pooling, which a wrong guess silently ruins, so only the catalog's embedding model is installed as one).
ENCODER_HINT = translatable(
    "This is an embedding model, not a chat model. For Documents' search by meaning use the catalog's embedding "
    "model: `{get_it}` (or Documents → Download the embedding model)."
)


def encoder_hint() -> str:
    return ENCODER_HINT.format(get_it=GET_IT)


def catalog_embedding_entry(repo: str) -> CatalogEntry | None:
    """The catalog's embedding entry for ``repo`` (owner/name, any case), or None."""
    from localmind.core.catalog import load_catalog

    wanted = repo.strip().lower()
    return next((e for e in load_catalog() if e.kind == "embedding" and e.repo.lower() == wanted), None)


@dataclass(frozen=True)
class EmbeddingPlan:
    repo: str
    variant: Variant
    variants: tuple[Variant, ...]
    files: tuple[RemoteFile, ...]


def plan_embedding(listing: RepoListing, variant: str | None = None) -> EmbeddingPlan:
    """The variant to fetch (the catalog's, else the best for a CPU) and the small files beside it."""
    paths = [f.path for f in listing.files]
    if TOKENIZER not in paths:
        raise HubError.say(
            "{repo} has no {file} at its top, so it cannot be used as an embedding model.",
            "Pick an embedding model from the catalog.",
            repo=listing.repo,
            file=TOKENIZER,
        )
    variants = find_variants(paths)
    if not variants:
        raise HubError.say(
            "{repo} has no ONNX model file.", "Pick an embedding model from the catalog.", repo=listing.repo
        )
    rank = {name: i for i, name in enumerate(CPU_ORDER)}
    chosen = min(variants, key=lambda v: rank.get(v.name, len(CPU_ORDER)))
    if variant:
        found = next((v for v in variants if v.name == variant.strip().lower()), None)
        if found is None:
            names = ", ".join(v.name for v in variants)
            raise HubError.say(
                "{repo} has no variant {variant}. Variants: {names}.",
                "Pick one of those.",
                repo=listing.repo,
                variant=repr(variant),
                names=names,
            )
        chosen = found
    wanted = {*small_files(paths), *chosen.files}
    files = tuple(sorted((f for f in listing.files if f.path in wanted), key=lambda f: (f.size, f.path)))
    return EmbeddingPlan(listing.repo, chosen, tuple(variants), files)


def finish_embedding_folder(
    staging: Path,
    plan: EmbeddingPlan,
    entries: list[ManifestFile],
    settings: Mapping[str, Any],
    *,
    check: Callable[[], None],
    embeds: EmbeddingCheck,
) -> tuple[list[ManifestFile], dict[str, Any]]:
    """Write embedding.json, check that the model embeds (``embeds``: its vector width, or a UserFacingError saying
    why not), and return the manifest's entries and record."""
    config = {**settings, "onnx": plan.variant.onnx_path}
    path = staging / CONFIG_NAME
    path.write_text(json.dumps(config, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    check()
    try:
        dimensions = embeds(staging)
    except UserFacingError as exc:
        raise HubError.say(
            "{repo} downloaded fine but is not a usable embedding model: {reason}",
            "Pick another embedding model.",
            repo=plan.repo,
            reason=exc.message_phrase(),
        ) from exc
    result = [e for e in entries if e.path != CONFIG_NAME]
    result.append(ManifestFile(CONFIG_NAME, path.stat().st_size, SHA256, hash_file(path, SHA256)))
    generated: dict[str, Any] = {
        "layout": "embedding",
        "config": CONFIG_NAME,
        "generated_at": now_iso(),
        "variant": plan.variant.name,
        "quantization": plan.variant.quantization,
        "onnx": plan.variant.onnx_path,
        "variants_available": [v.name for v in plan.variants],
        "dimensions": dimensions,
        "settings": dict(settings),
        "generated_files": [CONFIG_NAME],
    }
    return sorted(result, key=lambda e: e.path), generated
