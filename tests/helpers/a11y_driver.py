"""The real app, stepped from outside, so a test can read its AT-SPI tree at each page (tests/e2e/test_accessibility_x.py).

    python -m tests.helpers.a11y_driver CONTROL_DIR [--model DIR] [--theme light|dark] [--plant-unnamed]

It builds the whole app (``create_app``) and shows its window, then waits for steps: the test writes a step name to
``CONTROL_DIR/step``; the app performs it on its GUI thread (its event loop keeps running, so it answers AT-SPI
while the test reads the tree) and writes ``CONTROL_DIR/done-<step>`` with a JSON note. Steps:

- ``main``: the window as it opens; ``chat``: a message typed and answered (the reply's end is announced);
- ``settings-chat``, ``settings-advanced``, ``settings-app``, ``settings-server``: Settings, each tab;
- ``models``: the model manager; ``documents``: the Documents page; ``quit``.

``--plant-unnamed`` adds a focusable button with no text and no name to the window: the test must catch it.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QPushButton


class Driver:
    def __init__(self, mind: Any, control: Path) -> None:
        self.mind = mind
        self.control = control
        self.settings: Any = None
        self.timer = QTimer()
        self.timer.setInterval(50)
        self.timer.timeout.connect(self.poll)
        self.timer.start()

    def poll(self) -> None:
        step_file = self.control / "step"
        if not step_file.exists():
            return
        step = step_file.read_text(encoding="utf-8").strip()
        step_file.unlink()
        note = getattr(self, "step_" + step.replace("-", "_"))()
        if note is not None:
            self.done(step, note)

    def done(self, step: str, note: dict[str, Any]) -> None:
        (self.control / f"done-{step}").write_text(json.dumps(note), encoding="utf-8")

    def focus_note(self) -> dict[str, Any]:
        focus = QApplication.focusWidget()
        return {"focus": type(focus).__name__ if focus is not None else None}

    def step_main(self) -> dict[str, Any]:
        self.mind.window.show_chat()
        return self.focus_note()

    def step_chat(self) -> None:
        mind = self.mind

        def finished(*_args: object) -> None:
            mind.session.turn_finished.disconnect(finished)
            QTimer.singleShot(300, lambda: self.done("chat", self.focus_note()))

        mind.session.turn_finished.connect(finished)
        box = mind.window.composer.input
        box.setFocus()
        box.setPlainText("hello")
        mind.window.composer.submit()  # what Enter does

    def _settings(self, tab: str) -> dict[str, Any]:
        if self.settings is None:
            self.settings = self.mind.open_settings()
        d = self.settings
        d.tabs.setCurrentWidget({"chat": d.chat_tab, "app": d.app_tab, "server": d.server_tab}[tab])
        return self.focus_note()

    def step_settings_chat(self) -> dict[str, Any]:
        return self._settings("chat")

    def step_settings_advanced(self) -> dict[str, Any]:
        note = self._settings("chat")
        self.settings.chat_tab.advanced_button.setChecked(True)
        return note

    def step_settings_app(self) -> dict[str, Any]:
        return self._settings("app")

    def step_settings_server(self) -> dict[str, Any]:
        note = self._settings("server")
        return note

    def step_models(self) -> dict[str, Any]:
        if self.settings is not None:
            self.settings.reject()
            self.settings = None
        self.mind.window.show_model_manager()
        return self.focus_note()

    def step_documents(self) -> dict[str, Any]:
        if self.mind.documents is not None:
            self.mind.documents.show_page()
        return self.focus_note()

    def step_quit(self) -> dict[str, Any]:
        QTimer.singleShot(200, QApplication.quit)
        return {}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("control", type=Path)
    parser.add_argument("--model", default=None)
    parser.add_argument("--theme", default="light")
    parser.add_argument("--plant-unnamed", action="store_true")
    args = parser.parse_args(argv)

    from localmind.app import create_app
    from localmind.settings import Settings

    settings = Settings(theme=args.theme, language="en")
    settings.generation.temperature = 0.0
    mind = create_app(args.model, settings=settings, load_last_model=False)
    if args.plant_unnamed:
        planted = QPushButton(mind.window.header)  # a focusable control a screen reader can only call "button"
        planted.setObjectName("PlantedUnnamed")
        planted.move(4, 4)
        planted.resize(24, 24)
    mind.window.show()
    driver = Driver(mind, args.control)
    (args.control / "ready").write_text(str(QApplication.applicationPid()), encoding="utf-8")
    code = QApplication.exec()
    del driver
    return int(code)


if __name__ == "__main__":
    sys.exit(main())
