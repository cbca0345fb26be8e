"""The context gauge shows the space document passages take, apart from the conversation's (issue 13)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from localmind.documents.chat import PROMPT_KEY
from tests.documents.test_gui import drop, wait_idle
from tests.helpers.app_window import Launch, launch_fixture, send_and_wait

pytestmark = pytest.mark.gui
SHOTS = Path(__file__).resolve().parents[2] / "build" / "screenshots"


@pytest.fixture
def launch(qtbot: Any, roomy_model: Path) -> Iterator[Launch]:
    yield from launch_fixture(qtbot, roomy_model)


def test_the_gauge_shows_the_passages_share(qtbot: Any, launch: Launch, corpus: Path) -> None:
    from tokenizers import Tokenizer

    mind = launch()
    feature = mind.documents
    status = mind.window.status
    drop(feature.page, [corpus])
    wait_idle(qtbot, feature)
    send_and_wait(qtbot, mind, "Say hello.")  # no documents yet: the gauge is all conversation
    qtbot.waitUntil(lambda: status._context[0] > 0, timeout=30000)
    assert status.gauge.documents == 0 and "documents" not in status.gauge_label.text()
    assert status.gauge.documents_width() == 0

    feature.switch.setChecked(True)
    send_and_wait(qtbot, mind, "What did the Kestrel Ridge rain gauge record?")
    question = mind.store.messages(mind.session.conversation_id)[-2]
    prompt = question.stats[PROMPT_KEY]
    tokenizer = Tokenizer.from_file(str(Path(mind.session.model.model_dir) / "tokenizer.json"))
    passages = len(tokenizer.encode(prompt).ids) - len(tokenizer.encode(question.content).ids)
    qtbot.waitUntil(lambda: status.gauge.documents > 0, timeout=30000)
    used, budget = status._context
    # The passages (and the instruction that comes with them) are counted with the model's own tokenizer.
    assert passages <= status.gauge.documents < used
    assert f"({status.gauge.documents:,} from documents)" in status.gauge_label.text()
    assert f"{used:,} / {budget:,} tokens" in status.gauge_label.text()
    assert "passages from your documents" in status.gauge.toolTip()
    full = status.gauge.contentsRect().width() - 2
    assert 0 < status.gauge.documents_width() < full * used / budget
    SHOTS.mkdir(parents=True, exist_ok=True)
    mind.window.resize(1200, mind.window.height())  # wide enough for the whole label in the screenshot
    qtbot.waitUntil(lambda: status.gauge_label.width() >= status.gauge_label.sizeHint().width(), timeout=10000)
    status.grab().save(str(SHOTS / "documents-gauge.png"))
    mind.window.grab().save(str(SHOTS / "documents-gauge-window.png"))

    # A new chat without documents: the documents' share is gone again.
    feature.switch.setChecked(False)
    mind.window.new_chat_button.click() if hasattr(mind.window, "new_chat_button") else mind.session.new_chat()
    qtbot.waitUntil(lambda: status.gauge.documents == 0, timeout=30000)
    assert "documents" not in status.gauge_label.text()
