"""A repo lookup that hangs, driven like a person: the real app under Xvfb + openbox, real X keys and mouse clicks.

The person opens the model manager (Ctrl+Shift+M), clicks the "add a model by its id" field, types a repo and Enter;
the Hub does not answer. Find has become Stop: a click stops waiting. They type another repo and press Enter: it is
shown. When the first lookup's answer finally comes, nothing on the page changes.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.documents.xwidgets import Widgets, widget_env
from tests.helpers.fake_hub import FakeHub
from tests.helpers.hub_env import GATED_REPO, REPO, allow_hub_access, start_hub
from tests.helpers.xwindow import AppWindow, XDisplay, require_x, wait_until

pytestmark = pytest.mark.slow
SHOTS = Path(__file__).resolve().parents[2] / "build" / "screenshots"


@pytest.fixture
def hub(tiny_model: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeHub]:
    allow_hub_access(monkeypatch)
    server = start_hub(tiny_model)
    try:
        yield server
    finally:
        server.stop()


def info_requests(hub: FakeHub, repo: str) -> int:
    return sum(1 for r in hub.requests(method="GET") if r.path.startswith(f"/api/models/{repo}/") and r.status)


def scroll_to(x: XDisplay, app: AppWindow, widgets: Widgets, name: str) -> None:
    """Turn the mouse wheel over the page's scroll bar until the widget is inside the window, as a person scrolls to
    it (over the bar: a list under the pointer would take the wheel for itself)."""
    window = app.geometry()
    bottom = window["Y"] + window["HEIGHT"]
    widgets.wait(f"{name} to settle", name=name)
    bars = [r for r in widgets.rows() if r["class"] == "QScrollBar" and r["rect"][3] > 4 * r["rect"][2]]
    bar = max(bars, key=lambda r: r["rect"][3])["rect"]
    x.xdotool("mousemove", str(bar[0] + bar[2] // 2), str(bar[1] + bar[3] // 2))
    for _ in range(40):
        row = widgets.wait(f"{name} to settle", name=name)
        top, height = row["rect"][1], row["rect"][3]
        if window["Y"] <= top and top + height <= bottom:
            return
        x.xdotool("click", "5" if top > window["Y"] else "4")  # a wheel step where the pointer is
    raise AssertionError(f"{name} did not scroll into the window")


def test_a_person_stops_a_hanging_lookup_and_looks_up_another(hub: FakeHub, tmp_path: Path) -> None:
    require_x()
    held = hub.faults.hold_info[GATED_REPO] = threading.Event()
    report = tmp_path / "widgets.json"
    env = {"HF_ENDPOINT": hub.endpoint, "HF_HUB_OFFLINE": "0", "HF_HUB_DISABLE_TELEMETRY": "1", **widget_env(report)}
    try:
        with XDisplay() as x:
            app = x.start_app(tmp_path / "data", env=env)
            app.activate()
            widgets = Widgets(x, app, report)
            x.key("ctrl+shift+m")
            scroll_to(x, app, widgets, "RepoInput")  # the "add by id" box is below the fold: the mouse wheel
            widgets.click("the repo id field", name="RepoInput")
            x.type(GATED_REPO)
            x.key("Return")
            widgets.wait("Stop in place of Find", name="RepoFind", text="Stop")
            widgets.wait("the lookup note", name="InlineNote", text=f"Looking up {GATED_REPO}…")
            x.screenshot(SHOTS / "repo-lookup-hanging-en.png")

            widgets.click("Stop", name="RepoFind", text="Stop")
            widgets.wait("the stopped note", name="InlineNote", text=f"Stopped looking up {GATED_REPO}.")
            widgets.wait("Find again", name="RepoFind", text="Find")
            x.screenshot(SHOTS / "repo-lookup-stopped-en.png")

            widgets.click("the repo id field", name="RepoInput")
            x.key("ctrl+a")
            x.type(REPO)
            x.key("Return")
            widgets.wait("the found repo's folder", text="Download this folder", enabled=True, timeout=30)
            shown = widgets.wait("the found repo's note", name="InlineNote", contains="Pick the folder")["text"]

            held.set()  # the first lookup's answer (a 401: the repo is gated) comes now
            wait_until(lambda: info_requests(hub, GATED_REPO) >= 1, 20, "the held lookup to be answered")
            for _ in range(3):  # the window has handled its queued events since: it rewrote its widget report
                written = report.stat().st_mtime_ns
                app.wait_until(lambda w=written: report.stat().st_mtime_ns != w, 10, "a fresh widget report")
            x.screenshot(SHOTS / "repo-lookup-replaced-en.png")
            # The late answer changed nothing: the second repo's folder and note are still shown, no token request.
            assert widgets.find(name="InlineNote", text=shown) is not None
            assert widgets.find(text="Download this folder", enabled=True) is not None
            assert widgets.find(contains="licence") is None
    finally:
        held.set()
