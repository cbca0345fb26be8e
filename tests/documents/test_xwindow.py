"""The whole flow as a person does it: documents added in the terminal, then the real window under Xvfb driven with
real X key events (xdotool, through tests/helpers/xwindow.py): "Use my documents" on (Ctrl+Shift+D), a question
typed, and the answer read from the store with its cited file and page.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.xwindow import REPO, XDisplay, require_x

pytestmark = [pytest.mark.slow, pytest.mark.gui]
QUESTION = "What did the Kestrel Ridge rain gauge record?"


def test_typed_question_gets_the_cited_page(tmp_path: Path, roomy_model: Path, corpus: Path) -> None:
    require_x()
    data = tmp_path / "data"
    added = subprocess.run(
        [sys.executable, "-m", "localmind", "--data-dir", str(data), "docs", "add", str(corpus), "--json"],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert added.returncode == 0, added.stderr
    with XDisplay() as x:
        app = x.start_app(data, roomy_model)
        app.wait_model_loaded(roomy_model)
        app.activate()
        x.key("ctrl+shift+d")  # Use my documents
        x.type(QUESTION)
        x.key("Return")
        app.wait_until(lambda: [m for m in app.messages("assistant") if m[2] == "complete"], 60, "the answer")
        (_, question, _), (_, answer, _) = app.messages()
        assert question == QUESTION
        assert "field-notes.pdf p. 3" in answer and "localmind-source:" in answer
        x.screenshot(REPO / "build" / "screenshots" / "documents-xwindow.png")
