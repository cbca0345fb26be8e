"""Infer onnxruntime-genai's genai_config.json for an onnx-community / Optimum export.

Sources, each filling what the one before left open: config.json (shapes, context, special ids),
generation_config.json (end-of-turn ids: may be a list), the tokenizer files (ids of named special tokens),
and the ONNX graph's own inputs and outputs (names and KV shapes), read without loading any weights.
The graph is the truth for names and KV shapes: exports differ, so nothing about them is hard-coded.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from localmind.engine.types import ModelLoadError
from localmind.errors import Phrase

FORMAT_VERSION = 3  # 3: logits for the last position only (last_logits); bump when the generated config changes, so prepared folders are rebuilt
RECORD_NAME = "localmind-generated.json"  # what LocalMind generated, and from what (og refuses unknown config keys)


@dataclass(frozen=True)
class GraphIO:
    inputs: dict[str, list[int | str]]
    outputs: dict[str, list[int | str]]
    op_types: frozenset[str] = field(default_factory=frozenset)


def read_graph_io(onnx_path: Path) -> GraphIO:
    """Input/output names and shapes of an ONNX graph, reading no weights."""
    from localmind.engine.formats.onnx_proto import OnnxFormatError, read_summary

    try:
        summary = read_summary(onnx_path)
    except (OSError, OnnxFormatError) as exc:
        raise unreadable_onnx(onnx_path, exc) from exc
    return GraphIO(
        inputs={v.name: list(v.shape) for v in summary.inputs},
        outputs={v.name: list(v.shape) for v in summary.outputs},
        op_types=summary.op_types,
    )


def unreadable_onnx(path: Path, reason: BaseException) -> ModelLoadError:
    """The error for an ONNX file that cannot be parsed (a cut download, most often)."""
    return ModelLoadError.say(
        "{file} in {folder} is not a readable ONNX file: {reason}",
        "The download may be incomplete. Download the model again, or pick another folder.",
        file=path.name,
        folder=path.parent,
        reason=reason,
    )


def _kv_pattern(names: list[str], role: str) -> tuple[str, int] | None:
    """("past_key_values.%d.key", layers) for the names holding ``role`` ("key"/"value") of layers 0..N-1."""
    found: dict[str, set[int]] = {}
    for name in names:
        m = re.fullmatch(r"(\D*?)(\d+)(\D*)", name)
        if not m:
            continue
        prefix, index, suffix = m.groups()
        # "past_key_values.0.key" says its role after the index; "past_key_0" before it.
        tag = suffix.strip("._") or re.split(r"[._]", prefix.rstrip("._"))[-1]
        if tag.lower() == role:
            found.setdefault(prefix + "%d" + suffix, set()).add(int(index))
    for pattern, layers in sorted(found.items(), key=lambda kv: -len(kv[1])):
        if layers == set(range(len(layers))):
            return pattern, len(layers)
    return None


def _read_json(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ModelLoadError.say(
            "{file} in {folder} cannot be read: {reason}",
            "Download the model again, or pick another folder.",
            file=path.name,
            folder=path.parent,
            reason=exc,
        ) from exc
    return data if isinstance(data, dict) else {}


def _ids(value: Any) -> list[int]:
    if isinstance(value, bool):
        return []
    if isinstance(value, int):
        return [value]
    if isinstance(value, list):
        return [v for v in value if isinstance(v, int) and not isinstance(v, bool)]
    return []


def _token_id(tokenizer: Mapping[str, Any], token: Any) -> int | None:
    """The id of a special token named in tokenizer_config.json, from tokenizer.json's added tokens or vocab."""
    if isinstance(token, dict):
        token = token.get("content")
    if not isinstance(token, str):
        return None
    for added in tokenizer.get("added_tokens", []) or []:
        if isinstance(added, dict) and added.get("content") == token and isinstance(added.get("id"), int):
            return int(added["id"])
    vocab = (tokenizer.get("model") or {}).get("vocab")
    if isinstance(vocab, dict) and isinstance(vocab.get(token), int):
        return int(vocab[token])
    return None


def _text_config(config: Mapping[str, Any]) -> Mapping[str, Any]:
    nested = config.get("text_config")
    return nested if isinstance(nested, dict) else config


@dataclass(frozen=True)
class _KvNames:
    input_ids: str
    logits: str
    past_k: tuple[str, int]  # (name pattern with %d, layers)
    past_v: tuple[str, int]
    present_k: tuple[str, int]
    present_v: tuple[str, int]


def _kv_names(io: GraphIO, onnx_rel: str) -> _KvNames:
    """The graph's token input, logits output and KV-cache name patterns, or the reason it cannot run."""
    inputs, outputs = list(io.inputs), list(io.outputs)

    def need(names: list[str], wanted: str, what: Phrase) -> str:
        if wanted in names:
            return wanted
        raise ModelLoadError.say(
            "{file} has no {what} ({wanted}); its inputs are {inputs}. "
            "LocalMind runs text-generation exports with a KV cache (Optimum's text-generation-with-past).",
            "Pick another variant or another model.",
            file=onnx_rel,
            what=what,
            wanted=repr(wanted),
            inputs=", ".join(inputs),
        )

    input_ids = need(inputs, "input_ids", Phrase("token input"))
    logits = need(outputs, "logits", Phrase("logits output"))
    past_k = _kv_pattern([n for n in inputs if n != input_ids], "key")
    past_v = _kv_pattern([n for n in inputs if n != input_ids], "value")
    present_k = _kv_pattern(outputs, "key")
    present_v = _kv_pattern(outputs, "value")
    if not (past_k and past_v and present_k and present_v):
        raise ModelLoadError.say(
            "{file} has no KV-cache inputs and outputs (past_key_values.N.key/value, present.N.key/value), "
            "so LocalMind cannot run it.",
            "LocalMind needs a text-generation export with past (Optimum's text-generation-with-past).",
            file=onnx_rel,
        )
    return _KvNames(input_ids, logits, past_k, past_v, present_k, present_v)


def _attention_shape(hf: Mapping[str, Any], io: GraphIO, names: _KvNames, folder: Path) -> tuple[int, int, int, int]:
    """(heads, kv_heads, hidden_size, head_size): config.json's, where the graph's own KV shape does not fix them."""
    past_shape = io.inputs[names.past_k[0] % 0]
    kv_heads = hf.get("num_key_value_heads") or hf.get("num_attention_heads")
    heads = hf.get("num_attention_heads")
    hidden = hf.get("hidden_size")
    head_size = hf.get("head_dim") or (hidden // heads if isinstance(hidden, int) and isinstance(heads, int) else None)
    # The graph's own KV shape [batch, kv_heads, past, head_size] wins over config.json where it is fixed.
    if len(past_shape) == 4:
        kv_heads = past_shape[1] if isinstance(past_shape[1], int) and past_shape[1] > 0 else kv_heads
        head_size = past_shape[3] if isinstance(past_shape[3], int) and past_shape[3] > 0 else head_size
    if not all(isinstance(v, int) and v > 0 for v in (kv_heads, heads, hidden, head_size)):
        raise ModelLoadError.say(
            "config.json in {folder} lacks the model's shape (hidden_size, num_attention_heads).",
            "Download the model again, or pick another folder.",
            folder=folder,
        )
    return int(heads), int(kv_heads), int(hidden), int(head_size)  # type: ignore[arg-type]


def _special_tokens(
    folder: Path, hf: Mapping[str, Any], generation: Mapping[str, Any], sources: list[str]
) -> tuple[list[int], list[int], list[int]]:
    """(eos, bos, pad) token ids from generation_config.json, config.json or the tokenizer."""
    eos = _ids(generation.get("eos_token_id")) or _ids(hf.get("eos_token_id"))
    tokenizer_config = _read_json(folder / "tokenizer_config.json")
    if not eos and tokenizer_config.get("eos_token") is not None:
        tokenizer = _read_json(folder / "tokenizer.json")
        eos = _ids(_token_id(tokenizer, tokenizer_config.get("eos_token")))
    if not eos:
        raise ModelLoadError.say(
            "{folder} does not say which token ends a reply (eos_token_id in generation_config.json or config.json).",
            "Download the model again, or pick another folder.",
            folder=folder,
        )
    if "eos_token_id" in generation:
        sources.append("generation_config.json: eos_token_id")
    bos = _ids(generation.get("bos_token_id")) or _ids(hf.get("bos_token_id")) or [eos[0]]
    pad = _ids(generation.get("pad_token_id")) or _ids(hf.get("pad_token_id")) or [eos[0]]
    return eos, bos, pad


def _search_defaults(context: int, io: GraphIO) -> dict[str, Any]:
    return {
        "do_sample": False,
        "max_length": context,
        "min_length": 0,
        "num_beams": 1,
        "num_return_sequences": 1,
        # Exported graphs concatenate past and new KV: a shared buffer fails at the first append. After
        # LocalMind's attention rewrite (GroupQueryAttention) past and present are one max-length buffer.
        "past_present_share_buffer": "GroupQueryAttention" in io.op_types,
        "repetition_penalty": 1.0,
        "temperature": 1.0,
        "top_k": 1,
        "top_p": 1.0,
    }


def infer_genai_config(
    folder: Path, onnx_rel: str, *, threads: int | None = None
) -> tuple[dict[str, Any], dict[str, Any]]:
    """(genai_config, record) for the graph ``onnx_rel`` (relative posix path) in ``folder``.

    ``record`` says what the config was generated from (for the manifest and for rebuild decisions).
    """
    hf = _text_config(_read_json(folder / "config.json"))
    if not hf:
        raise ModelLoadError.say("config.json is missing from {folder}.", "Pick the model's top folder.", folder=folder)
    generation = _read_json(folder / "generation_config.json")
    io = read_graph_io(folder / onnx_rel)
    sources = ["config.json"]
    sources += [n for n in ("generation_config.json", "tokenizer_config.json") if (folder / n).is_file()]
    names = _kv_names(io, onnx_rel)
    heads, kv_heads, hidden, head_size = _attention_shape(hf, io, names, folder)
    context = int(hf.get("max_position_embeddings") or hf.get("max_sequence_length") or 2048)
    eos, bos, pad = _special_tokens(folder, hf, generation, sources)
    decoder_inputs: dict[str, str] = {"input_ids": names.input_ids}
    for name in ("attention_mask", "position_ids"):
        if name in io.inputs:  # og fills position_ids itself (also after a rewind) only when the graph takes them
            decoder_inputs[name] = name
    decoder_inputs["past_key_names"] = names.past_k[0]
    decoder_inputs["past_value_names"] = names.past_v[0]
    session_options: dict[str, Any] = {"log_id": "localmind", "provider_options": []}
    if threads:
        session_options["intra_op_num_threads"] = threads
    model_type = str(hf.get("model_type", "llama"))
    decoder = {
        "session_options": session_options,
        "filename": onnx_rel,
        "head_size": head_size,
        "hidden_size": hidden,
        "inputs": decoder_inputs,
        "outputs": {
            "logits": names.logits,
            "present_key_names": names.present_k[0],
            "present_value_names": names.present_v[0],
        },
        "num_attention_heads": heads,
        "num_hidden_layers": names.past_k[1],
        "num_key_value_heads": kv_heads,
    }
    config = {
        "model": {
            "bos_token_id": bos[0],
            "context_length": context,
            "decoder": decoder,
            "eos_token_id": eos if len(eos) > 1 else eos[0],
            "pad_token_id": pad[0],
            "type": model_type,
            "vocab_size": int(hf.get("vocab_size") or 0),
        },
        "search": _search_defaults(context, io),
    }
    sources.append(f"{onnx_rel}: inputs and outputs")
    record = {
        "generated_by": "LocalMind",
        "format_version": FORMAT_VERSION,
        "decoder": onnx_rel,
        "sources": sources,
        "model_type": model_type,
        "graph_inputs": list(io.inputs),
    }
    return config, record


def write_genai_config(folder: Path, onnx_rel: str, *, extra_record: Mapping[str, Any] | None = None) -> Path:
    """Write genai_config.json (and the record of what it came from) into ``folder``; return the config's path."""
    config, record = infer_genai_config(folder, onnx_rel)
    record.update(extra_record or {})
    path = folder / "genai_config.json"
    path.write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
    (folder / RECORD_NAME).write_text(json.dumps(record, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


__all__ = ["FORMAT_VERSION", "RECORD_NAME", "GraphIO", "infer_genai_config", "read_graph_io", "write_genai_config"]
