"""Opening a model folder with og: device choice with fallback, the tokenizer, and errors in words."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from localmind.engine import winml
from localmind.engine.devices import (
    DEVICE_LABELS,
    DeviceAttempt,
    ModelFactory,
    is_device_problem,
    load_with_fallback,
    physical_cores,
)
from localmind.engine.prompt_builder import DEFAULT_CONTEXT_BUDGET
from localmind.engine.types import LoadOptions, ModelLoadError
from localmind.engine.validate import ModelFolder, check_tokenizer_file, explain_og_error, validate_model_folder
from localmind.errors import Phrase

os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")


@dataclass
class OpenedModel:
    og: Any
    model: Any
    tokenizer: Any
    folder: ModelFolder
    device: str
    attempts: list[DeviceAttempt]
    budget: int  # the context LocalMind allows (og's max_length)
    threads: int
    eos: set[int]
    warnings: list[str]  # Phrases: the window shows them in its language


def open_model(
    model_dir: str, options: LoadOptions, factory: ModelFactory, release: Callable[[], None] | None = None
) -> OpenedModel:
    """Validate ``model_dir``, load it on the first device that works and make its tokenizer. ``release`` (the
    model loaded now) is called once the folder is known to be valid: a wrong folder leaves the old model be."""
    folder = validate_model_folder(model_dir, variant=options.variant, device=options.device, read_tokenizer=False)
    if release is not None:
        release()
    import onnxruntime_genai as og

    og_any: Any = og
    if hasattr(og_any, "disable_telemetry_events"):
        og_any.disable_telemetry_events()
    winml.ensure_registered(og_any)  # Windows ML's GPU/NPU providers (Windows only; inert elsewhere)
    budget = options.context_budget or DEFAULT_CONTEXT_BUDGET
    budget = max(64, min(budget, folder.context_length))
    threads = options.threads or physical_cores()
    overlay = {
        "model": {"decoder": {"session_options": {"intra_op_num_threads": threads}}},
        # og allocates the KV cache for max_length up front: never the model's full context blindly.
        "search": {"max_length": budget},
    }
    try:
        model, device, attempts = load_with_fallback(str(folder.path), options.device, overlay, factory)
    except Exception as exc:
        raise explain_load_error(exc, folder, options.device) from exc
    try:
        tokenizer = og.Tokenizer(model)
    except Exception as exc:
        check_tokenizer_file(folder.path)  # a damaged tokenizer.json: say which file and what is wrong
        raise ModelLoadError.say(
            "The tokenizer in {folder} could not be loaded.",
            "(onnxruntime-genai said: {raw})",
            folder=folder.path,
            raw=exc,
        ) from exc
    warnings: list[str] = []
    if folder.chat_template is None:
        warnings.append(
            Phrase("This model has no chat template; LocalMind uses a generic one (ChatML), so answers may be poor.")
        )
    eos = {int(t) for t in tokenizer.eos_token_ids}
    eos_cfg = folder.config["model"].get("eos_token_id")
    eos |= {int(t) for t in (eos_cfg if isinstance(eos_cfg, list) else [eos_cfg]) if isinstance(t, int)}
    return OpenedModel(og, model, tokenizer, folder, device, list(attempts), budget, threads, eos, warnings)


def kv_bytes_per_token(folder: ModelFolder, device: str) -> int:
    """Bytes of og's KV cache per token of context: keys and values of every layer, in the graph's float type.

    The float type is not read from the graph (that costs start-up time): fp32 on the CPU (og's int4 and q4
    models keep fp32 inputs), fp16 for fp16/bf16 variants and on GPUs (their builds use fp16 inputs).
    """
    decoder = folder.config.get("model", {}).get("decoder", {})
    try:
        layers, heads = int(decoder["num_hidden_layers"]), int(decoder["num_key_value_heads"])
        head_size = int(decoder.get("head_size") or int(decoder["hidden_size"]) // int(decoder["num_attention_heads"]))
    except (KeyError, TypeError, ValueError, ZeroDivisionError):
        return 0
    half = device != "cpu" or (folder.variant or "").lower() in ("fp16", "bf16")
    return layers * 2 * heads * head_size * (2 if half else 4)


def explain_load_error(exc: BaseException, folder: ModelFolder, requested: str) -> ModelLoadError:
    """A load failure in words that fit its cause: the device, the model's kind, or the files."""
    raw = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:300]
    if requested not in ("auto", "cpu") and is_device_problem(raw):
        return ModelLoadError.say(
            "This copy of LocalMind cannot use {device}: {reason}.",
            "Choose Automatic or CPU as the device in Settings (in the terminal: --device cpu).",
            device=DEVICE_LABELS.get(requested, requested),
            reason=raw.rstrip("."),
        )
    if "model_type" in raw or "model type" in raw.lower():
        return ModelLoadError.say(
            "This kind of model ({kind}) is not supported by the installed onnxruntime-genai.",
            "Try another model, or a newer version of LocalMind.",
            kind=folder.model_type,
        )
    return explain_og_error(exc, folder)


__all__ = ["OpenedModel", "explain_load_error", "kv_bytes_per_token", "open_model"]
