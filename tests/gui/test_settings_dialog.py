"""Settings: presets and per-chat values, app settings that persist, theme and language switched while running."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QApplication, QFormLayout

from localmind.engine.fake import FakeEngine
from localmind.settings import PRESETS, Settings, load_settings
from localmind.ui.settings_dialog import SettingsDialog
from tests.helpers.app_window import Launch, launch_fixture, type_and_send

pytestmark = pytest.mark.gui


@pytest.fixture
def launch(qtbot: Any, tiny_model: Path) -> Iterator[Launch]:
    yield from launch_fixture(qtbot, tiny_model)


def dialog(qtbot: Any, chat: dict[str, Any] | None = None, settings: Settings | None = None) -> SettingsDialog:
    d = SettingsDialog(settings or Settings(), "", chat or {}, has_conversation=True)
    qtbot.addWidget(d)
    return d


def test_a_preset_fills_the_fields_and_the_chat_keeps_only_differences(qtbot: Any) -> None:
    d = dialog(qtbot)
    assert d.chat_tab.preset == "balanced"  # the defaults are the balanced values
    assert d.chat_tab.chat_settings() == {"preset": "balanced"}
    qtbot.mouseClick(d.chat_tab.preset_buttons["creative"], Qt.MouseButton.LeftButton)
    assert d.chat_tab.temperature.value() == PRESETS["creative"]["temperature"]
    assert d.chat_tab.top_k.value() == PRESETS["creative"]["top_k"]
    assert d.chat_tab.chat_settings() == {"preset": "creative"}
    d.chat_tab.max_new_tokens.setValue(256)
    assert d.chat_tab.preset == "creative"
    assert d.chat_tab.chat_settings() == {"preset": "creative", "max_new_tokens": 256}
    d.chat_tab.temperature.setValue(0.35)
    assert d.chat_tab.preset is None
    assert d.chat_tab.chat_settings()["temperature"] == pytest.approx(0.35)
    assert "preset" not in d.chat_tab.chat_settings()


def test_a_chats_saved_settings_are_shown(qtbot: Any) -> None:
    d = dialog(qtbot, {"preset": "precise", "max_new_tokens": 300})
    assert d.chat_tab.preset == "precise"
    assert d.chat_tab.temperature.value() == pytest.approx(PRESETS["precise"]["temperature"])
    assert d.chat_tab.max_new_tokens.value() == 300
    assert d.chat_tab.chat_settings() == {"preset": "precise", "max_new_tokens": 300}


def test_use_for_new_chats_makes_the_values_app_defaults(qtbot: Any) -> None:
    d = dialog(qtbot)
    d.chat_tab.system_prompt.setPlainText("Be brief.")
    d.chat_tab.top_k.setValue(7)
    qtbot.mouseClick(d.chat_tab.make_default_button, Qt.MouseButton.LeftButton)
    result = d.result_values()
    assert result.app.generation.top_k == 7
    assert result.app.generation.system_prompt == "Be brief."
    assert result.chat_settings == {}  # nothing differs from the (new) defaults


def test_settings_persist_and_reach_the_next_turn(qtbot: Any, launch: Launch, data_dir: Path) -> None:
    engine = FakeEngine(replies=["ok"])
    mind = launch("/models/fake", engine=lambda: engine)
    with qtbot.waitSignal(mind.service.loading_started, timeout=5000):  # context size changes reload the model
        qtbot.keyClick(mind.window, Qt.Key.Key_Comma, Qt.KeyboardModifier.ControlModifier)
        d = mind.settings_dialog
        assert d is not None
        d.chat_tab.system_prompt.setPlainText("You are terse.")
        qtbot.mouseClick(d.chat_tab.preset_buttons["precise"], Qt.MouseButton.LeftButton)
        d.app_tab.theme_combo.setCurrentIndex(d.app_tab.theme_combo.findData("dark"))
        d.app_tab.context_budget.setValue(2048)
        d.app_tab.threads.setValue(2)
        d.buttons.button(d.buttons.StandardButton.Ok).click()
    qtbot.waitUntil(lambda: mind.session.model is not None, timeout=5000)

    saved = json.loads((data_dir / "settings.json").read_text(encoding="utf-8"))
    assert (saved["theme"], saved["context_budget"], saved["threads"]) == ("dark", 2048, 2)
    assert load_settings().theme == "dark"
    assert QApplication.palette().color(QPalette.ColorRole.Window).lightness() < 80

    with qtbot.waitSignal(mind.session.turn_finished, timeout=5000):
        type_and_send(qtbot, mind, "hello")
    assert engine.calls[-1][0].role == "system" and engine.calls[-1][0].content == "You are terse."
    conversation = mind.store.get_conversation(mind.session.conversation_id or "")
    assert conversation.system_prompt == "You are terse."
    assert conversation.settings == {"preset": "precise"}
    mind.theme.apply("light")


def test_language_switches_while_running(qtbot: Any, launch: Launch) -> None:
    mind = launch(None)
    window = mind.window
    assert window.sidebar.new_chat_button.text() == "New chat"
    d = mind.open_settings()
    d.app_tab.language_combo.setCurrentIndex(d.app_tab.language_combo.findData("zh_CN"))
    d.accept()
    assert mind.translations.language == "zh_CN"
    qtbot.waitUntil(lambda: window.sidebar.new_chat_button.text() == "新对话", timeout=2000)
    assert window.composer.input.placeholderText() != "Message LocalMind…"
    assert window.welcome.title.text() == "欢迎使用 LocalMind"
    assert load_settings().language == "zh_CN"
    d = mind.open_settings()
    assert d.windowTitle() == "设置"
    d.app_tab.language_combo.setCurrentIndex(d.app_tab.language_combo.findData("en"))
    d.accept()
    qtbot.waitUntil(lambda: window.sidebar.new_chat_button.text() == "New chat", timeout=2000)


def test_the_context_size_says_what_it_costs_in_memory_for_the_loaded_model(
    qtbot: Any, launch: Launch, tiny_model: Path
) -> None:
    """Issue 12: the KV budget explained. og reserves the whole context's cache when the model loads."""
    decoder = json.loads((tiny_model / "genai_config.json").read_text())["model"]["decoder"]
    per_token = decoder["num_hidden_layers"] * decoder["num_key_value_heads"] * decoder["head_size"] * 2 * 4
    mind = launch()
    assert mind.session.model is not None and mind.session.model.kv_bytes_per_token == per_token
    d = mind.open_settings()
    d.app_tab.context_budget.setValue(1024)
    text = d.app_tab.context_memory.text()
    assert text.startswith(f"{mind.session.model.model_name}: 1,024 tokens of context take ")
    per = f"{per_token} bytes" if per_token < 1024 else f"{per_token / 1024:.0f} KB"  # never "0 KB" (issue 21)
    assert f"{per_token * 1024 / 1024:.0f} KB of memory ({per} per token)" in text
    assert "(0 KB per token)" not in text
    d.app_tab.context_budget.setValue(8192)  # more than the tiny model's 2,048: the box stops there
    assert d.app_tab.context_budget.value() == 2048
    assert "2,048 tokens of context" in d.app_tab.context_memory.text()
    assert d.app_tab.context_memory.text().endswith("This model reads at most 2,048 tokens.")
    d.reject()
    mind.translations.apply("zh_CN")
    d = mind.open_settings()
    d.app_tab.context_budget.setValue(1024)
    assert "1,024 个 token 的上下文占用" in d.app_tab.context_memory.text()
    d.reject()
    mind.translations.apply("en")


def test_without_a_model_the_context_size_says_it_depends_on_the_model(qtbot: Any) -> None:
    d = dialog(qtbot)
    assert (
        d.app_tab.context_memory.text() == "The memory a context takes depends on the model: load one to see it here."
    )


def test_a_context_larger_than_the_model_reads_is_shown_capped_and_kept(qtbot: Any, launch: Launch) -> None:
    """Issue 21: "4096" next to "This model reads at most 2,048 tokens" contradicted itself. The box shows what the
    model uses; the saved value stays for larger models unless the user changes it."""
    settings = Settings(theme="light", language="en", context_budget=4096)
    mind = launch(settings=settings)
    assert mind.session.model is not None and mind.session.model.context_length == 2048
    d = mind.open_settings()
    box = d.app_tab.context_budget
    assert (box.value(), box.maximum()) == (2048, 2048)
    assert d.app_tab.context_memory.text().startswith(f"{mind.session.model.model_name}: 2,048 tokens")
    assert d.result_values().app.context_budget == 4096  # not changed by opening Settings
    box.setValue(1024)
    assert d.result_values().app.context_budget == 1024
    d.reject()


def test_each_help_line_sits_under_its_own_control(qtbot: Any) -> None:
    """Issue 21: the context size's help sat under "CPU threads"."""
    d = dialog(qtbot)
    tab = d.app_tab
    form = tab.engine_group.layout()
    assert isinstance(form, QFormLayout)
    rows = [form.getWidgetPosition(w)[0] for w in (tab.context_budget, tab.context_help, tab.threads)]
    assert rows[0] < rows[1] < rows[2]
    assert "memory" in tab.context_help.text()


def test_settings_opens_on_plain_words_and_the_sampling_numbers_are_one_click_away(qtbot: Any) -> None:
    d = dialog(qtbot)
    d.show()
    qtbot.waitExposed(d)
    chat = d.chat_tab
    assert d.tabs.currentWidget() is chat
    for box in (chat.temperature, chat.top_p, chat.top_k, chat.repetition_penalty):
        assert not box.isVisible()
    assert all(b.isVisible() for b in chat.preset_buttons.values())
    qtbot.mouseClick(chat.advanced_button, Qt.MouseButton.LeftButton)
    assert chat.temperature.isVisible() and chat.field_help["temperature"].isVisible()
