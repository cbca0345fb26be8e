"""The Documents page fits the window at 1024×600 and at 150 % (issue 21): the real app under Xvfb + openbox, the
sidebar's Documents button clicked with the real mouse. At 150 % its one toolbar row made the page wider than the
window: it scrolled sideways, its text was cut mid-word and Re-index/Remove were off to the right."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.documents.xwidgets import Widgets, widget_env
from tests.helpers.xwindow import REPO, x_display

pytestmark = [pytest.mark.slow, pytest.mark.gui]
SHOTS = REPO / "build" / "screenshots"


@pytest.mark.timeout(300)  # two Qt starts under Xvfb on a loaded machine
@pytest.mark.parametrize(("size", "scale"), [((1024, 600), "1"), ((1366, 768), "1.5")])
def test_the_documents_page_fits_the_window(tmp_path: Path, size: tuple[int, int], scale: str) -> None:
    report = tmp_path / "widgets.json"
    factor = float(scale)
    with x_display(size=size) as x:
        app = x.start_app(tmp_path / "data", env={**widget_env(report), "QT_SCALE_FACTOR": scale})
        app.activate()
        widgets = Widgets(x, app, report)
        button = widgets.wait("the sidebar's Documents button", text="Documents", cls="QPushButton")
        left, top, width, height = button["rect"]  # the report is in Qt's scaled pixels; X clicks in the screen's
        x.click(int((left + width / 2) * factor), int((top + height / 2) * factor))
        widgets.wait("the Remove button", text="Remove", cls="QPushButton")
        x.screenshot(SHOTS / f"documents-page-{scale}.png")
        geometry = app.geometry()
        right = (geometry["X"] + geometry["WIDTH"]) / factor
        shown = [
            r for r in widgets.rows() if r["class"] in ("QPushButton", "QLabel", "QComboBox") and r["rect"][0] > 250
        ]
        assert any(r.get("text") == "Re-index" for r in shown)
        for row in shown:
            x0, _, w, _ = row["rect"]
            assert x0 + w <= right, (row.get("text"), row["rect"], right)
        assert app.close() == 0
