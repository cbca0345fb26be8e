"""The sidebar's conversation list fits its width: long titles are elided, never scrolled sideways."""

from __future__ import annotations

import time
from typing import Any

from localmind.core.conversations import Conversation
from localmind.ui.sidebar import Sidebar
from localmind.viewmodels.conversation_list import ConversationListModel


def conversation(title: str) -> Conversation:
    now = time.time()
    return Conversation(
        id="c" * 32,
        title=title,
        created_at=now,
        updated_at=now,
        system_prompt="",
        settings={},
        model=None,
        message_count=2,
        deleted_at=None,
    )


def test_long_titles_do_not_scroll_sideways(qtbot: Any) -> None:
    model = ConversationListModel()
    model.set_conversations([conversation("Hi! Can you say hello in Chinese, Japanese, Korean and in emoji too?")])
    sidebar = Sidebar(model)
    qtbot.addWidget(sidebar)
    sidebar.resize(260, 600)
    sidebar.show()
    qtbot.waitExposed(sidebar)
    view = sidebar.list_view
    assert view.horizontalScrollBar().maximum() == 0
    assert view.visualRect(model.index(0)).width() <= view.viewport().width()


def test_the_deleted_notice_shortens_a_long_title_with_an_ellipsis(qtbot: Any) -> None:
    """Issue 21: "Deleted “…”" was cut at the sidebar's edge, the end of the title and the quote missing."""
    sidebar = Sidebar(ConversationListModel())
    qtbot.addWidget(sidebar)
    sidebar.resize(220, 600)
    sidebar.show()
    qtbot.waitExposed(sidebar)
    title = "Planning the garden for next spring with vegetables"
    sidebar.show_deleted("c" * 32, title)
    label = sidebar.undo_label
    qtbot.waitUntil(label.isVisible)
    qtbot.wait(50)
    shown = label.text()
    assert shown.startswith("Deleted “Pl") and shown.endswith("…”"), shown
    assert label.fontMetrics().horizontalAdvance(shown) <= label.contentsRect().width()
    assert label.toolTip() == title
    sidebar.resize(400, 600)  # wider: more of the title
    qtbot.waitUntil(lambda: len(label.text()) > len(shown))
    short = "Tea"
    sidebar.show_deleted("d" * 32, short)
    assert label.text() == "Deleted “Tea”"
