"""No message content can make the window do unbounded work (issue 10.8); bench/ui_hostile.py measures the time."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from PySide6.QtWidgets import QToolButton

from localmind.ui.chat.blocks import MAX_LEADING_WHITESPACE, ProseBlock, split_blocks
from localmind.ui.chat.markdown import (
    MAX_LIST_INDENT,
    MAX_NESTING,
    MAX_QUOTE_MARGIN_PX,
    bound_markdown,
    too_costly_for_markdown,
)
from localmind.ui.chat.message_widget import ANSWER_PREVIEW_LINES
from localmind.ui.chat.segments import MarkdownView
from localmind.ui.chat_view import ChatView
from localmind.viewmodels.plain_text import display_title

pytestmark = pytest.mark.gui

NESTED_LISTS = "\n".join("  " * i + f"- level {i}" for i in range(2000))


@dataclass
class Msg:
    id: int
    role: str
    content: str
    status: str = "complete"


def _show(qtbot: Any, content: str) -> ChatView:
    view = ChatView()
    qtbot.addWidget(view)
    view.resize(900, 700)
    view.show()
    view.set_messages([Msg(1, "user", "show me"), Msg(2, "assistant", content)])
    qtbot.wait(20)
    return view


def _documents(view: ChatView) -> list[Any]:
    return [v.document() for v in view.findChildren(MarkdownView)]


@pytest.mark.parametrize("marker", ["* ", "> ", "1. ", "- > "])
def test_markers_on_one_line_nest_at_most_a_few_levels(marker: str) -> None:
    bounded = bound_markdown(marker * 10_000 + "the text")
    assert bounded.endswith("the text")
    assert len(bounded) <= len(marker) * MAX_NESTING + len("the text")


def test_indentation_is_capped_before_anything_reads_it() -> None:
    blocks = split_blocks(NESTED_LISTS)
    longest = max(
        len(line) - len(line.lstrip()) for b in blocks if isinstance(b, ProseBlock) for line in b.text.split("\n")
    )
    assert longest <= MAX_LEADING_WHITESPACE
    assert all(len(line) - len(line.lstrip()) <= 4 * MAX_NESTING for line in bound_markdown(NESTED_LISTS).split("\n"))


def test_thousands_of_list_items_are_shown_as_text_not_parsed() -> None:
    assert too_costly_for_markdown("\n".join(f"- item {i}" for i in range(1000)))
    assert not too_costly_for_markdown("\n".join(f"- item {i}" for i in range(100)))


def test_a_huge_answer_opens_with_its_beginning_and_show_more(qtbot: Any) -> None:
    view = _show(qtbot, NESTED_LISTS)
    shown_lines = sum(doc.blockCount() for doc in _documents(view))
    assert shown_lines <= ANSWER_PREVIEW_LINES + 5
    more = [b for b in view.findChildren(QToolButton) if b.text() == "Show more"]
    assert len(more) == 1
    more[0].click()
    qtbot.waitUntil(lambda: sum(doc.blockCount() for doc in _documents(view)) >= 2000, timeout=10_000)


def test_deep_lists_and_quotes_stay_readable(qtbot: Any) -> None:
    quotes = "\n".join("> " * (i + 1) + f"quote level {i + 1} with a few words" for i in range(50))
    lists = "\n".join("  " * i + f"- level {i}" for i in range(40))
    view = _show(qtbot, quotes + "\n\n" + lists)
    margins, indents = [], []
    for doc in _documents(view):
        block = doc.begin()
        while block.isValid():
            margins.append(block.blockFormat().leftMargin())
            if block.textList() is not None:
                indents.append(block.textList().format().indent())
            block = block.next()
    assert margins and max(margins) <= MAX_QUOTE_MARGIN_PX
    assert indents and max(indents) <= MAX_LIST_INDENT


def test_a_two_thousand_line_title_is_shown_as_one_line() -> None:
    title = "\n".join(f"title line {i}" for i in range(2000))
    assert display_title(title) == "title line 0…"
