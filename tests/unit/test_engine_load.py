"""Loading: validation of every broken-folder kind, device fallback, threads, telemetry, chat templates."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from localmind.engine.devices import PROVIDERS, candidate_devices, configure_and_load, load_with_fallback
from localmind.engine.local import FALLBACK_TEMPLATE, LocalEngine
from localmind.engine.types import ChatMessage, GenerationOptions, LoadOptions, ModelLoadError, TextDelta
from tests.helpers.broken_models import BROKEN
from tests.helpers.tiny_model import REPLIES


def reply_of(engine: LocalEngine, messages: list[ChatMessage]) -> str:
    return "".join(
        e.text for e in engine.generate(messages, GenerationOptions(temperature=0)) if isinstance(e, TextDelta)
    )


@pytest.mark.parametrize("kind", sorted(BROKEN))
def test_every_broken_folder_gets_a_clear_error(kind: str, tiny_model: Path, tmp_path: Path) -> None:
    make, expected = BROKEN[kind]
    folder = make(tiny_model, tmp_path / "m")
    engine = LocalEngine()
    with pytest.raises(ModelLoadError) as err:
        engine.load(str(folder), LoadOptions(device="cpu"))
    assert expected in str(err.value)
    # The engine is still usable after a failed load.
    engine.load(str(tiny_model), LoadOptions(device="cpu"))
    assert reply_of(engine, [ChatMessage("user", "hi")]) in REPLIES


@pytest.mark.parametrize("kind", ["model.onnx corrupt", "genai_config.json not JSON", "missing folder"])
def test_cli_reports_broken_folder_in_one_line(kind: str, tiny_model: Path, tmp_path: Path) -> None:
    make, expected = BROKEN[kind]
    folder = make(tiny_model, tmp_path / "m")
    proc = subprocess.run(
        [sys.executable, "-m", "localmind", "chat", "--model", str(folder), "--prompt", "hi"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 1
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("localmind: ") and expected in lines[0]
    assert "Traceback" not in proc.stderr


def test_auto_falls_back_and_keeps_the_reason(tiny_model: Path) -> None:
    tried: list[str | None] = []

    def flaky(model_dir: str, provider: str | None, overlay: dict[str, Any]) -> Any:
        tried.append(provider)
        if provider is not None:
            raise RuntimeError(f"{provider} driver exploded\nsecond line")
        return configure_and_load(model_dir, provider, overlay)

    engine = LocalEngine(model_factory=flaky)
    info = engine.load(str(tiny_model))
    assert info.device == "cpu"
    assert tried == [PROVIDERS[d] for d in candidate_devices("auto")]
    assert [d for d, _ in info.fallback_reasons] == candidate_devices("auto")[:-1]
    assert all(reason.endswith("driver exploded") for _, reason in info.fallback_reasons)
    assert reply_of(engine, [ChatMessage("user", "hi")]) in REPLIES


def test_forced_device_does_not_fall_back(tiny_model: Path) -> None:
    engine = LocalEngine()
    with pytest.raises(ModelLoadError) as err:
        engine.load(str(tiny_model), LoadOptions(device="dml"))
    assert "DML" in str(err.value)
    info = engine.load(str(tiny_model), LoadOptions(device="cpu"))
    assert info.device == "cpu" and info.fallback_reasons == ()


def test_candidate_order_per_platform() -> None:
    assert candidate_devices("auto", "Windows") == ["dml", "cuda", "cpu"]
    assert candidate_devices("auto", "Linux") == ["cuda", "cpu"]
    assert candidate_devices("auto", "Darwin")[-1] == "cpu"
    assert candidate_devices("cpu") == ["cpu"]
    with pytest.raises(ModelLoadError):
        candidate_devices("tpu")


def test_load_with_fallback_raises_last_error_when_nothing_works() -> None:
    def broken(model_dir: str, provider: str | None, overlay: dict[str, Any]) -> Any:
        raise RuntimeError(f"no {provider}")

    with pytest.raises(RuntimeError, match="no None"):
        load_with_fallback("x", "auto", {}, broken)


def test_threads_and_budget_reach_og(tiny_model: Path) -> None:
    seen: dict[str, Any] = {}

    def spy(model_dir: str, provider: str | None, overlay: dict[str, Any]) -> Any:
        seen.update(overlay)
        return configure_and_load(model_dir, provider, overlay)

    engine = LocalEngine(model_factory=spy)
    info = engine.load(str(tiny_model), LoadOptions(device="cpu", threads=3, context_budget=512))
    assert seen["model"]["decoder"]["session_options"]["intra_op_num_threads"] == 3
    assert seen["search"]["max_length"] == 512
    assert (info.threads, info.context_budget, info.context_length) == (3, 512, 2048)


def test_budget_defaults_to_min_of_model_context_and_4096(tiny_model: Path, tmp_path: Path) -> None:
    engine = LocalEngine()
    assert engine.load(str(tiny_model), LoadOptions(device="cpu")).context_budget == 2048
    big = shutil.copytree(tiny_model, tmp_path / "big")
    cfg = json.loads((big / "genai_config.json").read_text())
    cfg["model"]["context_length"] = 40960
    (big / "genai_config.json").write_text(json.dumps(cfg))
    assert engine.load(str(big), LoadOptions(device="cpu")).context_budget == 4096


def test_model_without_chat_template_uses_fallback(tiny_model: Path, tmp_path: Path) -> None:
    folder = shutil.copytree(tiny_model, tmp_path / "plain")
    cfg = json.loads((folder / "tokenizer_config.json").read_text())
    template = cfg.pop("chat_template")
    (folder / "tokenizer_config.json").write_text(json.dumps(cfg))
    assert template == FALLBACK_TEMPLATE  # the tiny model speaks ChatML, so replies stay exact
    engine = LocalEngine()
    info = engine.load(str(folder), LoadOptions(device="cpu"))
    assert not info.has_chat_template
    assert any("no chat template" in w for w in info.warnings)
    assert reply_of(engine, [ChatMessage("user", "hi")]) in REPLIES


def test_chat_template_jinja_file_is_used(tiny_model: Path, tmp_path: Path) -> None:
    folder = shutil.copytree(tiny_model, tmp_path / "jinja")
    cfg = json.loads((folder / "tokenizer_config.json").read_text())
    (folder / "chat_template.jinja").write_text(cfg.pop("chat_template"))
    (folder / "tokenizer_config.json").write_text(json.dumps(cfg))
    info = LocalEngine().load(str(folder), LoadOptions(device="cpu"))
    assert info.has_chat_template and info.warnings == ()


def test_broken_chat_template_falls_back_with_a_warning(tiny_model: Path, tmp_path: Path) -> None:
    folder = shutil.copytree(tiny_model, tmp_path / "badtpl")
    cfg = json.loads((folder / "tokenizer_config.json").read_text())
    cfg["chat_template"] = "{% for m in messages %}{{ m['content'] }"
    (folder / "tokenizer_config.json").write_text(json.dumps(cfg))
    engine = LocalEngine()
    info = engine.load(str(folder), LoadOptions(device="cpu"))
    assert any("chat template failed" in w for w in info.warnings)
    assert reply_of(engine, [ChatMessage("user", "hi")]) in REPLIES


def test_telemetry_is_disabled_before_og_loads() -> None:
    code = "import os, localmind.cli, localmind.engine.local;print(os.environ.get('ORT_DISABLE_TELEMETRY'))"
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        env={k: v for k, v in __import__("os").environ.items() if k != "ORT_DISABLE_TELEMETRY"},
    )
    assert out.stdout.strip() == "1", out.stderr
