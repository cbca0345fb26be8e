"""What the manager and the picker say about a model: parameters, quantization, context, size, memory, origin.

Read from the folder (genai_config.json, config.json when there is one) and the manifest; the memory is what
the engine measured the last time it loaded the model (``record_loaded_memory``), never a guess.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from localmind.core.hub.community import estimate_parameters
from localmind.core.hub.manifest import Manifest
from localmind.core.model_memory import STATS_NAME as STATS_NAME  # re-exported: the app records the chat model's
from localmind.core.model_memory import loaded_memory as loaded_memory
from localmind.core.model_memory import record_loaded_memory as record_loaded_memory

_QUANT = re.compile(r"(int4|int8|fp16|fp32|q4f16|q4|bf16|uint8|bnb4)", re.IGNORECASE)


@dataclass(frozen=True)
class ModelFacts:
    parameters: int | None
    quantization: str  # "" when unknown
    context_length: int | None
    file_bytes: int | None
    memory_bytes: int | None  # measured after the last load; None until loaded once
    source: str  # where it came from (English; the window words its own from the manifest)
    generated_config: bool  # LocalMind wrote its genai_config.json (an onnx-community download)
    kind: str = "chat"  # "embedding": used by Documents, never loaded in the chat


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        return {}
    return data if isinstance(data, dict) else {}


def _parameters_from_genai(config: dict[str, Any]) -> int | None:
    model = config.get("model")
    if not isinstance(model, dict):
        return None
    decoder = model.get("decoder")
    if not isinstance(decoder, dict):
        return None
    shaped = {
        "hidden_size": decoder.get("hidden_size"),
        "num_hidden_layers": decoder.get("num_hidden_layers"),
        "num_attention_heads": decoder.get("num_attention_heads"),
        "num_key_value_heads": decoder.get("num_key_value_heads"),
        "head_dim": decoder.get("head_size"),
        "vocab_size": model.get("vocab_size"),
    }
    if any(v is None for k, v in shaped.items() if k != "num_key_value_heads"):
        return None
    return estimate_parameters(shaped)


def model_facts(model_dir: Path, manifest: Manifest | None = None) -> ModelFacts:
    genai = _read_json(model_dir / "genai_config.json")
    config = _read_json(model_dir / "config.json")
    model = genai.get("model") if isinstance(genai.get("model"), dict) else {}
    assert isinstance(model, dict)
    context = model.get("context_length")
    if context is None:  # an embedding model (Documents): its token limit is in embedding.json
        context = _read_json(model_dir / "embedding.json").get("max_tokens")
    generated = manifest.generated if manifest is not None else None
    quantization = ""
    if generated:
        quantization = str(generated.get("quantization") or generated.get("variant") or "")
    else:
        decoder = model.get("decoder") if isinstance(model.get("decoder"), dict) else {}
        assert isinstance(decoder, dict)
        for text in (manifest.folder if manifest else "", str(decoder.get("filename", "")), model_dir.name):
            match = _QUANT.search(text or "")
            if match:
                quantization = match.group(1).lower()
                break
    parameters = estimate_parameters(config) if config else None
    if parameters is None and genai:
        parameters = _parameters_from_genai(genai)
    size = manifest.total_bytes if manifest is not None and manifest.source != "reference" else None
    if size is None:
        size = sum(p.stat().st_size for p in model_dir.rglob("*") if p.is_file()) if model_dir.is_dir() else None
    return ModelFacts(
        parameters=parameters,
        quantization=quantization,
        context_length=context if isinstance(context, int) else None,
        file_bytes=size,
        memory_bytes=loaded_memory(model_dir),
        source=manifest.describe_source() if manifest is not None else str(model_dir),
        generated_config=bool(generated),
        kind=manifest.kind if manifest is not None else "chat",
    )
