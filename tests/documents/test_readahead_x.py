"""Documents read-ahead in the real window (issue 19): the real app under Xvfb + openbox, a question typed with real
X key events at a person's speed (~7 keys a second) into a chat with "Use my documents" on, Enter half a second after
the last key. The passages the question finds were read while it was typed: the answer's stored stats say so
(``passages_read_ahead``, and ``reused_tokens`` covering the passages), and the answer cites its source — and is the
tiny model's exact reply to the prompt as sent.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from localmind.documents.prompting import QUESTION_HEADER, with_instruction
from localmind.engine.local import LocalEngine
from localmind.engine.types import ChatMessage, LoadOptions
from tests.helpers.app_window import tiny_reply
from tests.helpers.xwindow import REPO, XDisplay, require_x

pytestmark = [pytest.mark.slow, pytest.mark.gui]
QUESTION = "What did the Kestrel Ridge rain gauge record?"
SHOTS = REPO / "build" / "screenshots"


def test_a_typed_question_s_passages_are_read_before_enter(tmp_path: Path, roomy_model: Path, corpus: Path) -> None:
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
        x.key("ctrl+shift+d")  # "Use my documents" on
        time.sleep(0.5)
        x.type(QUESTION, delay_ms=286)  # 7 keys a second (xdotool waits half the delay per key: see XDisplay.type)
        time.sleep(0.5)
        x.key("Return")
        app.wait_until(lambda: [m for m in app.messages("assistant") if m[2] == "complete"], 90, "the answer to finish")
        SHOTS.mkdir(parents=True, exist_ok=True)
        x.screenshot(SHOTS / "documents-x-read-ahead.png")
        (raw_question, _), (raw_answer, reply) = app.query("SELECT stats, content FROM messages ORDER BY position")
        ((system_prompt,),) = app.query("SELECT system_prompt FROM conversations")
    question, answer = json.loads(raw_question), json.loads(raw_answer)
    turn = question["documents_prompt"]
    assert "417 millimetres" in turn and turn.endswith(f"{QUESTION_HEADER} {QUESTION}")
    assert [s["file"].rsplit("/", 1)[-1] for s in answer["sources"]] == ["field-notes.pdf"]  # cited under the answer
    # Exactly the reply to the prompt as sent (the system part: the app's, with the documents' instruction).
    assert reply == tiny_reply(roomy_model, [("system", with_instruction(system_prompt)), ("user", turn)])

    engine = LocalEngine()
    engine.load(str(roomy_model), LoadOptions(device="cpu", context_budget=8192))
    head = engine.count_tokens([ChatMessage("user", "")])
    passages = engine.count_tokens([ChatMessage("user", turn[: turn.index(QUESTION_HEADER)])]) - head
    engine.close()
    # Read before Enter: the engine reused the passages (and the system part), and the read-ahead had them in place.
    assert answer["passages_read_ahead"] == 1
    assert answer["reused_tokens"] >= passages > 100
    assert answer["prompt_tokens"] - answer["reused_tokens"] <= 12
