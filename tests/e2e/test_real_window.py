"""The real app, typed into with real X key events under Xvfb + openbox (tests/helpers/xwindow.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.xwindow import x_display

pytestmark = pytest.mark.slow


def test_every_typed_word_reaches_the_first_message(tmp_path: Path, tiny_model: Path) -> None:
    """Issue 9.1: typed into a fresh window, "abc def ghi" was stored as "def ghi"."""
    with x_display() as x:
        app = x.start_app(tmp_path / "data", tiny_model)
        app.wait_model_loaded(tiny_model)
        app.activate()
        x.type("abc def ghi")
        x.key("Return")
        app.wait_until(lambda: app.messages("user"), 20, "the message to be stored")
        x.screenshot(tmp_path / "first-message.png")
        assert [content for _, content, _ in app.messages("user")] == ["abc def ghi"]
        # A second message in the same window arrives whole too.
        app.wait_until(lambda: app.messages("assistant") and app.messages()[-1][2] == "complete", 30, "the reply")
        x.type("jkl mno")
        x.key("Return")
        app.wait_until(lambda: len(app.messages("user")) == 2, 20, "the second message")
        assert [content for _, content, _ in app.messages("user")] == ["abc def ghi", "jkl mno"]
