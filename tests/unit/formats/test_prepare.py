"""Opening an onnx-community folder: the user's folder stays byte-identical, LocalMind's copy is links plus
a generated config, variants are chosen per device or by name, unsupported architectures are refused early."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from localmind.engine.formats import genai_config, prepare
from localmind.engine.local import LocalEngine
from localmind.engine.types import ChatMessage, GenerationOptions, LoadOptions, ModelLoadError, TextDelta
from localmind.engine.validate import validate_model_folder
from tests.helpers import community_model

pytestmark = pytest.mark.slow
GREEDY = GenerationOptions(temperature=0, repetition_penalty=1.0, max_new_tokens=8)


@pytest.fixture
def user_folder(tmp_path: Path) -> Path:
    return community_model.copy_of("smollm2-tiny", tmp_path / "SmolLM2-tiny-ONNX")


def snapshot(folder: Path) -> dict[str, tuple[bytes, int, int]]:
    """Every file and folder under ``folder``: bytes, mode and modification time (ns)."""
    out: dict[str, tuple[bytes, int, int]] = {}
    for path in sorted([folder, *folder.rglob("*")]):
        st = path.lstat()
        out[str(path.relative_to(folder))] = (path.read_bytes() if path.is_file() else b"", st.st_mode, st.st_mtime_ns)
    return out


def reply(engine: LocalEngine) -> str:
    return "".join(e.text for e in engine.generate([ChatMessage("user", "hi")], GREEDY) if isinstance(e, TextDelta))


def test_the_users_folder_is_byte_identical_after_opening_and_chatting(user_folder: Path, data_dir: Path) -> None:
    before = snapshot(user_folder)
    engine = LocalEngine()
    info = engine.load(str(user_folder), LoadOptions(device="cpu", context_budget=256))
    assert reply(engine)
    engine.close()
    assert snapshot(user_folder) == before
    # What og loaded lives in the data folder, and the window is told about the user's folder.
    assert info.model_dir == str(user_folder.resolve())
    assert info.model_name == "SmolLM2-tiny-ONNX (q4)"
    (prepared,) = (data_dir / "prepared").glob("SmolLM2-tiny-ONNX-*/q4")
    assert (prepared / "tokenizer.json").is_symlink()
    assert (prepared / "tokenizer.json").resolve() == (user_folder / "tokenizer.json").resolve()
    assert not (prepared / "genai_config.json").is_symlink()


def test_the_generated_config_comes_from_the_folder_and_the_graph(user_folder: Path) -> None:
    folder = validate_model_folder(user_folder, variant="fp32", device="cpu")
    config = json.loads((folder.path / "genai_config.json").read_text(encoding="utf-8"))
    hf = json.loads((user_folder / "config.json").read_text(encoding="utf-8"))
    gen = json.loads((user_folder / "generation_config.json").read_text(encoding="utf-8"))
    model, decoder = config["model"], config["model"]["decoder"]
    assert decoder["filename"] == "onnx/model.onnx"
    assert decoder["inputs"] == {
        "input_ids": "input_ids",
        "attention_mask": "attention_mask",
        "position_ids": "position_ids",
        "past_key_names": "past_key_values.%d.key",
        "past_value_names": "past_key_values.%d.value",
    }
    assert decoder["outputs"]["present_key_names"] == "present.%d.key"
    assert decoder["num_hidden_layers"] == hf["num_hidden_layers"]
    assert decoder["num_key_value_heads"] == hf["num_key_value_heads"]
    assert decoder["head_size"] == hf["hidden_size"] // hf["num_attention_heads"]
    assert model["eos_token_id"] == gen["eos_token_id"]  # a list, as generation_config.json has it
    assert model["context_length"] == hf["max_position_embeddings"]
    assert model["type"] == "llama"
    # The attention was rewritten to GroupQueryAttention: past and present share one buffer (test_gqa.py).
    assert config["search"]["past_present_share_buffer"] is True
    record = json.loads((folder.path / genai_config.RECORD_NAME).read_text(encoding="utf-8"))
    assert record["source"] == str(user_folder.resolve())
    assert "generation_config.json: eos_token_id" in record["sources"]
    assert "onnx/model.onnx: inputs and outputs" in record["sources"]


def test_the_prepared_folder_is_reused_until_the_source_changes(user_folder: Path) -> None:
    first = prepare.prepare_folder(user_folder, device="cpu")
    made = (first.path / "genai_config.json").stat().st_mtime_ns
    again = prepare.prepare_folder(user_folder, device="cpu")
    assert again.path == first.path and (again.path / "genai_config.json").stat().st_mtime_ns == made
    gen = user_folder / "generation_config.json"
    gen.write_text(json.dumps({"eos_token_id": 7}), encoding="utf-8")
    changed = prepare.prepare_folder(user_folder, device="cpu")
    config = json.loads((changed.path / "genai_config.json").read_text(encoding="utf-8"))
    assert config["model"]["eos_token_id"] == 7


def test_variants_by_device_and_by_name(user_folder: Path) -> None:
    assert prepare.prepare_folder(user_folder, device="cpu").variant.name == "q4"
    assert prepare.prepare_folder(user_folder, device="cuda").variant.name == "fp16"
    assert prepare.prepare_folder(user_folder, variant="fp32").variant.onnx_path == "onnx/model.onnx"
    with pytest.raises(ModelLoadError) as info:
        prepare.prepare_folder(user_folder, variant="int8")
    assert "no 'int8' variant" in str(info.value) and "fp32, fp16, q4" in (info.value.hint or "")


def test_a_variant_for_an_og_package_is_refused_with_advice(tiny_model: Path) -> None:
    with pytest.raises(ModelLoadError, match="no variants to choose from"):
        validate_model_folder(tiny_model, variant="q4")


def test_an_unsupported_architecture_is_refused_before_any_weights_are_read(
    user_folder: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = json.loads((user_folder / "config.json").read_text(encoding="utf-8"))
    config.update(model_type="gpt_neox", architectures=["GPTNeoXForCausalLM"])
    (user_folder / "config.json").write_text(json.dumps(config), encoding="utf-8")
    opened: list[str] = []
    real_open = open

    def watching_open(file: object, *args: object, **kwargs: object) -> object:
        opened.append(str(file))
        return real_open(file, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr("builtins.open", watching_open)
    with pytest.raises(ModelLoadError) as info:
        LocalEngine().load(str(user_folder), LoadOptions(device="cpu"))
    assert "GPTNeoXForCausalLM (gpt_neox)" in str(info.value)
    assert "Qwen3" in str(info.value)
    assert not [f for f in opened if ".onnx" in f]
    assert not (data_dir / "prepared").exists()


def test_without_symlinks_files_are_linked_or_copied_and_it_still_runs(
    user_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_symlinks(*args: object, **kwargs: object) -> None:
        raise OSError(1314, "A required privilege is not held by the client")

    monkeypatch.setattr(os, "symlink", no_symlinks)
    before = snapshot(user_folder)
    engine = LocalEngine()
    engine.load(str(user_folder), LoadOptions(device="cpu", variant="fp32", context_budget=256))
    assert reply(engine)
    prepared = prepare.prepare_folder(user_folder, variant="fp32")
    assert prepared.link_mode == "hardlink/copy"
    assert not any(p.is_symlink() for p in prepared.path.rglob("*"))
    assert snapshot(user_folder) == before


def test_a_missing_tokenizer_config_is_generated_in_the_copy(user_folder: Path) -> None:
    (user_folder / "tokenizer_config.json").unlink()
    (user_folder / "chat_template.jinja").write_text(
        "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
        "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}",
        encoding="utf-8",
    )
    engine = LocalEngine()
    info = engine.load(str(user_folder), LoadOptions(device="cpu", context_budget=256))
    assert info.has_chat_template
    assert reply(engine)
    assert not (user_folder / "tokenizer_config.json").exists()


def test_install_in_place_makes_a_staging_folder_an_og_package(user_folder: Path) -> None:
    for extra in ("model.onnx", "model_fp16.onnx"):
        (user_folder / "onnx" / extra).unlink()
    done = prepare.install_in_place(user_folder, device="cpu")
    assert done.path == user_folder.resolve() and done.variant.name == "q4"
    assert (user_folder / "genai_config.json").is_file()
    folder = validate_model_folder(user_folder)  # now an og package: no preparing
    assert folder.source is None and folder.onnx_file.name == "model_q4.onnx"
    engine = LocalEngine()
    engine.load(str(user_folder), LoadOptions(device="cpu", context_budget=256))
    assert reply(engine)


@pytest.fixture
def external_data_folder(user_folder: Path) -> Path:
    """The layout of the bigger Hub repos: each graph keeps its weights in a .onnx_data file beside it."""
    import onnx

    for name in ("model.onnx", "model_q4.onnx"):
        model = onnx.load(str(user_folder / "onnx" / name))
        location = name + "_data"
        onnx.save(
            model, str(user_folder / "onnx" / name), save_as_external_data=True, location=location, size_threshold=0
        )
    return user_folder


def test_a_tuned_graph_with_external_data_runs_token_exact(external_data_folder: Path) -> None:
    from tests.helpers import ort_reference

    before = snapshot(external_data_folder)
    engine = LocalEngine()
    engine.load(str(external_data_folder), LoadOptions(device="cpu", variant="q4", context_budget=256))
    folder = engine.folder
    assert folder is not None
    data = folder.onnx_file.with_name("model_q4.onnx_data")
    # onnxruntime refuses a symlink that leads out of the graph's folder: the weights are a hard link.
    assert (
        not data.is_symlink() and data.stat().st_ino == (external_data_folder / "onnx/model_q4.onnx_data").stat().st_ino
    )
    options = GenerationOptions(temperature=0, repetition_penalty=1.0, max_new_tokens=12, min_new_tokens=12)
    text = "".join(e.text for e in engine.generate([ChatMessage("user", "hi")], options) if isinstance(e, TextDelta))
    prompt = engine.kv.record.tokens[: len(engine.prompts.encode(engine.prompts.render([ChatMessage("user", "hi")])))]
    tokens = ort_reference.greedy(folder.onnx_file, prompt, 12, engine.runner.eos, 12)
    stream = engine.prompts.tokenizer.create_stream()
    assert text == "".join(stream.decode(t) for t in tokens)
    assert snapshot(external_data_folder) == before


def test_on_another_drive_the_untuned_graph_is_linked_and_says_so(
    external_data_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def cross_device(*args: object, **kwargs: object) -> None:
        raise OSError(18, "Invalid cross-device link")

    monkeypatch.setattr(os, "link", cross_device)
    prepared = prepare.prepare_folder(external_data_folder, variant="q4")
    assert (prepared.path / "onnx/model_q4.onnx").is_symlink()
    assert any("another drive" in n for n in prepared.notes)
    engine = LocalEngine()
    engine.load(str(external_data_folder), LoadOptions(device="cpu", variant="q4", context_budget=256))
    assert reply(engine)
