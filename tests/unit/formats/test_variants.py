"""The layout contract the model manager codes against: recognition, variants, choice, small files, architectures."""

from __future__ import annotations

import pytest

from localmind.engine.formats.variants import (
    SUPPORTED_MODEL_TYPES,
    Variant,
    check_architecture,
    choose_variant,
    find_variants,
    is_community_layout,
    small_files,
)

# The file listing of onnx-community/SmolLM2-135M-Instruct-ONNX's kind of repo (names as the Hub lists them).
SMOLLM2_LISTING = [
    ".gitattributes",
    "README.md",
    "config.json",
    "generation_config.json",
    "special_tokens_map.json",
    "tokenizer.json",
    "tokenizer_config.json",
    "onnx/model.onnx",
    "onnx/model.onnx_data",
    "onnx/model_bnb4.onnx",
    "onnx/model_fp16.onnx",
    "onnx/model_fp16.onnx_data",
    "onnx/model_int8.onnx",
    "onnx/model_q4.onnx",
    "onnx/model_q4.onnx_data",
    "onnx/model_q4f16.onnx",
    "onnx/model_quantized.onnx",
    "onnx/model_uint8.onnx",
]


def by_name(variants: list[Variant]) -> dict[str, Variant]:
    return {v.name: v for v in variants}


def test_the_onnx_community_listing_is_recognised() -> None:
    assert is_community_layout(SMOLLM2_LISTING)


@pytest.mark.parametrize(
    ("listing", "why"),
    [
        ([*SMOLLM2_LISTING, "genai_config.json"], "an og package loads as it is"),
        ([*SMOLLM2_LISTING, "cpu-int4/genai_config.json"], "og package in a subfolder"),
        ([p for p in SMOLLM2_LISTING if p != "config.json"], "no config.json"),
        ([p for p in SMOLLM2_LISTING if not p.endswith(".onnx")], "no graph"),
        (["config.json", "onnx/vision_encoder.onnx", "onnx/embed_tokens.onnx"], "no decoder graph"),
        ([], "empty"),
    ],
)
def test_other_listings_are_not(listing: list[str], why: str) -> None:
    assert not is_community_layout(listing), why


def test_variants_and_their_external_data() -> None:
    variants = by_name(find_variants(SMOLLM2_LISTING))
    assert set(variants) == {"fp32", "bnb4", "fp16", "int8", "q4", "q4f16", "quantized", "uint8"}
    assert variants["fp32"] == Variant("fp32", "onnx/model.onnx", ("onnx/model.onnx_data",), "32-bit float")
    assert variants["q4"].data_paths == ("onnx/model_q4.onnx_data",)
    assert variants["q4"].quantization == "4-bit"
    assert variants["q4f16"].data_paths == ()
    assert variants["fp16"].files == ("onnx/model_fp16.onnx", "onnx/model_fp16.onnx_data")


def test_split_external_data_is_listed_in_order() -> None:
    listing = ["config.json", "onnx/model_fp16.onnx", *[f"onnx/model_fp16.onnx_data_{i}" for i in (10, 2, 1)]]
    listing.append("onnx/model_fp16.onnx_data")
    (fp16,) = find_variants(listing)
    assert fp16.data_paths == (
        "onnx/model_fp16.onnx_data",
        "onnx/model_fp16.onnx_data_1",
        "onnx/model_fp16.onnx_data_2",
        "onnx/model_fp16.onnx_data_10",
    )


def test_dot_data_names_windows_separators_and_a_root_export() -> None:
    # A plain Optimum export writes the graph at the top; og-style ".onnx.data" names are data files too.
    variants = find_variants(["config.json", "model.onnx", "model.onnx.data", ".\\tokenizer.json"])
    assert variants == [Variant("fp32", "model.onnx", ("model.onnx.data",), "32-bit float")]
    (q4,) = find_variants(["onnx\\model_q4.onnx", "onnx\\model_q4.onnx_data"])
    assert q4.files == ("onnx/model_q4.onnx", "onnx/model_q4.onnx_data")


def test_onnx_folder_wins_over_root_and_model_over_older_merged_names() -> None:
    listing = ["model.onnx", "onnx/model.onnx", "onnx/decoder_model_merged.onnx", "onnx/decoder_model_merged_q4.onnx"]
    variants = by_name(find_variants(listing))
    assert variants["fp32"].onnx_path == "onnx/model.onnx"
    assert variants["q4"].onnx_path == "onnx/decoder_model_merged_q4.onnx"


def test_a_variant_with_another_name_prefix_is_not_mistaken_for_data() -> None:
    (q4, q4f16) = sorted(
        find_variants(["onnx/model_q4.onnx", "onnx/model_q4f16.onnx", "onnx/model_q4f16.onnx_data"]),
        key=lambda v: v.name,
    )
    assert q4.data_paths == ()
    assert q4f16.data_paths == ("onnx/model_q4f16.onnx_data",)


@pytest.mark.parametrize(
    ("device", "present", "expected"),
    [
        ("cpu", ["q4", "int8", "fp32", "fp16", "q4f16"], "q4"),
        ("cpu", ["int8", "fp32", "fp16"], "int8"),
        ("cpu", ["uint8", "fp32"], "uint8"),
        ("cpu", ["quantized", "fp32", "fp16"], "quantized"),
        ("cpu", ["fp32", "fp16"], "fp32"),
        ("cpu", ["fp16", "q4f16"], "q4f16"),
        ("cpu", ["fp16"], "fp16"),
        ("auto", ["fp16", "q4"], "q4"),
        ("cuda", ["q4", "int8", "fp32", "fp16", "q4f16"], "fp16"),
        ("dml", ["q4", "q4f16"], "q4f16"),
        ("gpu", ["q4", "fp32"], "q4"),
        ("cpu", ["q4_gqa", "fp32"], "fp32"),
        ("cpu", ["q4_gqa"], "q4_gqa"),
    ],
)
def test_choose_variant(device: str, present: list[str], expected: str) -> None:
    variants = [Variant(n, f"onnx/model_{n}.onnx", (), n) for n in present]
    chosen = choose_variant(variants, device)
    assert chosen is not None and chosen.name == expected


def test_choose_variant_of_nothing_is_none() -> None:
    assert choose_variant([], "cpu") is None


def test_small_files_are_the_top_level_non_weights() -> None:
    listing = [
        *SMOLLM2_LISTING,
        "chat_template.jinja",
        "LICENSE",
        "model.safetensors",
        "onnx/config.json",
        "merges.txt",
        "vocab.json",
        "images/banner.png",
    ]
    assert small_files(listing) == [
        "LICENSE",
        "README.md",
        "chat_template.jinja",
        "config.json",
        "generation_config.json",
        "merges.txt",
        "special_tokens_map.json",
        "tokenizer.json",
        "tokenizer_config.json",
        "vocab.json",
    ]


@pytest.mark.parametrize(
    "config",
    [
        {"model_type": "llama", "architectures": ["LlamaForCausalLM"]},
        {"model_type": "qwen3", "architectures": ["Qwen3ForCausalLM"]},
        {"model_type": "gemma3_text", "architectures": ["Gemma3ForCausalLM"]},
        {"model_type": "qwen2"},
    ],
)
def test_supported_architectures(config: dict[str, object]) -> None:
    assert check_architecture(config) is None


def test_an_unsupported_architecture_is_named_with_what_is_supported() -> None:
    reason = check_architecture({"model_type": "gpt_neox", "architectures": ["GPTNeoXForCausalLM"]})
    assert reason is not None
    assert "GPTNeoXForCausalLM (gpt_neox)" in reason
    assert "Qwen3" in reason and "Llama" in reason


def test_a_multimodal_or_non_causal_model_is_refused() -> None:
    vlm = check_architecture({"model_type": "qwen2_vl", "architectures": ["Qwen2VLForConditionalGeneration"]})
    assert vlm is not None and "qwen2_vl" in vlm
    cls = check_architecture({"model_type": "llama", "architectures": ["LlamaForSequenceClassification"]})
    assert cls is not None and "not a text-generation" in cls


def test_no_model_type_is_refused() -> None:
    reason = check_architecture({})
    assert reason is not None and "model_type" in reason


def test_supported_types_are_lower_case_hf_names() -> None:
    assert {"llama", "qwen2", "qwen3", "mistral", "phi3", "gemma3_text"} <= SUPPORTED_MODEL_TYPES
    assert all(t == t.lower() for t in SUPPORTED_MODEL_TYPES)
