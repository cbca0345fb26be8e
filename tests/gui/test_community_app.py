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


def test_the_first_open_shows_the_preparation_progress_and_the_second_does_not(
    qtbot: Any, launch: Launch, tmp_path: Path
) -> None:
    """Opening an export the first time rewrites its graph (seconds to a minute for a real model): the status bar
    says so with a percentage instead of a bare "Loading…"; once prepared, a later open shows no such step."""
    folder = community_model.copy_of("smollm2-tiny", tmp_path / "SmolLM2-tiny-ONNX")
    mind = launch(model=None, settings=short_settings())
    shown: list[str] = []
    # Connected after the app's own slot: it reads what the status bar shows at each step.
    mind.service.load_progress.connect(lambda _f: shown.append(mind.window.status.model_label.text()))
    mind.window.model_folder_chosen.emit(str(folder))
    qtbot.waitUntil(lambda: mind.session.model is not None, timeout=30000)
    assert shown, "no progress was reported while the graph was rewritten"
    assert all(t.startswith("Preparing SmolLM2-tiny-ONNX for this computer (first time only)… ") for t in shown)
    assert shown[-1].endswith("100%")
    assert mind.window.status.model_label.text() == "SmolLM2-tiny-ONNX (q4)"  # then the loaded model, as always

    shown.clear()
    mind.window.model_folder_chosen.emit(str(folder))
    qtbot.waitUntil(lambda: mind.service.loading, timeout=5000)
    qtbot.waitUntil(lambda: mind.session.model is not None and not mind.service.loading, timeout=30000)
    assert shown == []
