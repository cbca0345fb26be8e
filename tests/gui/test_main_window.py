"""The main window driven like a user drives it: the real engine with the tiny model, a fake one where speed or faults matter."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QPoint, Qt, QUrl
from PySide6.QtGui import QDesktopServices, QGuiApplication
from PySide6.QtWidgets import QFileDialog

from localmind.core.hub import import_folder, remove_model
from localmind.core.store import ConversationStore, StoreError
from localmind.engine.types import LoadInfo, TurnStats
from localmind.settings import load_settings
from localmind.ui.welcome import WelcomePage
from tests.helpers.app_window import (
    LONG_REPLY,
    Launch,
    fake,
    greedy_settings,
    launch_fixture,
    send_and_wait,
    stored,
    tiny_reply,
    type_and_send,
)

pytestmark = pytest.mark.gui


@pytest.fixture
def launch(qtbot: Any, tiny_model: Path) -> Iterator[Launch]:
    yield from launch_fixture(qtbot, tiny_model)


# -- chatting -------------------------------------------------------------------------------------------------------
def test_send_streams_the_exact_reply_and_keeps_it(qtbot: Any, launch: Launch, tiny_model: Path) -> None:
    mind = launch()
    window = mind.window
    assert window.pages.currentWidget() is window.welcome_page
    deltas: list[str] = []
    mind.session.reply_delta.connect(deltas.append)

    send_and_wait(qtbot, mind, "Hello there")

    reply = tiny_reply(tiny_model, [("user", "Hello there")])
    assert "".join(deltas) == reply
    assert window.chat_view.last_assistant_text() == reply
    assert window.pages.currentWidget() is window.chat_view
    assert window.composer.text == ""
    assert stored(mind) == [("user", "Hello there", "complete"), ("assistant", reply, "complete")]
    assert [c.title for c in mind.store.list_conversations()] == ["Hello there"]
    assert window.sidebar.model.rowCount() == 1
    # Status: speed and the context gauge from the engine's own figures.
    assert window.status.speed_label.isVisible() and "tok/s" in window.status.speed_label.text()
    assert "/ 2,048 tokens" in window.status.gauge_label.text()
    assert window.status.model_label.text() == "tiny"


def test_shift_enter_adds_a_line_instead_of_sending(qtbot: Any, launch: Launch) -> None:
    mind = launch()
    box = mind.window.composer.input
    qtbot.keyClicks(box, "one")
    qtbot.keyClick(box, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    qtbot.keyClicks(box, "two")
    assert mind.window.composer.text == "one\ntwo"
    assert mind.session.conversation is None


def test_stop_mid_stream_keeps_the_partial_answer(qtbot: Any, launch: Launch) -> None:
    mind = launch("/models/fake", engine=fake(delay=0.02))
    window = mind.window
    type_and_send(qtbot, mind, "count")
    qtbot.waitUntil(lambda: len(window.chat_view.last_assistant_text()) > 20, timeout=5000)
    assert window.composer.send_button.objectName() == "StopButton"
    with qtbot.waitSignal(mind.session.turn_finished, timeout=5000):
        qtbot.keyClick(window.composer.input, Qt.Key.Key_Escape)
    (_, question, _), (_, answer, status) = stored(mind)
    assert question == "count"
    assert status == "stopped"
    assert 20 < len(answer) < len(LONG_REPLY) and LONG_REPLY.startswith(answer)
    assert window.chat_view.last_assistant_text() == answer
    assert window.composer.send_button.objectName() == "SendButton"


def test_streaming_reply_is_saved_while_it_streams(qtbot: Any, launch: Launch) -> None:
    mind = launch("/models/fake", engine=fake(delay=0.02))
    type_and_send(qtbot, mind, "count")
    qtbot.wait(1200)
    assert mind.session.generating
    reply = stored(mind)[1]
    assert reply[2] == "streaming" and len(reply[1]) > 30
    mind.session.stop()


def test_closing_while_streaming_saves_the_reply_as_stopped(qtbot: Any, launch: Launch, data_dir: Path) -> None:
    mind = launch("/models/fake", engine=fake(delay=0.02))
    type_and_send(qtbot, mind, "count")
    qtbot.waitUntil(lambda: len(mind.window.chat_view.last_assistant_text()) > 10, timeout=5000)
    mind.window.close()
    shown = mind.window.chat_view.last_assistant_text()
    with ConversationStore(data_dir / "conversations.sqlite3") as store:
        (conversation,) = store.list_conversations()
        reply = store.messages(conversation.id)[1]
    assert reply.status == "stopped"
    assert reply.content.startswith(shown) and LONG_REPLY.startswith(reply.content)


def test_regenerate_replaces_the_last_answer(qtbot: Any, launch: Launch, tiny_model: Path) -> None:
    mind = launch()
    send_and_wait(qtbot, mind, "hi")
    first = mind.store.messages(mind.session.conversation_id or "")[1]
    with qtbot.waitSignal(mind.session.turn_finished, timeout=15000):
        mind.window.chat_view.regenerate_requested.emit()
    messages = mind.store.messages(mind.session.conversation_id or "")
    assert [m.role for m in messages] == ["user", "assistant"]
    assert messages[1].id != first.id
    assert messages[1].content == tiny_reply(tiny_model, [("user", "hi")])
    assert mind.window.chat_view.last_assistant_text() == messages[1].content


def test_edit_an_earlier_message_and_resend(qtbot: Any, launch: Launch, tiny_model: Path) -> None:
    mind = launch()
    send_and_wait(qtbot, mind, "hello")
    send_and_wait(qtbot, mind, "second")
    first_user = mind.store.messages(mind.session.conversation_id or "")[0]

    mind.window.chat_view.edit_requested.emit(first_user.id)
    composer = mind.window.composer
    assert composer.editing == first_user.id and composer.text == "hello"
    assert composer.edit_banner.isVisible()
    composer.input.selectAll()
    with qtbot.waitSignal(mind.session.turn_finished, timeout=15000):
        type_and_send(qtbot, mind, "changed")

    reply = tiny_reply(tiny_model, [("user", "changed")])
    assert stored(mind) == [("user", "changed", "complete"), ("assistant", reply, "complete")]
    assert mind.window.chat_view.last_assistant_text() == reply
    assert not composer.edit_banner.isVisible()


def test_a_prompt_too_long_for_the_context_stays_in_the_composer(qtbot: Any, launch: Launch) -> None:
    mind = launch()
    megabyte = ("All work and no play makes a very long paste. " * 20 + "\n") * 1100
    assert len(megabyte) > 1_000_000
    QGuiApplication.clipboard().setText(megabyte)
    composer = mind.window.composer
    composer.input.setFocus()
    composer.input.paste()
    assert composer.text == megabyte
    with qtbot.waitSignal(mind.session.error, timeout=30000) as error:
        qtbot.keyClick(composer.input, Qt.Key.Key_Return)
    assert "too long" in error.args[1]
    assert composer.text == megabyte.rstrip("\n")  # as sent: the line break after the last word is not
    assert mind.window.banner.isVisible() and mind.window.banner.kind == "error"
    assert "too long" in mind.window.banner.detail.text()
    # Nothing half-sent is left behind, and the next message goes through.
    assert all(not c.message_count for c in mind.store.list_conversations())
    composer.input.clear()
    send_and_wait(qtbot, mind, "short")
    assert [r for r, _, _ in stored(mind)] == ["user", "assistant"]


# -- conversations --------------------------------------------------------------------------------------------------
def test_search_finds_a_message_and_opens_its_chat(qtbot: Any, launch: Launch) -> None:
    mind = launch()
    send_and_wait(qtbot, mind, "tell me about zebras")
    wanted = mind.session.conversation_id
    qtbot.keyClick(mind.window, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    assert mind.session.conversation is None
    send_and_wait(qtbot, mind, "something else")

    qtbot.keyClick(mind.window, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    sidebar = mind.window.sidebar
    assert sidebar.search_field.hasFocus()
    qtbot.keyClicks(sidebar.search_field, "zebra")
    qtbot.waitUntil(lambda: sidebar.results.rowCount() > 0, timeout=3000)
    hit = sidebar.results.hit(0)
    assert hit is not None and hit.conversation_id == wanted and "zebra" in hit.snippet
    rect = sidebar.results_view.visualRect(sidebar.results.index(0))
    qtbot.mouseClick(sidebar.results_view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert mind.session.conversation_id == wanted
    assert mind.window.title_label.text() == "tell me about zebras"


def test_a_search_hit_deep_in_a_long_chat_scrolls_to_its_message(qtbot: Any, launch: Launch, data_dir: Path) -> None:
    with ConversationStore(data_dir / "conversations.sqlite3") as store:
        long_chat = store.create_conversation(title="A long chat")
        for i in range(80):
            text = "what do okapis and zebras have in common?" if i == 4 else f"turn {i}\n\n" + "filler line\n\n" * 3
            store.append_message(long_chat.id, "user" if i % 2 == 0 else "assistant", text)
        wanted = store.messages(long_chat.id)[4].id
    mind = launch()
    send_and_wait(qtbot, mind, "something else")  # another chat is open when the user searches
    view = mind.window.chat_view

    sidebar = mind.window.sidebar
    qtbot.keyClick(mind.window, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClicks(sidebar.search_field, "okapis")
    qtbot.waitUntil(lambda: sidebar.results.rowCount() > 0, timeout=3000)
    hit = sidebar.results.hit(0)
    assert hit is not None and hit.message_id == wanted
    rect = sidebar.results_view.visualRect(sidebar.results.index(0))
    qtbot.mouseClick(sidebar.results_view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())

    assert mind.session.conversation_id == long_chat.id
    widget = view.message_widget(wanted)  # built although it lies pages above the newest messages
    assert widget is not None and widget.highlight > 0
    viewport = view._scroll.viewport()

    def on_screen() -> bool:
        top = widget.mapTo(viewport, QPoint(0, 0)).y()
        return 0 <= top <= viewport.height() - 20

    qtbot.waitUntil(on_screen, timeout=3000)
    qtbot.wait(100)  # and it stays there once every page built for it is laid out
    assert on_screen()
    assert "okapis" in widget.record.content


def test_rename_and_delete_with_undo(qtbot: Any, launch: Launch) -> None:
    mind = launch()
    send_and_wait(qtbot, mind, "first chat")
    conversation_id = mind.session.conversation_id
    model = mind.conversations
    model.setData(model.index(0), "My renamed chat")
    assert mind.store.get_conversation(conversation_id or "").title == "My renamed chat"
    assert mind.window.title_label.text() == "My renamed chat"

    sidebar = mind.window.sidebar
    sidebar.list_view.setFocus()
    sidebar.list_view.setCurrentIndex(model.index(0))
    qtbot.keyClick(sidebar.list_view, Qt.Key.Key_Delete)
    assert model.rowCount() == 0 and mind.store.list_conversations() == []
    assert mind.session.conversation is None
    assert sidebar.undo_bar.isVisible() and sidebar.undo_label.text().startswith("Deleted “My")
    assert sidebar.undo_label.toolTip() == "My renamed chat"  # the whole title where the line shortens it
    qtbot.mouseClick(sidebar.undo_button, Qt.MouseButton.LeftButton)
    assert [c.title for c in mind.store.list_conversations()] == ["My renamed chat"]
    assert mind.session.conversation_id == conversation_id


def test_restart_shows_everything_again(qtbot: Any, launch: Launch, tiny_model: Path) -> None:
    settings = greedy_settings()
    mind = launch(settings=settings)
    send_and_wait(qtbot, mind, "first question")
    send_and_wait(qtbot, mind, "and a follow-up")
    mind.session.new_chat()
    send_and_wait(qtbot, mind, "another chat")
    before = {c.id: (c.title, [(m.role, m.content, m.status) for m in mind.store.messages(c.id)])
              for c in mind.store.list_conversations()}  # fmt: skip
    mind.window.resize(760, 560)
    qtbot.waitUntil(lambda: mind.window.splitter.width() == 760)
    mind.window.splitter.setSizes([300, 459])
    assert mind.window.splitter.sizes() == [300, 459]
    mind.window.close()

    # `localmind` alone: the last model comes back, and so does every chat.
    again = launch(None, settings=load_settings(), load_last_model=True)
    assert again.session.model is not None and again.session.model.model_dir == str(tiny_model)
    titles = [again.conversations.conversation(r).title for r in range(again.conversations.rowCount())]  # type: ignore[union-attr]
    assert titles == ["another chat", "first question"]
    for conversation_id, (_title, messages) in before.items():
        again.window.sidebar.conversation_selected.emit(conversation_id)
        assert stored(again) == messages
    assert (again.window.width(), again.window.height()) == (760, 560)
    assert again.window.splitter.sizes() == [300, 459]


def test_export_and_import_round_trip_through_the_window(
    qtbot: Any, launch: Launch, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mind = launch()
    send_and_wait(qtbot, mind, "keep this 你好")
    original = stored(mind)
    target = tmp_path / "chats.json"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(target), ""))
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(target), ""))
    with qtbot.waitSignal(mind.tasks.task_finished, timeout=10_000):  # written in the background
        mind.window.sidebar.export_json_action.trigger()
    assert target.is_file() and "keep this 你好" in target.read_text(encoding="utf-8")
    with qtbot.waitSignal(mind.tasks.task_finished, timeout=10_000):
        mind.window.sidebar.import_action.trigger()
    # The same export again changes nothing (it used to add a copy of every chat), and the window says so.
    assert len(mind.store.list_conversations()) == 1
    assert mind.window.banner.title.text() == "Skipped 1 chat(s) already here."
    assert stored(mind) == original
    markdown = tmp_path / "chat.md"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(markdown), ""))
    with qtbot.waitSignal(mind.tasks.task_finished, timeout=10_000):
        mind.window.sidebar.export_requested.emit(mind.session.conversation_id, "md")
    assert "## You" in markdown.read_text(encoding="utf-8")


# -- models and first run -------------------------------------------------------------------------------------------
def test_first_run_welcome_page_opens_a_model_folder(
    qtbot: Any, launch: Launch, tiny_model: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mind = launch(None)
    window = mind.window
    assert window.pages.currentWidget() is window.welcome_page
    assert window.welcome.state == WelcomePage.NO_MODEL
    assert window.welcome.folder_card.isVisible()
    assert not window.composer.send_button.isEnabled()
    assert window.status.model_label.text() == "No model loaded"
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", lambda *a, **k: str(tiny_model))
    with qtbot.waitSignal(mind.service.loaded, timeout=15000):
        qtbot.mouseClick(window.welcome.folder_card.button, Qt.MouseButton.LeftButton)
    assert window.welcome.state == WelcomePage.READY
    assert window.welcome.suggestions.isVisible()
    assert window.composer.send_button.isEnabled()
    assert load_settings().last_model == str(tiny_model)


def test_load_failure_explains_and_the_app_stays_usable(qtbot: Any, launch: Launch) -> None:
    problem = "The folder /models/broken has no genai_config.json."
    mind = launch("/models/broken", engine=fake(load_error=problem), wait=False)
    qtbot.waitUntil(lambda: mind.window.banner.isVisible(), timeout=5000)
    banner = mind.window.banner
    assert banner.kind == "error"
    assert banner.title.text() == "The model could not be loaded."
    assert problem in banner.detail.text()
    assert any(b.text() == "Open another model folder…" for b in banner._buttons)
    assert mind.window.status.model_label.text() == "Model failed to load"
    assert not mind.window.composer.send_button.isEnabled()
    # Still usable: chats can be started and searched.
    qtbot.keyClick(mind.window, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    mind.window.sidebar.search_field.setText("anything")
    qtbot.waitUntil(lambda: mind.window.sidebar.stack.currentWidget() is mind.window.sidebar.empty_hint, timeout=3000)


def test_loading_shows_a_busy_state(qtbot: Any, launch: Launch) -> None:
    mind = launch(None)
    mind.service.load("/models/slow")  # the real engine: fails, but only after the child process starts
    assert mind.window.status.busy.isVisible()
    assert mind.window.welcome.state == WelcomePage.LOADING
    assert "Loading" in mind.window.model_button.text()
    qtbot.waitUntil(lambda: not mind.window.status.busy.isVisible(), timeout=15000)


# -- shortcuts and links --------------------------------------------------------------------------------------------
def test_shortcuts_copy_the_last_answer_and_open_settings(qtbot: Any, launch: Launch, tiny_model: Path) -> None:
    mind = launch()
    send_and_wait(qtbot, mind, "hi")
    QGuiApplication.clipboard().clear()
    qtbot.keyClick(mind.window, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert QGuiApplication.clipboard().text() == tiny_reply(tiny_model, [("user", "hi")])
    qtbot.keyClick(mind.window, Qt.Key.Key_Comma, Qt.KeyboardModifier.ControlModifier)
    dialog = mind.settings_dialog
    assert dialog is not None and dialog.isVisible()
    dialog.reject()


def test_links_open_only_when_safe(qtbot: Any, launch: Launch, monkeypatch: pytest.MonkeyPatch) -> None:
    mind = launch(None)
    opened: list[str] = []
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: opened.append(url.toString()) or True)
    mind.window.chat_view.link_clicked.emit(QUrl("https://example.org/page"))
    mind.window.chat_view.link_clicked.emit(QUrl("file:///etc/passwd"))
    assert opened == ["https://example.org/page"]
    assert mind.window.banner.kind == "error"


def test_main_controls_have_accessible_names(launch: Launch) -> None:
    window = launch(None).window
    for widget in (
        window.composer.input,
        window.composer.send_button,
        window.sidebar.new_chat_button,
        window.sidebar.search_field,
        window.sidebar.list_view,
        window.settings_button,
        window.model_button,
    ):
        assert widget.accessibleName(), widget.objectName()


def test_the_model_picker_lists_installed_models_and_loads_one(qtbot: Any, launch: Launch, tiny_model: Path) -> None:
    good = import_folder(tiny_model, model_id="tiny-chat")
    broken = import_folder(tiny_model, model_id="tiny-broken")
    (broken.model_path / "model.onnx").unlink()  # fails the quick check: must not be offered
    mind = launch(None)
    window = mind.window
    menu = window.model_menu

    def shown_entries() -> list[tuple[str, bool]]:
        menu.popup(window.model_button.mapToGlobal(window.model_button.rect().bottomLeft()))
        qtbot.waitUntil(menu.isVisible)
        entries = [(a.text() or "---", a.isChecked()) for a in menu.actions() if a.isVisible()]
        menu.hide()
        return entries

    assert shown_entries() == [
        (good.name, False),
        ("---", False),
        ("Open a model folder…", False),
        ("Get more models…", False),
    ]
    (entry,) = [a for a in menu.actions() if a.text() == good.name]
    assert entry.toolTip().endswith(str(good.model_path)) and "Context: " in entry.toolTip()  # the model's details
    entry.trigger()
    qtbot.waitUntil(lambda: mind.session.model is not None, timeout=15000)
    assert Path(mind.session.model.model_dir).resolve() == good.model_path.resolve()  # type: ignore[union-attr]
    assert (good.name, True) in shown_entries()  # the loaded one is ticked

    # Removed meanwhile: gone from the menu the next time it opens.
    remove_model("tiny-chat")
    assert shown_entries()[0] == ("Open a model folder…", False)


def test_get_a_model_opens_the_model_manager_and_a_model_loads_from_it(
    qtbot: Any, launch: Launch, tiny_model: Path
) -> None:
    mind = launch(None)
    window = mind.window
    assert window.welcome.get_card.isVisible()
    qtbot.mouseClick(window.welcome.get_card.button, Qt.MouseButton.LeftButton)
    assert window.main_stack.currentWidget() is window.manager_holder
    assert window.model_manager is not None and window.model_manager.isVisible()
    with qtbot.waitSignal(mind.service.loaded, timeout=15000):
        window.model_manager.load_requested.emit(str(tiny_model))  # type: ignore[attr-defined]
    assert window.main_stack.currentWidget() is window.chat_area
    assert window.welcome.state == WelcomePage.READY


def test_status_shows_device_fallback_and_dropped_turns(launch: Launch) -> None:
    status = launch(None).window.status
    status.set_model(
        LoadInfo(
            model_dir="/m/phi",
            model_name="phi",
            model_type="phi3",
            device="cpu",
            fallback_reasons=(("cuda", "no NVIDIA driver was found"),),
            context_budget=4096,
        )
    )
    assert status.device_label.text() == "on CPU ⓘ"
    assert "no NVIDIA driver was found" in status.device_label.toolTip()
    status.set_turn_stats(
        TurnStats(generated_tokens=12, time_to_first_token_s=0.25, tokens_per_second=31.4, dropped_messages=3)
    )
    status.set_context(3990, 4096)
    assert status.ttft_label.text() == "First token 0.25 s"
    assert status.speed_label.text() == "31.4 tok/s"
    assert status.dropped_label.isVisible() and "3 older message(s)" in status.dropped_label.text()
    assert status.gauge_label.text() == "3,990 / 4,096 tokens"
    assert status.gauge.property("level") == "high"


def test_a_message_the_store_cannot_keep_goes_back_to_the_composer(
    qtbot: Any, launch: Launch, monkeypatch: pytest.MonkeyPatch
) -> None:
    mind = launch("/models/fake", engine=fake("ok"))

    def disk_full(*_args: Any, **_kwargs: Any) -> None:
        raise StoreError("Could not save to the conversation database: the disk is full.")

    monkeypatch.setattr(mind.store, "append_message", disk_full)
    type_and_send(qtbot, mind, "please keep me")
    assert mind.window.composer.text == "please keep me"
    assert mind.window.banner.kind == "error" and "disk is full" in mind.window.banner.detail.text()
    assert not mind.session.generating
