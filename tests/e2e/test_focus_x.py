"""Where typing goes after the window's common actions: the real app under Xvfb + openbox, real X clicks and keys.

Issue 21: Enter without a model left a line break that was sent with the message later; after clicking a chat in
the sidebar, the letters typed jumped to the chat whose title starts with them; after "Open a model folder…" and
after Regenerate the typed text went nowhere (and a space toggled a header switch).
The rule (ui/focus.py): after an action that does not itself take typing, the message box has the keyboard. Each step
below types a message with real keys and presses Enter; the message must be stored, in the chat that was open.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from localmind.core.store import ConversationStore
from tests.documents.xwidgets import Widgets, widget_env
from tests.helpers.xwindow import REPO, AppWindow, XDisplay, x_display

pytestmark = [pytest.mark.slow, pytest.mark.gui]
SHOTS = REPO / "build" / "screenshots"
TITLES = ("apple pie", "banana bread", "cherry tart")


def seed(data: Path) -> None:
    data.mkdir(parents=True, exist_ok=True)
    with ConversationStore(data / "conversations.sqlite3") as store:
        for title in TITLES:
            chat = store.create_conversation(title=title)
            store.append_message(chat.id, "user", f"Tell me about {title}.")
            store.append_message(chat.id, "assistant", f"{title} is nice.")


def chat_of(app: AppWindow, content: str) -> str | None:
    """The title of the chat where a user message ``content`` was stored, if it was."""
    rows = app.query(
        "SELECT c.title FROM messages m JOIN conversations c ON c.id = m.conversation_id "
        "WHERE m.role = 'user' AND m.content = ?",
        (content,),
    )
    return str(rows[0][0]) if rows else None


def answered(app: AppWindow) -> bool:
    return not app.query("SELECT 1 FROM messages WHERE status = 'streaming'")


def type_message(x: XDisplay, app: AppWindow, text: str, title: str, what: str) -> None:
    x.type(text)
    x.key("Return")
    app.wait_until(lambda: chat_of(app, text), 20, f"{text!r} to be stored ({what})")
    assert chat_of(app, text) == title, what
    app.wait_until(lambda: answered(app), 60, "the answer")


def rows_with_tooltip(ui: Widgets, tooltip: str) -> list[dict[str, Any]]:
    return [row for row in ui.rows() if row.get("tooltip") == tooltip and row["enabled"]]


def test_typing_after_the_common_actions_reaches_the_message_box(tmp_path: Path, tiny_model: Path) -> None:
    data = tmp_path / "data"
    seed(data)
    report = tmp_path / "widgets.json"
    with x_display() as x:
        app = x.start_app(data, env=widget_env(report))  # a first run: no model yet
        ui = Widgets(x, app, report)
        app.activate()

        # Enter with no model: not sent, and no line break left in the box to be sent later.
        x.type("first words")
        x.key("Return")
        ui.wait("the notice", text="Your message was not sent yet.")

        # The welcome page's "Open a model folder…", a folder typed into the dialog: the model loads, and what is
        # typed next goes on in the message box (it went to the button, or a space toggled a header switch).
        ui.click("the welcome page's folder button", text="Open a model folder…", cls="QPushButton")
        dialog = x.find_window("Open a model folder")
        x.screenshot(SHOTS / "focus-x-folder-dialog.png")
        x.type(str(tiny_model))
        x.key("Return")
        app.wait_until(lambda: dialog not in app.window_ids(), 20, "the folder dialog to close")
        app.wait_model_loaded(tiny_model)
        ui.wait("the ready welcome page", text="How can I help you today?")
        x.type(" after the folder")
        x.key("Return")
        seeded = [f"Tell me about {title}." for title in TITLES]
        app.wait_until(lambda: len(app.messages("user")) > len(seeded), 20, "the first message (after the folder)")
        assert [m[1] for m in app.messages("user") if m[1] not in seeded] == ["first words after the folder"]
        app.wait_until(lambda: answered(app), 60, "the answer")

        # A chat clicked in the sidebar: its letters no longer jump to another chat ("b…" to "banana bread").
        chats = ui.wait("the chat list", name="ConversationList")
        left, top, width, _ = chats["rect"]
        x.click(left + width // 2, top + 14)
        title = ui.wait("the clicked chat's title", name="ChatTitle")["text"]
        assert title in app.conversations()
        other = next(t for t in TITLES if t != title)
        type_message(x, app, f"{other.split()[0]} please", title, "after a click on a chat in the sidebar")
        x.screenshot(SHOTS / "focus-x-after-sidebar.png")

        # "Open a model folder…" from the model picker, the folder dialog cancelled.
        ui.click("the model picker", cls="QToolButton", contains="▾")
        ui.wait("the model menu", cls="QMenu")
        x.key("Down", "Return")
        dialog = x.find_window("Open a model folder")
        x.key("Escape")
        app.wait_until(lambda: dialog not in app.window_ids(), 10, "the folder dialog to close")
        type_message(x, app, "after the folder dialog", title, "after Open a model folder")

        # Regenerate on the last answer.
        before = len(app.messages("assistant"))
        (button,) = app.wait_until(lambda: rows_with_tooltip(ui, "Regenerate answer"), 20, "the Regenerate button")
        bx, by, bw, bh = button["rect"]
        x.click(bx + bw // 2, by + bh // 2)
        time.sleep(0.3)
        app.wait_until(lambda: answered(app), 60, "the regenerated answer")
        assert len(app.messages("assistant")) >= before
        type_message(x, app, "after regenerate", title, "after Regenerate")
        x.screenshot(SHOTS / "focus-x-after-regenerate.png")
