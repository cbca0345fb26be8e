"""Start the real app for a GUI test, type like a user, and know what the tiny model will answer."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QInputMethodEvent, QPalette
from PySide6.QtWidgets import QApplication, QWidget

from localmind.app import LocalMind, create_app
from localmind.engine.fake import FakeEngine
from localmind.settings import Settings
from tests.helpers.tiny_model import expected_reply

LONG_REPLY = "Counting slowly: " + " ".join(str(i) for i in range(200))


def greedy_settings() -> Settings:
    settings = Settings(theme="light", language="en")
    settings.generation.temperature = 0.0
    return settings


def tiny_reply(tiny_model: Path, turns: list[tuple[str, str]]) -> str:
    """What the tiny model answers (greedily) after these (role, text) turns, from its tokenizer alone."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(tiny_model / "tokenizer.json"))
    prompt = "".join(f"<|im_start|>{role}\n{text}<|im_end|>\n" for role, text in turns) + "<|im_start|>assistant\n"
    return expected_reply(tokenizer.encode(prompt).ids)


Launch = Callable[..., LocalMind]


def launch_fixture(qtbot: Any, tiny_model: Path) -> Iterator[Launch]:
    """For a ``launch`` fixture: start the app like ``localmind --model DIR`` (the tiny model by default) and wait until the model is ready."""
    started: list[LocalMind] = []

    def start(
        model: Path | str | None = tiny_model,
        *,
        engine: Callable[[], Any] | None = None,
        settings: Settings | None = None,
        load_last_model: bool = False,
        wait: bool = True,
    ) -> LocalMind:
        mind = create_app(
            str(model) if model else None,
            engine_factory=engine,
            settings=settings if settings is not None else greedy_settings(),
            load_last_model=load_last_model,
        )
        started.append(mind)
        mind.window.show()
        qtbot.waitExposed(mind.window)
        if wait and (model or load_last_model):
            qtbot.waitUntil(lambda: mind.session.model is not None, timeout=15000)
        return mind

    app = QApplication.instance()
    assert isinstance(app, QApplication)
    look = (app.style().name(), QPalette(app.palette()), QFont(app.font()))
    yield start
    for mind in started:
        mind.window.close()
        mind.window.deleteLater()
    # The app sets a style, palette, font and maybe a translator on the shared QApplication: leave it as found.
    if started:
        started[-1].translations.apply("en")
    app.setStyle(look[0])
    app.setPalette(look[1])
    app.setFont(look[2])


def fake(reply: str = LONG_REPLY, delay: float = 0.0, **kwargs: Any) -> Callable[[], FakeEngine]:
    return lambda: FakeEngine(replies=[reply], token_delay_s=delay, **kwargs)


def type_text(qtbot: Any, widget: QWidget, text: str) -> None:
    """Type like a user; text beyond ASCII comes as an input method commit (as from a CJK IME)."""
    if text.isascii():
        qtbot.keyClicks(widget, text)
        return
    event = QInputMethodEvent()
    event.setCommitString(text)
    QApplication.sendEvent(widget, event)


def type_and_send(qtbot: Any, mind: LocalMind, text: str) -> None:
    box = mind.window.composer.input
    box.setFocus()
    type_text(qtbot, box, text)
    qtbot.keyClick(box, Qt.Key.Key_Return)


def send_and_wait(qtbot: Any, mind: LocalMind, text: str) -> None:
    with qtbot.waitSignal(mind.session.turn_finished, timeout=15000):
        type_and_send(qtbot, mind, text)


def stored(mind: LocalMind) -> list[tuple[str, str, str]]:
    """(role, content, status) of the open conversation's messages, as the store has them."""
    assert mind.session.conversation_id is not None
    return [(m.role, m.content, m.status) for m in mind.store.messages(mind.session.conversation_id)]
