"""Type-ahead with real X key events into the real app under Xvfb + openbox (issue 12).

A person types a message word by word with short pauses; by the time they press Enter the engine child has read
the message, so only its last words and the reply header are read after Enter. The reply is the tiny model's
exact reply for the message. A question mark at the end starts the whole read at once (the message and the reply
header, keeping the model's prediction after it): Enter after it reads nothing at all.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from tests.helpers.app_hooks import ENV_ENABLE, ENV_TRACE
from tests.helpers.app_window import tiny_reply
from tests.helpers.xwindow import x_display

pytestmark = pytest.mark.slow

MESSAGE = "Tell me a story about a cat. The quick brown fox jumps over the lazy dog. What is 2 + 2?"


def test_a_message_typed_with_real_keys_is_read_while_typing(tmp_path: Path, tiny_model: Path) -> None:
    with x_display() as x:
        app = x.start_app(tmp_path / "data", tiny_model)
        app.wait_model_loaded(tiny_model)
        app.activate()
        words = MESSAGE.split(" ")
        for start in range(0, len(words), 4):  # a few words, then a pause (over the 300 ms type-ahead waits for)
            x.type(" ".join(words[start : start + 4]) + (" " if start + 4 < len(words) else ""), delay_ms=30)
            time.sleep(0.6)
        x.key("Return")
        app.wait_until(
            lambda: app.messages("assistant") and app.messages()[-1][2] == "complete", 30, "the reply to finish"
        )
        x.screenshot(tmp_path / "typeahead.png")
        assert app.messages("user") == [("user", MESSAGE, "complete")]
        assert app.messages("assistant")[0][1] == tiny_reply(tiny_model, [("user", MESSAGE)])
        ((raw,),) = app.query("SELECT stats FROM messages WHERE role = 'assistant'")
        stats = json.loads(raw)
        assert stats["reused_tokens"] > 20
        assert stats["prompt_tokens"] - stats["reused_tokens"] <= 12


def _prefilled(output: str) -> list[int]:
    return [int(line.split()[-1]) for line in output.splitlines() if line.split()[:1] == ["prefilled"]]


def test_after_a_question_mark_enter_reads_nothing(tmp_path: Path, tiny_model: Path) -> None:
    question = "Why is the sky blue?"
    with x_display() as x:
        app = x.start_app(tmp_path / "data", tiny_model, env={ENV_ENABLE: "1", ENV_TRACE: "1"})
        app.wait_model_loaded(tiny_model)
        app.activate()
        x.type(question, delay_ms=40)
        # The engine answers each read with the tokens it then holds: wait until the reads have settled.
        reads: list[int] = []
        deadline = time.monotonic() + 30
        while not reads or reads != _prefilled(app.output()):
            assert time.monotonic() < deadline, "type-ahead's reads did not settle"
            reads = _prefilled(app.output())
            time.sleep(0.5)
        x.key("Return")
        app.wait_until(
            lambda: app.messages("assistant") and app.messages()[-1][2] == "complete", 30, "the reply to finish"
        )
        assert app.messages("user") == [("user", question, "complete")]
        assert app.messages("assistant")[0][1] == tiny_reply(tiny_model, [("user", question)])
        ((raw,),) = app.query("SELECT stats FROM messages WHERE role = 'assistant'")
        stats = json.loads(raw)
        # Enter read nothing: the whole prompt was what type-ahead last read, and its first token came from the
        # prediction kept after it (the reply above is still exactly a fresh prefill's).
        assert stats["prompt_tokens"] == stats["reused_tokens"] == reads[-1]
