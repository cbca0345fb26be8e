"""Type-ahead with real X key events into the real app under Xvfb + openbox (issue 12).

A person types a message word by word with short pauses; by the time they press Enter the engine child has read
the message, so only its last words and the reply header are read after Enter. The reply is the tiny model's
exact reply for the message.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

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
