"""The Models page fits the window at 1024×600 and at 150 % (issue 21): the real app under Xvfb + openbox, opened with
real keys (Ctrl+Shift+M), scrolled with the real mouse wheel; where the buttons are comes from the app's widget report.

At 150 % one row of six buttons under "Installed models" made the page wider than the window: a horizontal scroll
bar, and the Search and Download buttons cut at the right edge. The catalog's names get their room (checked in
tests/gui/test_model_manager.py; the screenshots show it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.documents.xwidgets import Widgets, widget_env
from tests.helpers.xwindow import REPO, x_display

pytestmark = [pytest.mark.slow, pytest.mark.gui]
SHOTS = REPO / "build" / "screenshots"


@pytest.mark.timeout(300)  # two Qt starts under Xvfb on a loaded machine
@pytest.mark.parametrize(("size", "scale"), [((1024, 600), "1"), ((1366, 768), "1.5")])
def test_the_models_page_fits_the_window(tmp_path: Path, size: tuple[int, int], scale: str) -> None:
    report = tmp_path / "widgets.json"
    with x_display(size=size) as x:
        app = x.start_app(tmp_path / "data", env={**widget_env(report), "QT_SCALE_FACTOR": scale})
        app.activate()
        widgets = Widgets(x, app, report)
        x.key("ctrl+shift+m")
        widgets.wait("the Search button", text="Search", cls="QPushButton")
        x.screenshot(SHOTS / f"models-page-{scale}.png")
        geometry = app.geometry()
        right = (geometry["X"] + geometry["WIDTH"]) / float(scale)  # the report is in Qt's (scaled) pixels
        for row in widgets.rows():
            if row["class"] == "QPushButton" and row["rect"][1] < geometry["HEIGHT"] / float(scale):
                x0, _, width, _ = row["rect"]
                assert x0 + width <= right, (row["text"], row["rect"], right)
        middle = (geometry["X"] + geometry["WIDTH"] // 2, geometry["Y"] + geometry["HEIGHT"] * 2 // 3)
        for _ in range(12):  # down to the catalog, with the wheel over the page
            x.click(*middle, button=5)
        widgets.wait("the catalog's Model page button", text="Model page", cls="QPushButton")
        x.screenshot(SHOTS / f"models-catalog-{scale}.png")
        assert app.close() == 0
