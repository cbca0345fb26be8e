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
        # Ctrl+Q quits (issue 9.10): the window closes properly and the process ends by itself.
        app.wait_until(lambda: app.messages()[-1][2] == "complete", 30, "the second reply")
        x.key("ctrl+q")
        assert app.proc.wait(timeout=30) == 0


def _on_screen(geometry: dict[str, int], size: tuple[int, int]) -> bool:
    return (
        geometry["X"] >= 0
        and geometry["Y"] >= 0
        and geometry["X"] + geometry["WIDTH"] <= size[0]
        and geometry["Y"] + geometry["HEIGHT"] <= size[1]
    )


@pytest.mark.parametrize("scale", ["1", "1.5"])
def test_the_window_fits_a_small_screen(tmp_path: Path, scale: str) -> None:
    """Issue 9.5: a fixed 1180×780 window cut the status bar off on 1366×768 and the composer at 150 %."""
    small = (1366, 768)
    with x_display(size=small) as x:
        app = x.start_app(tmp_path / "data", env={"QT_SCALE_FACTOR": scale})
        app.activate()
        geometry = app.geometry()
        x.screenshot(tmp_path / f"small-screen-{scale}.png")
        assert _on_screen(geometry, small), geometry


def test_a_window_saved_on_a_bigger_screen_comes_back_on_this_one(tmp_path: Path) -> None:
    """Issue 9.5: geometry saved where no screen is now (a bigger monitor) is not restored as is."""
    data = tmp_path / "data"
    with x_display(size=(2560, 1440)) as x:
        app = x.start_app(data)
        app.activate()
        x.xdotool("windowmove", "--sync", app.window, "1300", "600")
        app.wait_until(lambda: app.geometry()["X"] >= 1200, 10, "the window to move")
        assert app.close() == 0
    assert (data / "window.ini").exists()
    small = (1366, 768)
    with x_display(size=small) as x:
        app = x.start_app(data)
        app.activate()
        geometry = app.geometry()
        x.screenshot(tmp_path / "restored-on-small-screen.png")
        assert _on_screen(geometry, small), geometry
