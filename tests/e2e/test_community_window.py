"""An onnx-community export in the real app under Xvfb, typed into with real X key events (tests/helpers/xwindow.py).

``localmind --model DIR`` on a folder with config.json + onnx/*.onnx and no genai_config.json: the window loads it,
answers what LocalMind's engine answers for the same chat, and the folder is byte-identical afterwards.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from localmind.engine.local import LocalEngine
from localmind.engine.types import ChatMessage, LoadOptions, TextDelta
from localmind.settings import Settings, generation_options, save_settings
from tests.helpers import community_model
from tests.helpers.xwindow import x_display
from tests.unit.formats.test_prepare import snapshot
from tests.unit.formats.test_thinking import THINKING_TEMPLATE

pytestmark = pytest.mark.slow


def test_type_into_the_window_with_an_onnx_community_model(tmp_path: Path) -> None:
    folder = community_model.copy_of("qwen3-tiny", tmp_path / "Qwen3-tiny-ONNX")
    config = json.loads((folder / "tokenizer_config.json").read_text(encoding="utf-8"))
    config["chat_template"] = THINKING_TEMPLATE
    (folder / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    before = snapshot(folder)
    data = tmp_path / "data"
    data.mkdir()
    settings = Settings(theme="light", language="en")
    settings.generation.temperature = 0.0
    settings.generation.max_new_tokens = 24
    save_settings(settings, data / "settings.json")

    with x_display() as x:
        app = x.start_app(data, folder)
        app.wait_model_loaded(folder)
        app.activate()
        x.type("hello there")
        x.key("Return")
        app.wait_until(
            lambda: len(app.messages()) == 2 and app.messages()[-1][2] == "complete", 60, "the reply to finish"
        )
        shots = Path(
            os.environ.get("LOCALMIND_SCREENSHOTS", Path(__file__).resolve().parents[2] / "build" / "screenshots")
        )
        shots.mkdir(parents=True, exist_ok=True)
        x.screenshot(shots / "community-model-window.png")
        messages = app.messages()
        assert app.close() == 0

    engine = LocalEngine()
    engine.load(str(folder), LoadOptions(device="cpu"))
    options = generation_options(settings.generation)
    history = [ChatMessage("user", "hello there")]
    expected = "".join(e.text for e in engine.generate(history, options) if isinstance(e, TextDelta))
    assert messages[0][:2] == ("user", "hello there")
    assert messages[1] == ("assistant", expected, "complete")
    assert snapshot(folder) == before
    # What the engine loaded was prepared in the app's data folder.
    assert list((data / "prepared").glob("Qwen3-tiny-ONNX-*/q4/genai_config.json"))
