"""Logits for the last position only: og-builder packages load a copy whose graph projects onto the vocabulary
for the last position alone, and every reply stays token for token what the original graph gives."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest

from localmind.engine.formats import last_logits, onnx_graph, package
from localmind.engine.local import LocalEngine
from localmind.engine.types import ChatMessage, GenerationOptions, LoadOptions
from localmind.engine.validate import validate_model_folder
from tests.helpers.engine_turns import run_turn

pytest.importorskip("torch")
pytest.importorskip("transformers")
pytestmark = pytest.mark.slow
GREEDY = GenerationOptions(temperature=0, max_new_tokens=24, repetition_penalty=1.0)


@pytest.fixture(scope="module")
def builder_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from bench.make_models import build

    return Path(build("micro-llama", tmp_path_factory.mktemp("builder"))["dir"])


def _digest(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir()) if p.is_file()}


def _og_logits(folder: Path, ids: list[int], chunks: list[int]) -> list[np.ndarray]:
    """og's logits after each chunk of a prompt read (a multi-token read, then more), as the engine reads."""
    import onnxruntime_genai as og

    model = og.Model(str(folder))
    params = og.GeneratorParams(model)
    params.set_search_options(max_length=256)
    generator = og.Generator(model, params)
    out, start = [], 0
    for size in chunks:
        generator.append_tokens(ids[start : start + size])
        start += size
        out.append(np.asarray(generator.get_logits()).copy())
    return out


def test_the_copy_reads_a_prompt_with_the_last_positions_logits_exactly(builder_model: Path) -> None:
    before = _digest(builder_model)
    folder = validate_model_folder(builder_model)
    assert folder.path != builder_model and folder.path.name == package.FOLDER
    assert folder.user_path == builder_model  # what settings and the window show
    graph = onnx_graph.read_graph(folder.onnx_file)
    assert last_logits.already_last_only(graph)
    assert not last_logits.already_last_only(onnx_graph.read_graph(builder_model / folder.onnx_file.name))
    ids = list(range(3, 60))
    chunks = [17, 1, 30, 9]
    for new, old in zip(_og_logits(folder.path, ids, chunks), _og_logits(builder_model, ids, chunks), strict=True):
        assert new.shape == old.shape == (1, 1, new.shape[-1])
        np.testing.assert_allclose(new, old, rtol=1e-5, atol=1e-5)
    assert _digest(builder_model) == before  # the user's folder is only read


def test_replies_equal_the_original_graphs_token_for_token(
    builder_model: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    msgs = [ChatMessage("system", "You are a test."), ChatMessage("user", "tell me about the weather " * 12)]

    def reply(chunk: int) -> str:
        engine = LocalEngine()
        engine.load(str(builder_model), LoadOptions(device="cpu", context_budget=1024, prefill_chunk=chunk))
        try:
            return run_turn(engine, msgs, GREEDY)[0]
        finally:
            engine.unload()

    rewritten = [reply(16), reply(128)]
    monkeypatch.setattr(package, "loadable_folder", lambda folder, data_dir=None: folder)
    original = reply(128)
    assert original and rewritten == [original, original]


def test_a_second_open_reuses_the_copy_and_a_changed_package_is_copied_again(builder_model: Path) -> None:
    first = validate_model_folder(builder_model).onnx_file
    made = first.stat().st_mtime_ns
    assert validate_model_folder(builder_model).onnx_file.stat().st_mtime_ns == made
    config = builder_model / "genai_config.json"
    config.write_text(config.read_text(encoding="utf-8"), encoding="utf-8")  # touched: new mtime
    again = validate_model_folder(builder_model).onnx_file
    assert again.is_file() and again.stat().st_mtime_ns != made


def test_a_graph_it_does_not_know_loads_as_it_is_and_says_why(
    tiny_model: Path, data_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level("INFO", logger="localmind.engine.formats.package"):
        folder = validate_model_folder(tiny_model)
    assert folder.path == tiny_model.resolve() and folder.source is None
    assert "OneHot" in caplog.text and "every position" in caplog.text
    assert not (data_dir / "prepared").exists()  # nothing written for it


def test_without_hard_links_the_package_loads_as_it_is(
    builder_model: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import os

    def refuse(src: object, dst: object) -> None:
        raise OSError("cross-device link")

    monkeypatch.setattr(os, "link", refuse)
    monkeypatch.setattr(package, "_SMALL", 0)
    folder = validate_model_folder(builder_model)
    assert folder.path == builder_model.resolve()
    assert not any((tmp_path).glob("**/last-logits.building"))


def test_a_damaged_graph_never_stops_a_load_through_this_rewrite(tmp_path: Path) -> None:
    (tmp_path / "genai_config.json").write_text('{"model": {"decoder": {"filename": "model.onnx"}}}')
    (tmp_path / "model.onnx").write_bytes(b"\x00garbage" * 20)
    assert package.loadable_folder(tmp_path) == tmp_path


@pytest.mark.parametrize(("name", "fused"), [("model.onnx", True), ("model_q4.onnx", False)])
def test_a_community_exports_rewrite_gives_the_last_positions_logits_of_the_full_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, fused: bool
) -> None:
    """fp32 (attention fused) and q4 (accuracy_level only): the same rewrite with and without the last-position
    slice, read by plain onnxruntime chunk by chunk (a prompt, one token, a chunk, one token)."""
    from localmind.engine.formats import optimize
    from tests.helpers import community_model
    from tests.unit.formats.test_gqa import config_of, run_chunks

    folder = community_model.cached("smollm2-tiny")
    config = config_of(folder)
    config.setdefault("head_dim", int(config["hidden_size"]) // int(config["num_attention_heads"]))  # type: ignore[call-overload]
    src, last, every = folder / "onnx" / name, tmp_path / "last" / name, tmp_path / "every" / name
    report = optimize.rewrite_graph(src, last, config=config if fused else None)
    assert any("last position" in note for note in report.notes) and report.attention_fused is fused
    monkeypatch.setattr(optimize, "LAST_POSITION_LOGITS", False)
    optimize.rewrite_graph(src, every, config=config if fused else None)
    chunks = [[5, 17, 99, 3, 42, 7, 8, 100], [200], [11, 12, 13], [300]]
    for a, b in zip(run_chunks(every, chunks, config), run_chunks(last, chunks, config), strict=True):
        assert b.shape == (1, 1, a.shape[-1])
        np.testing.assert_allclose(b, a[:, -1:], rtol=1e-4, atol=1e-4)


def test_the_long_prompt_bench_s_original_arm_loads_the_original_graph(builder_model: Path) -> None:
    """bench/longprompt.py compares the rewrite with the original graph in the engine process, which is spawned: a
    patch in the bench's own process never reaches it (both arms once ran the rewrite). Its original arm is a
    hard-linked copy in the prepared-models folder, which any process loads as it is."""
    from bench.longprompt import original_folder

    assert package.loadable_folder(builder_model) != builder_model  # the rewrite applies to this package
    with original_folder(str(builder_model)) as untouched:
        folder = Path(untouched)
        assert package.loadable_folder(folder) == folder
        assert _digest(folder) == _digest(builder_model)  # the original files, graph included
    assert not folder.exists()
