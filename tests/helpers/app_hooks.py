"""The end-to-end tests' switches (tests/e2e/test_kill_durability.py and others), and the entry point that installs them.

``python -m tests.helpers.hooked_app ARGS`` is ``localmind ARGS`` with these switches read from the environment:
they make the window chat on its own with a slowed model and report what it committed and streamed, so a test can
kill it mid-reply and check what survived. They live here, outside the shipped package: ``localmind`` itself knows
nothing of them, so nothing that can set a user's environment can make it write every conversation to a file
(``LOCALMIND_TEST_REPORT``) or send messages on its own (``LOCALMIND_TEST_AUTOCHAT``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QTimer

from localmind.engine.types import (
    ChatEngine,
    ChatMessage,
    GenerationOptions,
    LoadInfo,
    LoadOptions,
    StreamEvent,
    TextDelta,
)

if TYPE_CHECKING:
    from localmind.app import LocalMind

ENV_ENABLE = "LOCALMIND_TEST_HOOKS"  # "1": start through the entry point below (app_command); the serve trace too
ENV_AUTOCHAT = "LOCALMIND_TEST_AUTOCHAT"  # send this prompt, and again whenever a reply ends
ENV_TOKEN_DELAY = "LOCALMIND_TEST_TOKEN_DELAY"  # seconds to wait before each piece of text (a slow model)
ENV_TRACE = "LOCALMIND_TEST_TRACE"  # print what was sent and streamed, with times, on stdout
ENV_REPORT = "LOCALMIND_TEST_REPORT"  # write what the window shows to this JSON file once started, then quit
ENV_LOAD_GATE = "LOCALMIND_TEST_LOAD_GATE"  # a model load waits until this file exists (a model slow to load)
ENV_WIDGETS = "LOCALMIND_TEST_WIDGETS"  # write what is on screen (visible widgets, text, place) to this JSON file


def app_command(env: Mapping[str, str] | None = None) -> list[str]:
    """The command that starts the app: the tests' entry point when ``env`` asks for the switches, else ``localmind``.

    The entry point is imported as ``tests.helpers.hooked_app``: the environment's PYTHONPATH has the checkout.
    """
    if env is not None and env.get(ENV_ENABLE) == "1":
        return [sys.executable, "-m", "tests.helpers.hooked_app"]
    return [sys.executable, "-m", "localmind"]


class SlowedEngine:
    """Wraps an engine so each piece of text comes ``delay_s`` later (a model slow enough to kill mid-reply), and
    each load waits until ``load_gate`` exists (a model that loads exactly as long as a test types into the window)."""

    def __init__(self, inner: ChatEngine, delay_s: float, load_gate: str | None = None) -> None:
        self.inner = inner
        self.delay_s = delay_s
        self.load_gate = Path(load_gate) if load_gate else None

    def __getattr__(self, name: str) -> object:
        # Type-ahead (prefill, typeahead_epoch, preempt_prefill) goes straight to the engine.
        if name in ("prefill", "typeahead_epoch", "preempt_prefill"):
            return getattr(self.inner, name)
        raise AttributeError(name)

    def load(self, model_dir: str, options: LoadOptions) -> LoadInfo:
        deadline = time.monotonic() + 300
        while self.load_gate is not None and not self.load_gate.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        return self.inner.load(model_dir, options)

    def unload(self) -> None:
        self.inner.unload()

    def cancel(self) -> None:
        self.inner.cancel()

    def count_tokens(self, messages: Sequence[ChatMessage]) -> int:
        return self.inner.count_tokens(messages)

    def close(self) -> None:
        self.inner.close()

    def generate(self, messages: Sequence[ChatMessage], options: GenerationOptions) -> Iterator[StreamEvent]:
        for event in self.inner.generate(messages, options):
            if isinstance(event, TextDelta) and self.delay_s:
                time.sleep(self.delay_s)
            yield event


def slowed_engine_factory() -> Callable[[], ChatEngine] | None:
    """The engine process behind a delay when ``ENV_TOKEN_DELAY`` or ``ENV_LOAD_GATE`` is set, else ``None``."""
    delay, gate = os.environ.get(ENV_TOKEN_DELAY), os.environ.get(ENV_LOAD_GATE)
    if not (delay or gate):
        return None

    def build() -> ChatEngine:
        from localmind.engine.process import EngineProcess

        return SlowedEngine(EngineProcess(), float(delay or 0), gate)

    return build


def install(mind: LocalMind) -> None:
    """Connect the switches set in the environment to the app, before its window shows."""
    prompt = os.environ.get(ENV_AUTOCHAT)
    trace = bool(os.environ.get(ENV_TRACE))
    report = os.environ.get(ENV_REPORT)
    session = mind.session

    def emit(*fields: object) -> None:
        print(*fields, flush=True)

    if trace:
        session.message_added.connect(lambda m: emit("message", f"{time.time():.4f}", m.id, m.role, len(m.content)))

        def on_delta(_text: str) -> None:
            progress = session.turn_progress
            if progress is not None:
                emit("delta", f"{time.time():.4f}", progress[0], progress[1])

        session.reply_delta.connect(on_delta)
        session.turn_finished.connect(lambda _stats: emit("finished", f"{time.time():.4f}"))
        mind.service.loaded.connect(lambda _info: emit("loaded", f"{time.time():.4f}"))
        mind.service.prefilled.connect(lambda tokens: emit("prefilled", f"{time.time():.4f}", tokens))
        _trace_first_paint(mind, emit)
    widgets = os.environ.get(ENV_WIDGETS)
    if widgets:
        _report_widgets(mind, Path(widgets))
    if prompt:

        def send_again() -> None:
            if not session.generating and session.model is not None:
                session.send(prompt)

        mind.service.loaded.connect(lambda _info: QTimer.singleShot(0, send_again))
        session.generating_changed.connect(lambda on: None if on else QTimer.singleShot(50, send_again))
    if report:

        def write_report() -> None:
            shown = mind.conversations
            data = {
                "conversations": [
                    {
                        "id": c.id,
                        "title": c.title,
                        "messages": [
                            {"id": m.id, "role": m.role, "status": m.status, "content": m.content}
                            for m in mind.store.messages(c.id)
                        ],
                    }
                    for c in (shown.conversation(row) for row in range(shown.rowCount()))
                    if c is not None
                ]
            }
            Path(report).write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
            mind.window.close()

        QTimer.singleShot(0, write_report)


def _trace_first_paint(mind: LocalMind, emit: Callable[..., None]) -> None:
    """Print "painted <time>" when the window first paints (bench/firstpaint.py reads it)."""
    from PySide6.QtCore import QEvent, QObject

    window = mind.window

    class FirstPaint(QObject):
        def eventFilter(self, watched: QObject, event: QEvent) -> bool:
            if event.type() == QEvent.Type.Paint and getattr(watched, "window", lambda: None)() is window:
                emit("painted", f"{time.time():.4f}")
                mind.qapp.removeEventFilter(self)
            return False

    watcher = FirstPaint(window)
    mind.qapp.installEventFilter(watcher)


def _report_widgets(mind: LocalMind, path: Path, interval_ms: int = 200) -> None:
    """Every ``interval_ms``, write the visible widgets of every window to ``path`` (JSON): class, object name, text,
    enabled, screen rectangle, and the links in rich text with their rectangles. An X test reads it to know WHERE to
    click with real X events (tests/documents/xwidgets.py); the clicks themselves go through the X server."""
    from PySide6.QtCore import QRect
    from PySide6.QtGui import QTextCursor
    from PySide6.QtWidgets import QAbstractButton, QApplication, QLabel, QLineEdit, QProgressBar, QTextEdit, QWidget

    def screen_rect(widget: QWidget, rect: QRect) -> list[int]:
        top_left = widget.mapToGlobal(rect.topLeft())
        return [top_left.x(), top_left.y(), rect.width(), rect.height()]

    def links(view: QTextEdit) -> list[dict[str, object]]:
        found: list[dict[str, object]] = []
        document = view.document()
        block = document.begin()
        while block.isValid():
            fragments = block.begin()
            while not fragments.atEnd():
                fragment = fragments.fragment()
                if fragment.charFormat().isAnchor():
                    cursor = QTextCursor(document)
                    cursor.setPosition(fragment.position())
                    start = view.cursorRect(cursor)
                    cursor.setPosition(fragment.position() + 1)
                    first = view.cursorRect(cursor)  # the link's first character: clicked there, it is the link
                    rect = QRect(start.x(), start.y(), max(first.x() - start.x(), 1), start.height())
                    found.append(
                        {
                            "href": fragment.charFormat().anchorHref(),
                            "text": fragment.text(),
                            "rect": screen_rect(view.viewport(), rect),
                        }
                    )
                fragments += 1
            block = block.next()
        return found

    def describe(widget: QWidget, window: QWidget) -> dict[str, object]:
        row: dict[str, object] = {
            "class": type(widget).__name__,
            "name": widget.objectName(),
            "window": window.windowTitle(),
            "enabled": widget.isEnabled(),
            "rect": screen_rect(widget, widget.rect()),
        }
        if isinstance(widget, (QAbstractButton, QLabel, QLineEdit)):
            row["text"] = widget.text()
            row["tooltip"] = widget.toolTip()
        elif isinstance(widget, QTextEdit):
            row["text"] = widget.toPlainText()[:4000]
            row["links"] = links(widget)
        elif isinstance(widget, QProgressBar):
            row["value"], row["maximum"] = widget.value(), widget.maximum()
            row["tooltip"] = widget.toolTip()
        return row

    def write() -> None:
        try:
            rows = [
                describe(widget, window)
                for window in QApplication.topLevelWidgets()
                if window.isVisible()
                for widget in (window, *window.findChildren(QWidget))
                # A dialog is a child of the main window too: each widget is listed once, under its own window.
                if widget.window() is window and widget.isVisible() and widget.width() > 0 and widget.height() > 0
            ]
            partial = path.with_name(path.name + ".tmp")
            partial.write_text(json.dumps(rows, ensure_ascii=False), encoding="utf-8")
            os.replace(partial, path)
        except Exception as exc:  # a test switch must never break the window
            print("widget report failed:", exc, flush=True)

    timer = QTimer(mind)
    timer.setInterval(interval_ms)
    timer.timeout.connect(write)
    timer.start()


def main(argv: Sequence[str] | None = None) -> int:
    """``localmind ARGS`` (the real command line and window) with the switches installed."""
    from localmind import cli
    from localmind.app import run_gui

    def run_window(args: argparse.Namespace) -> int:
        return run_gui(args, engine_factory=slowed_engine_factory(), before_show=install)

    return cli.main(argv, run_window=run_window)
