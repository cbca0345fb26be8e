"""The documents feature as a person uses it: the real app under Xvfb + openbox, real X key events and mouse clicks
(xdotool, through tests/helpers/xwindow.py; where to click comes from the app's widget report, tests/documents/
xwidgets.py). One app start covers:

- the Documents page's "Get search by meaning" button → the model manager downloads it from the fake hub on
  loopback → Documents searches by meaning (a vector for every passage indexed before) and says so; the model
  manager shows the memory Documents' first run of it measured;
- "Use my documents" (Ctrl+Shift+D), a typed question, the answer stored with its cited file and page;
- the context gauge: its label counts the passages' tokens, and the documents' colour is on screen inside the gauge;
- the cited source clicked in the answer → the passage dialog → "Open at page 3" → the system's default PDF viewer (a
  stand-in program registered through freedesktop mimeapps.list/.desktop files in the test's XDG folders) is started
  with the page and the file.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.documents.embedding_repo import E5_ID, e5_hub
from tests.documents.test_open_at import fake_viewer, xdg_env
from tests.documents.xwidgets import Widgets, colour_share, widget_env
from tests.helpers.fake_hub import FakeHub
from tests.helpers.xwindow import REPO, XDisplay, require_x

pytestmark = [pytest.mark.slow, pytest.mark.gui]
QUESTION = "What did the Kestrel Ridge rain gauge record?"
SHOTS = REPO / "build" / "screenshots"
DOCUMENTS_COLOURS = ["#0e9384", "#2ed3b7"]  # ui/context_gauge.py, light and dark theme


@pytest.fixture
def hub(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeHub]:
    with e5_hub(tmp_path_factory, monkeypatch) as server:
        yield server


def counts(data: Path) -> tuple[int, int]:
    """(passages, vectors of the catalog's embedding model) in the app's documents index."""
    path = data / "documents.sqlite3"
    if not path.exists():
        return 0, 0
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
    try:
        chunks = int(db.execute("SELECT count(*) FROM chunks").fetchone()[0])
        vectors = int(db.execute("SELECT count(*) FROM vectors WHERE model = ?", (E5_ID,)).fetchone()[0])
        return chunks, vectors
    except sqlite3.OperationalError:
        return 0, 0
    finally:
        db.close()


def test_a_person_gets_the_embedding_model_asks_and_opens_the_cited_page(
    tmp_path: Path, roomy_model: Path, corpus: Path, hub: FakeHub
) -> None:
    require_x()
    data = tmp_path / "data"
    added = subprocess.run(
        [sys.executable, "-m", "localmind", "--data-dir", str(data), "docs", "add", str(corpus), "--json"],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert added.returncode == 0, added.stderr
    passages, vectors = counts(data)
    assert passages > 0 and vectors == 0  # keyword search only so far

    record = tmp_path / "viewer-args.txt"
    viewer = fake_viewer(tmp_path / "bin", record)
    xdg = xdg_env(
        tmp_path / "xdg", {"org.gnome.Evince.desktop": f"{viewer} %U"}, {"mimeapps.list": "org.gnome.Evince.desktop"}
    )
    xdg.pop("HOME")  # the app's own folders come from --data-dir; the PDF viewer from the XDG folders
    report = tmp_path / "widgets.json"
    env = {
        "HF_ENDPOINT": hub.endpoint, "HF_HUB_OFFLINE": "0", "HF_HUB_DISABLE_TELEMETRY": "1",
        **xdg, **widget_env(report),
    }  # fmt: skip
    with XDisplay() as x:
        app = x.start_app(data, roomy_model, env=env)
        ui = Widgets(x, app, report)
        app.wait_model_loaded(roomy_model)
        app.activate()

        # The Documents page says keyword search only and offers the embedding model; its button downloads it.
        ui.click("the sidebar's Documents button", text="Documents", cls="QPushButton")
        ui.wait("the words-only note", contains="Searching by words only")
        x.screenshot(SHOTS / "documents-x-keyword-only.png")
        ui.click("the download button", text="Get search by meaning")
        app.wait_until(lambda: counts(data) == (passages, passages), 120, "a vector for every passage indexed before")
        ui.wait("the model manager's message", contains="Documents now uses it")
        x.screenshot(SHOTS / "documents-x-manager.png")
        served = {p for p, n in hub.bytes_served.items() if n and p.startswith("onnx/")}
        assert served == {"onnx/model_quantized.onnx"}  # the catalog's 8-bit variant only
        ui.click("the sidebar's Documents button", text="Documents", cls="QPushButton")
        ui.wait("the search-by-meaning note", contains="Search by meaning is on")
        assert ui.find("Get search by meaning") is None  # gone once installed
        ui.click(
            "the Details button", text="▸ Details", cls="QToolButton"
        )  # the embedding model's name is one click away
        ui.wait("the embedding model's name", contains=f"embedding model that runs on this computer: {E5_ID}")
        x.screenshot(SHOTS / "documents-x-meaning.png")
        # Back in the model manager: its memory is what Documents' first run of it measured.
        x.key("ctrl+shift+m")
        ui.wait("the embedding model's memory", contains="while Documents uses it")
        x.screenshot(SHOTS / "documents-x-manager-memory.png")

        # A question typed in a new chat with "Use my documents" on: the answer cites the planted page.
        x.key("ctrl+n")
        x.key("ctrl+shift+d")
        ui.wait("the switch on", contains="✓ Use my documents")
        x.type(QUESTION)
        x.key("Return")
        app.wait_until(lambda: [m for m in app.messages("assistant") if m[2] == "complete"], 90, "the answer")
        (_, question, _), (_, answer, _) = app.messages()
        assert question == QUESTION
        # The sources are the answer's metadata (shown under it, in the UI's language), not part of its text.
        assert "localmind-source:" not in answer and "Sources:" not in answer
        (stats,) = [json.loads(r[0]) for r in app.query("SELECT stats FROM messages WHERE role = 'assistant'")]
        assert any(s["file"].endswith("field-notes.pdf") and s["page"] == 3 for s in stats["sources"]), stats["sources"]

        # The gauge: the label counts the passages, and the documents' colour fills part of the bar on screen.
        label = ui.wait("the gauge's label", contains="from documents")
        used, documents = (int(n.replace(",", "")) for n in (label["text"].split(" /")[0], label["text"].split("(")[1].split(" ")[0]))  # fmt: skip
        assert 0 < documents < used
        gauge = ui.wait("the gauge", cls="ContextGauge")
        shot = x.screenshot(SHOTS / "documents-x-answer.png")
        assert colour_share(shot, gauge["rect"], DOCUMENTS_COLOURS) > 0.02, gauge

        # The cited source: clicked in the answer, its passage shows; "Open at page 3" starts the default viewer.
        ui.click_link("localmind-source:", text="field-notes.pdf p. 3")
        button = ui.wait("the dialog's open button", text="Open at page 3")
        assert button["window"] == "field-notes.pdf p. 3"
        x.screenshot(SHOTS / "documents-x-source.png")
        ui.click("the open button", text="Open at page 3")
        app.wait_until(record.exists, 30, "the PDF viewer to start")
        assert record.read_text(encoding="utf-8").splitlines() == ["--page-index=3", str(corpus / "field-notes.pdf")]
