"""An onnx-community export opened in the real app (the real engine in its child process): it chats, the
user's folder stays untouched, and a reasoning model's "Think before answering" switch reaches the prompt."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

from localmind.engine.local import LocalEngine
from localmind.engine.types import ChatMessage, LoadOptions, TextDelta
from localmind.settings import Settings, generation_options
from tests.helpers import community_model
from tests.helpers.app_window import Launch, greedy_settings, launch_fixture, send_and_wait, stored
from tests.unit.formats.test_prepare import snapshot
from tests.unit.formats.test_thinking import THINKING_TEMPLATE

pytestmark = [pytest.mark.gui, pytest.mark.slow]


@pytest.fixture
def launch(qtbot: Any, tiny_model: Path) -> Iterator[Launch]:
    yield from launch_fixture(qtbot, tiny_model)


@pytest.fixture
def qwen3_folder(tmp_path: Path) -> Path:
    folder = community_model.copy_of("qwen3-tiny", tmp_path / "Qwen3-tiny-ONNX")
    config = json.loads((folder / "tokenizer_config.json").read_text(encoding="utf-8"))
    config["chat_template"] = THINKING_TEMPLATE
    (folder / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    return folder


def short_settings() -> Settings:
    settings = greedy_settings()
    settings.generation.max_new_tokens = 40
    return settings


def expected_reply(folder: Path, history: list[ChatMessage], conversation_settings: dict[str, Any]) -> str:
    """What LocalMind's engine answers in this process, with the options the window builds for the chat."""
    settings = short_settings()
    options = generation_options(settings.generation, conversation_settings)
    if isinstance(conversation_settings.get("thinking"), bool):
        from dataclasses import replace

        options = replace(options, thinking=conversation_settings["thinking"])
    engine = LocalEngine()
    engine.load(str(folder), LoadOptions(device="cpu"))
    return "".join(e.text for e in engine.generate(history, options) if isinstance(e, TextDelta))


def test_open_a_community_folder_chat_and_switch_thinking_off(qtbot: Any, launch: Launch, qwen3_folder: Path) -> None:
    before = snapshot(qwen3_folder)
    mind = launch(model=None, settings=short_settings())
    window = mind.window
    switch = mind.thinking_switch
    window.model_folder_chosen.emit(str(qwen3_folder))  # what "Open a model folder…" does with the chosen folder
    qtbot.waitUntil(lambda: mind.session.model is not None, timeout=30000)
    assert mind.session.model.model_name == "Qwen3-tiny-ONNX (q4)"
    qtbot.waitUntil(switch.isVisible, timeout=2000)
    assert switch.isChecked()

    send_and_wait(qtbot, mind, "Hello there")
    first = stored(mind)
    assert [(r, s) for r, _, s in first] == [("user", "complete"), ("assistant", "complete")]
    history = [ChatMessage("user", "Hello there")]
    assert first[1][1] == expected_reply(qwen3_folder, history, {})

    qtbot.mouseClick(switch, Qt.MouseButton.LeftButton)
    assert not switch.isChecked()
    conversation = mind.store.get_conversation(mind.session.conversation_id)
    assert conversation.settings.get("thinking") is False

    send_and_wait(qtbot, mind, "And now?")
    second = stored(mind)
    history += [ChatMessage("assistant", first[1][1]), ChatMessage("user", "And now?")]
    assert second[3][1] == expected_reply(qwen3_folder, history, {"thinking": False})
    assert snapshot(qwen3_folder) == before


def test_a_model_without_the_switch_hides_it(qtbot: Any, launch: Launch) -> None:
    mind = launch()  # the tiny og model: its template has no enable_thinking
    qtbot.wait(200)  # the switch updates right after the load is reported
    assert mind.session.model is not None and not mind.session.model.thinking_switch
    assert not mind.thinking_switch.isVisible()
