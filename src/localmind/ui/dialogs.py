"""Questions the app asks: the question as the text (not the window title), plain text, Cancel, Esc = Cancel."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import QMessageBox, QWidget


def build_choice(
    parent: QWidget | None, question: str, detail: str, choices: Sequence[tuple[str, str]]
) -> tuple[QMessageBox, dict[object, str]]:
    """A message box asking ``question`` with one button per ``(key, label)`` and Cancel (also Esc)."""
    box = QMessageBox(parent)
    box.setIcon(QMessageBox.Icon.Question)
    box.setWindowTitle("LocalMind")
    # Window managers put the title where it is easily missed (or nowhere): the question is the box's text.
    box.setTextFormat(Qt.TextFormat.PlainText)  # it may name a folder: text, never HTML
    box.setText(question)
    box.setInformativeText(detail)
    buttons: dict[object, str] = {}
    for i, (key, label) in enumerate(choices):
        button = box.addButton(label, QMessageBox.ButtonRole.AcceptRole)
        buttons[button] = key
        if i == 0:
            box.setDefaultButton(button)
    cancel = box.addButton(QMessageBox.StandardButton.Cancel)
    box.setEscapeButton(cancel)
    return box, buttons


def ask_choice(parent: QWidget | None, question: str, detail: str, choices: Sequence[tuple[str, str]]) -> str | None:
    """The key of the choice made, or ``None`` for Cancel, Esc or closing the box."""
    box, buttons = build_choice(parent, question, detail, choices)
    box.exec()
    return buttons.get(box.clickedButton())


def ask_import_mode(parent: QWidget | None, folder: str) -> str | None:
    """How to import a model folder: ``"copy"``, ``"in_place"``, or ``None`` (cancelled)."""
    return ask_choice(
        parent,
        QCoreApplication.translate("Dialogs", "Copy the model into LocalMind's folder?"),
        QCoreApplication.translate(
            "Dialogs",
            "{folder}\n\nCopying keeps the model working if the original folder moves or is deleted; it uses as "
            "much disk space again. Using it where it is takes no space, but the folder must stay where it is.",
        ).format(folder=folder),
        [
            ("copy", QCoreApplication.translate("Dialogs", "Copy it")),
            ("in_place", QCoreApplication.translate("Dialogs", "Use it where it is")),
        ],
    )
