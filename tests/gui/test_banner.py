"""Notices above the chat use the width they have and show their whole text (issue 9.2)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from PySide6.QtWidgets import QLabel

from localmind.ui.main_window import MainWindow

pytestmark = pytest.mark.gui

DETAIL = (
    "chats.json is not valid JSON (line 1, column 2: Expecting property name enclosed in double quotes). "
    "Pick a file that LocalMind exported."
)


def _fully_shown(label: QLabel) -> None:
    assert label.height() >= label.heightForWidth(label.width()), f"{label.text()!r} is clipped"


@pytest.mark.parametrize(
    "show",
    [
        lambda w: w.show_notice("Exported 1 chat(s) to /home/user/localmind-chats.json."),
        lambda w: w.show_error("Import failed.", DETAIL),
        lambda w: w.show_error(
            "The engine stopped unexpectedly (signal 9).", "LocalMind restarts it on your next message."
        ),
        lambda w: w.show_error(
            "The model could not be loaded.", DETAIL, [("Open another model folder…", lambda: None)]
        ),
    ],
    ids=["notice", "error", "engine-crash", "with-a-button"],
)
@pytest.mark.parametrize("width", [1180, 720])
def test_a_banner_spans_the_chat_column_and_is_not_clipped(
    qtbot: Any, show: Callable[[MainWindow], None], width: int
) -> None:
    window = MainWindow()
    qtbot.addWidget(window)
    window.resize(width, 700)
    window.show()
    qtbot.waitExposed(window)
    show(window)
    banner = window.banner
    qtbot.waitUntil(lambda: banner.isVisible() and banner.title.width() > 0)
    qtbot.wait(50)
    # The text column takes what the icon and the close button leave (it was squeezed to 70-90 px without buttons).
    assert banner.title.width() >= banner.width() - 120
    _fully_shown(banner.title)
    if banner.detail.isVisible():
        assert banner.detail.width() >= banner.width() - 120
        _fully_shown(banner.detail)


@pytest.mark.parametrize("size", [(1024, 600), (720, 480)])
def test_a_notice_floats_over_the_page_and_moves_nothing(qtbot: Any, size: tuple[int, int]) -> None:
    """Issue 21: "Your message was not sent yet" pushed the page down and back 4 s later: a click aimed at a
    welcome card landed on another one."""
    window = MainWindow()
    qtbot.addWidget(window)
    window.resize(*size)
    window.show()
    qtbot.waitExposed(window)
    card = window.welcome.folder_card.button

    def place() -> tuple[int, int, int, int]:
        top_left = card.mapTo(window, card.rect().topLeft())
        return top_left.x(), top_left.y(), card.width(), card.height()

    qtbot.wait(100)  # laid out
    before = place()
    window.show_notice("Your message was not sent yet.", DETAIL, timeout_ms=300)
    banner = window.banner
    qtbot.waitUntil(lambda: banner.isVisible() and banner.title.width() > 0)
    qtbot.wait(50)
    assert place() == before
    assert window.pages.geometry().contains(banner.geometry())
    _fully_shown(banner.title)
    _fully_shown(banner.detail)
    qtbot.waitUntil(lambda: not banner.isVisible(), timeout=3000)
    assert place() == before
