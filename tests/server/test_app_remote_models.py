"""Remote models in the window: listed in the picker, clearly marked, chatting through a real OpenAI-compatible server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.app_window import Launch, greedy_settings, launch_fixture, send_and_wait, stored, tiny_reply
from tests.helpers.memory_keyring import MemoryKeyring
from tests.server.serving import Server

pytestmark = [pytest.mark.gui, pytest.mark.slow]


@pytest.fixture
def launch(qtbot: Any, tiny_model: Path) -> Iterator[Launch]:
    yield from launch_fixture(qtbot, tiny_model)


def test_a_remote_model_is_marked_loads_and_answers(
    qtbot: Any, launch: Launch, tiny_server: Server, tiny_model: Path, memory_keyring: MemoryKeyring
) -> None:
    settings = greedy_settings()
    settings.remote_models, settings.remote_url = True, tiny_server.url
    mind = launch(None, settings=settings)
    host = tiny_server.url.removeprefix("http://")
    qtbot.waitUntil(lambda: bool(mind.window.remote_models), timeout=15000)
    mind.window.refresh_model_menu()
    actions = {a.text(): a for a in mind.window.model_menu.actions()}
    label = f"tiny — runs on {host}"
    assert label in actions, list(actions)
    assert "your messages leave this computer" in actions[label].toolTip()
    actions[label].trigger()
    qtbot.waitUntil(lambda: mind.session.model is not None, timeout=15000)
    info = mind.session.model
    assert info is not None and info.device == f"remote: {host}"
    assert mind.window.banner.isVisible() and "leave this computer" in mind.window.banner.detail.text()
    send_and_wait(qtbot, mind, "hello remote")
    assert stored(mind)[-1][1:] == (tiny_reply(tiny_model, [("user", "hello remote")]), "complete")
    conversation = mind.store.get_conversation(mind.session.conversation_id)  # type: ignore[arg-type]
    assert conversation.model == f"remote:{tiny_server.url}/v1#tiny"  # the conversation says which engine answered
    # Back to the local model: the same conversation now records it.
    mind.load_model(str(tiny_model))
    qtbot.waitUntil(lambda: mind.session.model is not None and mind.session.model.device == "cpu", timeout=15000)
    send_and_wait(qtbot, mind, "and locally")
    conversation = mind.store.get_conversation(mind.session.conversation_id)  # type: ignore[arg-type]
    assert conversation.model == str(tiny_model)


def test_remote_models_are_off_by_default(qtbot: Any, launch: Launch, memory_keyring: MemoryKeyring) -> None:
    mind = launch()
    qtbot.wait(200)
    assert mind.window.remote_models == []
    mind.window.refresh_model_menu()
    assert not [a for a in mind.window.model_menu.actions() if "runs on" in a.text()]


def test_the_remote_model_used_last_is_loaded_at_the_next_start(
    qtbot: Any, launch: Launch, tiny_server: Server, memory_keyring: MemoryKeyring
) -> None:
    """The settings keep it as text (remote:URL#NAME); read as a ModelRef it is a server's model, not a folder that
    went missing (before ModelRef, the window said "The model you used last is no longer there")."""
    settings = greedy_settings()
    settings.remote_models, settings.remote_url = True, tiny_server.url
    settings.last_model = f"remote:{tiny_server.url}/v1#tiny"
    mind = launch(None, settings=settings, load_last_model=True)
    info = mind.session.model
    assert info is not None and info.model_name == "tiny" and info.device.startswith("remote: ")
    assert not (mind.window.banner.isVisible() and "no longer there" in mind.window.banner.title.text())
