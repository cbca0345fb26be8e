"""genai_config.json inference: names come from the graph, never assumed; every supported type loads in og."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from localmind.engine.formats import genai_config
from localmind.engine.formats.variants import SUPPORTED_MODEL_TYPES
from localmind.engine.types import ModelLoadError
from localmind.engine.validate import validate_model_folder
from tests.helpers import community_model


def io_only_graph(path: Path, inputs: list[str], outputs: list[str], kv_heads: int = 2, head: int = 8) -> None:
    """An ONNX file with just the given inputs and outputs (genai_config only reads those)."""
    import onnx
    from onnx import TensorProto, helper

    def value(name: str) -> onnx.ValueInfoProto:
        if "key" in name or "value" in name:
            return helper.make_tensor_value_info(name, TensorProto.FLOAT, ["batch", kv_heads, "past", head])
        return helper.make_tensor_value_info(name, TensorProto.INT64, ["batch", "seq"])

    nodes = [helper.make_node("Identity", [inputs[0]], [o]) for o in outputs]
    graph = helper.make_graph(nodes, "g", [value(n) for n in inputs], [value(n) for n in outputs])
    onnx.save(helper.make_model(graph), str(path))


def write_folder(folder: Path, config: dict[str, object], generation: dict[str, object] | None = None) -> None:
    (folder / "onnx").mkdir(parents=True)
    (folder / "config.json").write_text(json.dumps(config), encoding="utf-8")
    if generation is not None:
        (folder / "generation_config.json").write_text(json.dumps(generation), encoding="utf-8")


HF = {"model_type": "qwen2", "hidden_size": 64, "num_attention_heads": 8, "num_key_value_heads": 2, "eos_token_id": 5}


def test_position_ids_only_when_the_graph_takes_them_and_kv_shape_from_the_graph(tmp_path: Path) -> None:
    write_folder(tmp_path, {**HF, "max_position_embeddings": 32768})
    ins = ["input_ids", "attention_mask", *[f"past_key_values.{i}.{r}" for i in range(3) for r in ("key", "value")]]
    outs = ["logits", *[f"present.{i}.{r}" for i in range(3) for r in ("key", "value")]]
    io_only_graph(tmp_path / "onnx" / "model.onnx", ins, outs, kv_heads=2, head=8)
    config, record = genai_config.infer_genai_config(tmp_path, "onnx/model.onnx")
    decoder = config["model"]["decoder"]
    assert "position_ids" not in decoder["inputs"]
    assert decoder["num_hidden_layers"] == 3  # counted in the graph
    assert decoder["head_size"] == 8 and decoder["num_key_value_heads"] == 2
    assert config["model"]["eos_token_id"] == 5 and config["model"]["pad_token_id"] == 5
    assert config["model"]["context_length"] == 32768
    assert record["graph_inputs"] == ins


def test_other_kv_names_are_read_from_the_graph(tmp_path: Path) -> None:
    write_folder(tmp_path, HF, {"eos_token_id": [7, 9]})
    ins = ["input_ids", "attention_mask", "past_key_0", "past_value_0", "past_key_1", "past_value_1"]
    outs = ["logits", "present_key_0", "present_value_0", "present_key_1", "present_value_1"]
    io_only_graph(tmp_path / "onnx" / "model.onnx", ins, outs)
    config, _ = genai_config.infer_genai_config(tmp_path, "onnx/model.onnx")
    decoder = config["model"]["decoder"]
    assert decoder["inputs"]["past_key_names"] == "past_key_%d"
    assert decoder["inputs"]["past_value_names"] == "past_value_%d"
    assert decoder["outputs"]["present_value_names"] == "present_value_%d"
    assert config["model"]["eos_token_id"] == [7, 9]


def test_a_graph_without_a_kv_cache_is_refused(tmp_path: Path) -> None:
    write_folder(tmp_path, HF)
    io_only_graph(tmp_path / "onnx" / "model.onnx", ["input_ids", "attention_mask"], ["logits"])
    with pytest.raises(ModelLoadError, match="no KV-cache inputs"):
        genai_config.infer_genai_config(tmp_path, "onnx/model.onnx")


def test_an_end_of_turn_token_named_only_in_the_tokenizer_is_found(tmp_path: Path) -> None:
    write_folder(tmp_path, {k: v for k, v in HF.items() if k != "eos_token_id"})
    (tmp_path / "tokenizer_config.json").write_text(json.dumps({"eos_token": "<|im_end|>"}), encoding="utf-8")
    tokenizer = {"added_tokens": [{"id": 42, "content": "<|im_end|>"}], "model": {"vocab": {}}}
    (tmp_path / "tokenizer.json").write_text(json.dumps(tokenizer), encoding="utf-8")
    ins = ["input_ids", "past_key_values.0.key", "past_key_values.0.value"]
    io_only_graph(tmp_path / "onnx" / "model.onnx", ins, ["logits", "present.0.key", "present.0.value"])
    config, _ = genai_config.infer_genai_config(tmp_path, "onnx/model.onnx")
    assert config["model"]["eos_token_id"] == 42
    assert "attention_mask" not in config["model"]["decoder"]["inputs"]


@pytest.mark.slow
@pytest.mark.parametrize("model_type", sorted(SUPPORTED_MODEL_TYPES))
def test_every_supported_type_loads_in_og_and_gives_the_same_tokens(model_type: str) -> None:
    """og only needs a type it knows for these plain graphs; an unknown one fails with "Unsupported model_type"."""
    import onnxruntime_genai as og

    folder = validate_model_folder(community_model.cached("smollm2-tiny"), variant="fp32", device="cpu")

    def tokens(type_name: str) -> list[int]:
        config = og.Config(str(folder.path))
        config.overlay(json.dumps({"model": {"type": type_name}}))
        model = og.Model(config)
        params = og.GeneratorParams(model)
        params.set_search_options(max_length=64)
        generator = og.Generator(model, params)
        generator.append_tokens(np.asarray([5, 17, 99, 3, 250], dtype=np.int32))
        out = []
        for _ in range(8):
            generator.generate_next_token()
            out.append(int(generator.get_next_tokens()[0]))
        return out

    assert tokens(model_type) == tokens("llama")
