"""Devices that fail, and what the user is told (issue 9 items 15 and 6, engine side).

No GPU here: a "cuda" provider is stood in for by the real CPU model, and og's Generator fails on that model's
first forward pass as a broken GPU driver does — behind og's real interface.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from localmind.engine.devices import configure_and_load, remembered_failures
from localmind.engine.local import LocalEngine
from localmind.engine.types import ChatMessage, FinishReason, GenerationOptions, LoadOptions, ModelLoadError, TextDelta
from tests.helpers.tiny_model import REPLIES

GREEDY = GenerationOptions(temperature=0)


class _GpuThatFailsWhenUsed:
    """A model factory whose "cuda" loads (as a real GPU provider can) and whose forward passes then fail."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        import onnxruntime_genai as og

        self.calls: list[str | None] = []
        self._gpu_models: set[int] = set()
        real_generator = og.Generator

        def generator(model: Any, params: Any) -> Any:
            real = real_generator(model, params)
            return _Failing(real) if id(model) in self._gpu_models else real

        monkeypatch.setattr(og, "Generator", generator)

    def __call__(self, model_dir: str, provider: str | None, overlay: dict[str, Any]) -> Any:
        self.calls.append(provider)
        model = configure_and_load(model_dir, None, overlay)
        if provider == "cuda":
            self._gpu_models.add(id(model))
        return model


class _Failing:
    def __init__(self, real: Any) -> None:
        self._real = real

    def append_tokens(self, tokens: Any) -> None:
        raise RuntimeError("CUDA error: an illegal memory access was encountered")

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)


def _answer(engine: LocalEngine, text: str) -> tuple[str, Any]:
    reply, finished = "", None
    for event in engine.generate([ChatMessage("user", text)], GREEDY):
        if isinstance(event, TextDelta):
            reply += event.text
        else:
            finished = event
    return reply, finished


def test_a_gpu_that_fails_on_its_first_answer_falls_back_to_the_cpu_once_and_is_remembered(
    tiny_model: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    factory = _GpuThatFailsWhenUsed(monkeypatch)
    engine = LocalEngine(model_factory=factory)
    assert engine.load(str(tiny_model), LoadOptions(device="cuda")).device == "cuda"
    reply, finished = _answer(engine, "hi")
    # The same answer the CPU gives, and the turn says the model moved.
    assert reply in REPLIES and finished.reason is FinishReason.END_OF_TURN
    assert finished.reloaded is not None and finished.reloaded.device == "cpu"
    assert any("failed on the first answer" in w and "CPU" in w for w in finished.reloaded.warnings)
    assert factory.calls == ["cuda", None]
    assert "illegal memory access" in remembered_failures(str(tiny_model))["cuda"]
    # Later turns stay on the CPU with no new fallback.
    reply2, finished2 = _answer(engine, "hello")
    assert reply2 in REPLIES and finished2.reloaded is None

    # Remembered for that model: the next start under "auto" does not try the GPU again.
    again = LocalEngine(model_factory=_GpuThatFailsWhenUsed(monkeypatch))
    info = again.load(str(tiny_model), LoadOptions(device="auto"))
    assert info.device == "cpu"
    assert info.fallback_reasons[0][0] == "cuda" and "failed when answering before" in info.fallback_reasons[0][1]


def test_the_cpu_failing_is_an_error_turn_not_a_loop(tiny_model: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import onnxruntime_genai as og

    monkeypatch.setattr(og, "Generator", lambda model, params: _Failing(None))
    engine = LocalEngine()
    engine.load(str(tiny_model), LoadOptions(device="cpu"))
    _, finished = _answer(engine, "hi")
    assert finished.reason is FinishReason.ERROR and "illegal memory access" in finished.error


def test_a_device_this_build_lacks_is_named_and_not_blamed_on_the_download(tiny_model: Path) -> None:
    with pytest.raises(ModelLoadError) as caught:
        LocalEngine().load(str(tiny_model), LoadOptions(device="dml"))
    text = str(caught.value)
    assert text.startswith("This copy of LocalMind cannot use GPU (DirectML): ")
    assert "Settings" in text and "--device cpu" in text and text.endswith(".")
    assert "download" not in text.lower()
    assert caught.value.source == "This copy of LocalMind cannot use {device}: {reason}."


def test_an_unsupported_model_type_is_named_and_not_blamed_on_the_download(tiny_model: Path, tmp_path: Path) -> None:
    folder = tmp_path / "odd"
    shutil.copytree(tiny_model, folder)
    config = json.loads((folder / "genai_config.json").read_text())
    config["model"]["type"] = "foobar"
    (folder / "genai_config.json").write_text(json.dumps(config))
    with pytest.raises(ModelLoadError) as caught:
        LocalEngine().load(str(folder), LoadOptions(device="cpu"))
    text = str(caught.value)
    assert "(foobar) is not supported" in text and "download" not in text.lower() and text.endswith(".")
