"""Typing into the real window while the model still loads (issue 12: first paint with the model loading behind it).

The model's load is held back by a test switch (``LOCALMIND_TEST_LOAD_GATE``: the load waits until a file exists)
so the test, not the machine's speed, decides when it ends. Real X key events: the words typed while it loads stay
in the message box. Enter meanwhile queues the message: it is sent, exactly as typed, as soon as the model is ready.
A key typed after that Enter holds it back (the message is not final); once the model is ready the engine reads the
chat and the typed message ahead without another key press (type-ahead), and the next Enter sends exactly what was
typed — no line break from the early Enter.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from tests.helpers.app_hooks import ENV_ENABLE, ENV_LOAD_GATE, ENV_TRACE
from tests.helpers.app_window import tiny_reply
from tests.helpers.xwindow import x_display

pytestmark = pytest.mark.slow

MESSAGE = "While the model loads I type this question about cats and dogs, and then I wait for it."


def _traced(output: str, what: str) -> list[str]:
    return [line for line in output.splitlines() if line.split()[:1] == [what]]


def test_text_typed_while_the_model_loads_is_kept_read_ahead_and_sent(tmp_path: Path, tiny_model: Path) -> None:
    gate = tmp_path / "model-may-load"
    env = {ENV_ENABLE: "1", ENV_TRACE: "1", ENV_LOAD_GATE: str(gate)}
    with x_display() as x:
        app = x.start_app(tmp_path / "data", tiny_model, env=env)  # returns once the window is on screen
        app.wait_until(lambda: _traced(app.output(), "painted"), 30, "the window's first paint")
        assert not _traced(app.output(), "loaded")  # painted with the model still loading
        app.activate()
        x.type(MESSAGE, delay_ms=15)
        x.key("Return")  # queued: it would be sent once the model is ready…
        x.type(" Why?", delay_ms=15)  # …but the user goes on writing, so it waits for the next Enter
        assert not _traced(app.output(), "loaded")

        gate.touch()  # the model may load now
        app.wait_model_loaded(tiny_model)
        # Without another key press, the engine reads the chat and the kept message ahead; nothing was sent.
        app.wait_until(lambda: _traced(app.output(), "prefilled"), 60, "type-ahead of the kept message")
        assert app.messages() == []
        app.activate()
        x.key("Return")
        app.wait_until(
            lambda: app.messages("assistant") and app.messages()[-1][2] == "complete", 60, "the reply to finish"
        )
        ((_role, sent, status),) = app.messages("user")
        assert sent == MESSAGE + " Why?" and status == "complete"  # nothing added by the early Enter
        assert app.messages("assistant")[0][1] == tiny_reply(tiny_model, [("user", sent)])
        ((raw,),) = app.query("SELECT stats FROM messages WHERE role = 'assistant'")
        stats = json.loads(raw)
        assert stats["reused_tokens"] > 20  # read while the user was not typing: after the load, before Enter
        # Left for after Enter: the last words (a margin kept because a word may still change), the end of the
        # user's turn and the reply header.
        assert stats["prompt_tokens"] - stats["reused_tokens"] <= 16


def test_enter_while_the_model_loads_sends_the_message_once_it_is_ready(tmp_path: Path, tiny_model: Path) -> None:
    gate = tmp_path / "model-may-load"
    env = {ENV_ENABLE: "1", ENV_TRACE: "1", ENV_LOAD_GATE: str(gate)}
    with x_display() as x:
        app = x.start_app(tmp_path / "data", tiny_model, env=env)
        app.wait_until(lambda: _traced(app.output(), "painted"), 30, "the window's first paint")
        app.activate()
        x.type(MESSAGE, delay_ms=15)
        x.key("Return")  # the model is still loading: the message is queued, the window says so
        time.sleep(0.5)  # for the screenshot only: let the notice paint
        x.screenshot(tmp_path / "queued-while-loading.png", app.window)
        assert app.messages() == [] and not _traced(app.output(), "loaded")

        gate.touch()
        # No other key: the queued message goes as soon as the model is ready, exactly as it was typed.
        app.wait_until(
            lambda: app.messages("assistant") and app.messages()[-1][2] == "complete", 60, "the queued message's reply"
        )
        ((_role, sent, status),) = app.messages("user")
        assert sent == MESSAGE and status == "complete"
        assert app.messages("assistant")[0][1] == tiny_reply(tiny_model, [("user", MESSAGE)])
