"""Issue 21 in the real window under Xvfb + openbox, with real X mouse and keys, at 1024×600 and at 150 %:
Regenerate keeps the earlier answer (‹ 1/2 ›), the arrows switch it and leave the keyboard in the message box; an
answer's sources are shown under it in the UI's language (Chinese here), not as part of its text.

Screenshots go to build/screenshots/ (LOCALMIND_SCREENSHOTS to choose).
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from localmind.core.store import ConversationStore
from tests.documents.xwidgets import Widgets, widget_env
from tests.helpers.xwindow import x_display

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
SHOTS = Path(os.environ.get("LOCALMIND_SCREENSHOTS", REPO / "build" / "screenshots"))
SCREENS = {"1024x600": ((1024, 600), 96), "150pct": ((1366, 768), 144)}


def versions(app: object) -> list[tuple[int, int]]:
    """(version shown, kept versions) of each stored answer."""
    rows = app.query(  # type: ignore[attr-defined]
        "SELECT m.version, (SELECT COUNT(*) FROM message_versions v WHERE v.message_id = m.id)"
        " FROM messages m WHERE m.role = 'assistant' ORDER BY m.position"
    )
    return [(int(a), int(b)) for a, b in rows]


@pytest.mark.parametrize("screen", list(SCREENS))
def test_regenerate_keeps_versions_and_the_arrows_switch_them(tmp_path: Path, tiny_model: Path, screen: str) -> None:
    size, dpi = SCREENS[screen]
    data = tmp_path / "data"
    data.mkdir()
    report = tmp_path / "widgets.json"
    with x_display(size, dpi) as x:
        app = x.start_app(data, tiny_model, env=widget_env(report))
        widgets = Widgets(x, app, report)
        app.wait_model_loaded(tiny_model)
        app.activate()
        x.type("Tell me about cats", delay_ms=20)
        x.key("Return")
        app.wait_until(lambda: app.messages("assistant") and app.messages()[-1][2] == "complete", 60, "the answer")
        # The finished answer's row moves once more after it shows (its final layout lands a moment later): a person
        # reads the answer before reaching for Regenerate.
        time.sleep(1.5)
        widgets.click("Regenerate", cls="QToolButton", text="Regenerate")
        app.wait_until(lambda: versions(app) == [(1, 1)], 60, "a second version, the first one kept")
        app.wait_until(lambda: app.messages()[-1][2] == "complete", 60, "the second answer to finish")
        widgets.wait("the 2/2 switcher", 20, text="2/2", cls="QLabel")
        x.screenshot(SHOTS / f"answer-versions-2of2-{screen}.png", app.window)

        widgets.click("‹", text="‹", cls="QToolButton")
        app.wait_until(lambda: versions(app) == [(0, 1)], 20, "the first version shown again")
        widgets.wait("the 1/2 switcher", 20, text="1/2", cls="QLabel")
        x.screenshot(SHOTS / f"answer-versions-1of2-{screen}.png", app.window)
        # The keyboard is still in the message box: what is typed next is sent from there.
        x.type("and dogs", delay_ms=20)
        x.key("Return")
        app.wait_until(lambda: ("user", "and dogs", "complete") in app.messages(), 30, "the next message sent")
        app.wait_until(lambda: app.messages()[-1][2] == "complete", 60, "its answer")
        assert len(app.messages("assistant")) == 2
        app.close()


def test_sources_show_under_the_answer_in_chinese(tmp_path: Path, tiny_model: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "settings.json").write_text(json.dumps({"language": "zh_CN"}), encoding="utf-8")
    answer = "The Kestrel Ridge gauge recorded 417 millimetres [1]."
    with ConversationStore(data / "conversations.sqlite3") as store:
        chat = store.create_conversation("Rain gauge")
        store.append_message(chat.id, "user", "What did the rain gauge record?")
        sources = [{"number": 1, "file": "/home/me/docs/field-notes.pdf", "page": 3, "text": "…", "chunk_id": 1}]
        store.append_message(chat.id, "assistant", answer, stats={"sources": sources})
    report = tmp_path / "widgets.json"
    with x_display((1024, 600)) as x:
        app = x.start_app(data, tiny_model, env=widget_env(report))
        widgets = Widgets(x, app, report)
        app.wait_model_loaded(tiny_model)
        app.activate()
        listed = widgets.wait("the conversation list", 30, name="ConversationList")
        left, top, width, _ = listed["rect"]
        x.click(left + width // 2, top + 18)  # the first (only) chat
        footer = widgets.wait("the sources under the answer", 30, contains="field-notes.pdf p. 3")
        assert str(footer["text"]).startswith("来源")  # in the UI's language, not the English stored once
        shown = widgets.find(contains="417 millimetres", cls="MarkdownView")
        assert shown is not None and "field-notes" not in str(shown["text"])  # not part of the answer's text
        x.screenshot(SHOTS / "answer-sources-zh_CN-1024x600.png", app.window)
        app.close()
