"""The onnx-community / Optimum layout: recognise it, list its variants, pick one, name the small files.

Pure functions over relative posix paths (a Hub repo listing or a folder listing), so the model manager can
decide what to download before fetching anything, and the engine can decide what to load from a folder.

The layout (transformers.js / Optimum exports, e.g. onnx-community/SmolLM2-135M-Instruct-ONNX):
``config.json``, ``generation_config.json``, tokenizer files at the top; ``onnx/model.onnx`` (fp32) and its
quantized siblings ``onnx/model_q4.onnx``, ``model_fp16.onnx``, ... each with optional external data
(``model_q4.onnx_data``, ``model_q4.onnx_data_1``, ...); and no ``genai_config.json`` (that would make it an
onnxruntime-genai package, which loads as it is).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from localmind.errors import translatable

# config.json model_type values whose Optimum decoder graphs run in onnxruntime-genai with a generated config.
# These graphs are plain decoders (input_ids, attention_mask, [position_ids], past_key_values.* -> logits,
# present.*): og only needs a model type it knows. Multimodal and encoder-decoder types are not in the list.
SUPPORTED_MODEL_TYPES: frozenset[str] = frozenset(
    {
        "llama",  # Llama 2/3.x, SmolLM2, TinyLlama
        "mistral",
        "qwen2",  # Qwen2, Qwen2.5, DeepSeek-R1-Distill-Qwen
        "qwen3",
        "phi3",  # Phi-3, Phi-3.5-mini, Phi-4-mini
        "gemma",
        "gemma2",
        "gemma3_text",  # Gemma 3 text-only (270m, 1b)
        "smollm3",
        "granite",
        "olmo",
    }
)

# Human names for the refusal message, in the order shown.
_FAMILIES = "Llama (incl. SmolLM2), Mistral, Qwen2/Qwen2.5, Qwen3, Phi-3, Gemma 1/2/3 (text), SmolLM3, Granite, OLMo"

# Folder names the weights may sit in; "" is the repo root (a plain Optimum export writes there).
_ONNX_DIRS = ("onnx", "")
# Graph base names: "model" (current exports) and "decoder_model_merged" (older Optimum exports).
_BASES = ("model", "decoder_model_merged")
_LABELS = {
    "fp32": "32-bit float",
    "fp16": "16-bit float",
    "q4": "4-bit",
    "q4f16": "4-bit, 16-bit float activations",
    "int8": "8-bit",
    "uint8": "8-bit (unsigned)",
    "quantized": "8-bit",
    "bnb4": "4-bit (bitsandbytes)",
}
# Preference orders. CPU: 4-bit MatMulNBits is fastest and smallest; 8-bit next; fp32 runs everywhere;
# fp16 graphs are slow on CPU (few fp16 kernels) so they come last. GPU providers run fp16 natively.
_CPU_ORDER = ("q4", "int8", "uint8", "quantized", "fp32", "bnb4", "q4f16", "fp16")
_GPU_ORDER = ("fp16", "q4f16", "q4", "fp32", "int8", "uint8", "quantized", "bnb4")
_GPU_DEVICES = frozenset({"cuda", "dml", "gpu", "directml", "webgpu"})

_SMALL_NAMES = frozenset(
    {
        "config.json",
        "generation_config.json",
        "tokenizer.json",
        "tokenizer_config.json",
        "special_tokens_map.json",
        "added_tokens.json",
        "chat_template.jinja",
        "chat_template.json",
        "tokenizer.model",
        "vocab.json",
        "vocab.txt",
        "merges.txt",
    }
)
_SMALL_PREFIXES = ("license", "readme", "notice")
_WEIGHT_SUFFIXES = (".onnx", ".safetensors", ".bin", ".gguf", ".pt", ".pth", ".h5", ".msgpack", ".ckpt")
_DATA_RE = re.compile(r"\.onnx[._]data(_\d+)?$")


@dataclass(frozen=True)
class Variant:
    name: str  # "q4", "q4f16", "fp16", "int8", "uint8", "bnb4", "quantized", "fp32" (model.onnx)
    onnx_path: str  # repo-relative posix path, e.g. "onnx/model_q4.onnx"
    data_paths: tuple[str, ...]  # its external data files present in the listing
    quantization: str  # short human label, e.g. "4-bit", "16-bit float"

    @property
    def files(self) -> tuple[str, ...]:
        """The graph and its external data: everything of this variant to fetch."""
        return (self.onnx_path, *self.data_paths)


def _normalise(paths: Iterable[str]) -> list[str]:
    out = []
    for p in paths:
        p = p.replace("\\", "/").strip("/")
        while p.startswith("./"):
            p = p[2:]
        if p:
            out.append(p)
    return out


def _split(path: str) -> tuple[str, str]:
    folder, _, name = path.rpartition("/")
    return folder, name


def is_community_layout(paths: Iterable[str]) -> bool:
    """config.json at the top, a decoder graph in onnx/ (or at the top), and no genai_config.json anywhere."""
    listing = _normalise(paths)
    if any(_split(p)[1] == "genai_config.json" for p in listing):
        return False
    return "config.json" in listing and bool(find_variants(listing))


def check_architecture(config: Mapping[str, Any]) -> str | None:
    """None when config.json describes an architecture LocalMind runs in this layout; else why not (English)."""
    problem = architecture_problem(config)
    return problem[0].format(**problem[1]) if problem else None


def architecture_problem(config: Mapping[str, Any]) -> tuple[str, dict[str, str]] | None:
    """None when the architecture runs here; else why not as (source text, its values), for ``say``."""
    model_type = config.get("model_type")
    architectures = config.get("architectures")
    arch = architectures[0] if isinstance(architectures, list) and architectures else None
    if not isinstance(model_type, str) or not model_type:
        return translatable(
            "config.json does not say which architecture this model is (no model_type), so LocalMind cannot run it. "
            "Supported: {families}."
        ), {"families": _FAMILIES}
    named = f"{arch} ({model_type})" if isinstance(arch, str) else model_type
    if model_type not in SUPPORTED_MODEL_TYPES:
        return translatable(
            "{named} is not an architecture LocalMind can run from an ONNX export. Supported: {families}."
        ), {"named": named, "families": _FAMILIES}
    if isinstance(arch, str) and not arch.endswith("ForCausalLM"):
        return translatable(
            "{named} is not a text-generation (causal language) model, so LocalMind cannot chat with it. "
            "Supported: {families}."
        ), {"named": named, "families": _FAMILIES}
    return None


def _variant_name(stem: str) -> tuple[str, str] | None:
    """(base, variant) for a graph file stem such as "model_q4f16"; None for graphs that are not the decoder."""
    for base in _BASES:
        if stem == base:
            return base, "fp32"
        if stem.startswith(base + "_"):
            suffix = stem[len(base) + 1 :]
            if suffix and re.fullmatch(r"[a-z0-9_]+", suffix):
                return base, suffix
    return None


def _data_sort_key(path: str) -> tuple[int, str]:
    m = re.search(r"_(\d+)$", path)
    return (int(m.group(1)) if m else -1, path)


def find_variants(paths: Iterable[str]) -> list[Variant]:
    """The decoder variants in a listing, in the listing's folder order (onnx/ first), then by name."""
    listing = _normalise(paths)
    present = set(listing)
    found: dict[str, Variant] = {}
    for folder in _ONNX_DIRS:
        for base in _BASES:
            for path in sorted(listing):
                where, name = _split(path)
                if where != folder or not name.endswith(".onnx"):
                    continue
                parsed = _variant_name(name[: -len(".onnx")])
                if parsed is None or parsed[0] != base or parsed[1] in found:
                    continue
                data = sorted(
                    (p for p in present if p.startswith(path) and _DATA_RE.search(p[len(path) - len(".onnx") :])),
                    key=_data_sort_key,
                )
                variant = parsed[1]
                found[variant] = Variant(variant, path, tuple(data), _LABELS.get(variant, variant))
    return list(found.values())


def choose_variant(variants: Sequence[Variant], device: str) -> Variant | None:
    """The variant to use on ``device``: "cpu" (also "auto", "coreml") or a GPU ("cuda", "dml", "gpu")."""
    if not variants:
        return None
    order = _GPU_ORDER if device.lower() in _GPU_DEVICES else _CPU_ORDER
    rank = {name: i for i, name in enumerate(order)}
    # Unknown variant names come after every known one, in listing order.
    return min(enumerate(variants), key=lambda iv: (rank.get(iv[1].name, len(order)), iv[0]))[1]


def small_files(paths: Iterable[str]) -> list[str]:
    """The non-weight files at the top of the listing that a model needs or describes itself with."""
    out = []
    for path in _normalise(paths):
        folder, name = _split(path)
        lower = name.lower()
        if folder or lower.endswith(_WEIGHT_SUFFIXES) or _DATA_RE.search(lower):
            continue
        if lower in _SMALL_NAMES or lower.startswith(_SMALL_PREFIXES) or lower.endswith(".jinja"):
            out.append(path)
    return sorted(out)


__all__ = [
    "SUPPORTED_MODEL_TYPES",
    "Variant",
    "architecture_problem",
    "check_architecture",
    "choose_variant",
    "find_variants",
    "is_community_layout",
    "small_files",
]
