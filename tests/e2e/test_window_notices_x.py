"""The window's notices on a small screen, with real X keys and clicks (issue 21), at 100 % and 150 %.

- "Your message was not sent yet" floats over the page: the welcome page's buttons stay where they were while it
  shows and after it goes (it pushed them down, and back 4 s later, so a click landed on the wrong card).
- The welcome page's folder card speaks plainly; the formats it opens are behind "Details".
- "Deleted “…”" in the sidebar shortens a long title with "…" and keeps the closing quote.
Screenshots go to build/screenshots/.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from localmind.core.store import ConversationStore
from tests.documents.xwidgets import Widgets, widget_env
from tests.helpers.xwindow import REPO, x_display

pytestmark = [pytest.mark.slow, pytest.mark.gui]
SHOTS = REPO / "build" / "screenshots"
LONG_TITLE = "Planning the vegetable garden for next spring and summer"


@pytest.mark.parametrize("scale", ["1", "1.5"])
def test_notices_move_nothing_and_shorten_titles_with_an_ellipsis(tmp_path: Path, scale: str) -> None:
    data = tmp_path / "data"
    data.mkdir()
    with ConversationStore(data / "conversations.sqlite3") as store:
        chat = store.create_conversation(title=LONG_TITLE)
        store.append_message(chat.id, "user", "What should I plant?")
        store.append_message(chat.id, "assistant", "Beans and tomatoes.")
    report = tmp_path / "widgets.json"
    with x_display(size=(1024, 600)) as x:
        app = x.start_app(data, env={**widget_env(report), "QT_SCALE_FACTOR": scale})
        ui = Widgets(x, app, report)
        app.activate()
        zoom = float(scale)  # the widget report has Qt's logical pixels, X clicks take the screen's

        def click(row: dict[str, object], button: int = 1, dy: int | None = None) -> None:
            left, top, width, height = row["rect"]  # type: ignore[misc]
            x.click(int((left + width / 2) * zoom), int((top + (height / 2 if dy is None else dy)) * zoom), button)

        click(ui.wait("New chat", text="New chat", cls="QPushButton"))
        # The welcome card in plain words; the formats behind "Details" (scrolled to, where the screen is short).
        page = ui.wait("the welcome page", name="WelcomeScroll")
        left, top, width, height = page["rect"]
        x.xdotool("mousemove", "--sync", str(int((left + width / 2) * zoom)), str(int((top + height / 2) * zoom)))
        x.xdotool("click", "--repeat", "5", "5")  # the mouse wheel, down
        click(ui.wait("the Details expander", text="▸ Details"))
        ui.wait("the formats", contains="genai_config.json", cls="QLabel")
        x.screenshot(SHOTS / f"welcome-details-{scale}.png")
        card = ui.wait("the welcome page's folder button", text="Open a model folder…", cls="QPushButton")
        x.type("hello")
        x.key("Return")  # no model: the message is not sent
        ui.wait("the notice", text="Your message was not sent yet.")
        x.screenshot(SHOTS / f"notice-not-sent-{scale}.png")
        assert ui.find(text="Open a model folder…", cls="QPushButton")["rect"] == card["rect"]  # type: ignore[index]
        app.wait_until(lambda: ui.find(text="Your message was not sent yet.") is None, 15, "the notice to go")
        assert ui.wait("the button", text="Open a model folder…", cls="QPushButton")["rect"] == card["rect"]

        # The chat deleted from its menu (right click, the last entry): the notice shortens its title.
        click(ui.wait("the chat list", name="ConversationList"), button=3, dy=14)
        ui.wait("the chat's menu", cls="QMenu")
        x.key("Up", "Return")
        notice = ui.wait("the deleted notice", contains="Deleted “", cls="ElidedTitleLabel")
        x.screenshot(SHOTS / f"notice-deleted-{scale}.png")
        assert str(notice["text"]).endswith("…”"), notice
        assert notice["tooltip"] == LONG_TITLE
