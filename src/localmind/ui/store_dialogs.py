"""Windows about the conversation database: why it cannot open at start-up, a rescue report, restoring a backup.

A window app must never fail silently to stderr: when the database cannot be
opened, a window says which of the four things happened (disk full, read-only,
locked by another program, damaged), that the conversations are safe where they
are, and offers the one action that helps. None of them ever suggests moving
the database aside or deleting it.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QStyle,
    QVBoxLayout,
    QWidget,
)

from localmind import APP_NAME, paths
from localmind.core import backup, recovery
from localmind.core.conversations import ImportResult
from localmind.core.store import BUSY, DAMAGED, FULL, NEWER, READ_ONLY, WHEN_DUE, ConversationStore, StoreError
from localmind.errors import UserFacingError
from localmind.viewmodels.reply_saver import ReplySaver
from localmind.workers.messages import user_text
from localmind.workers.tasks import TaskRunner

log = logging.getLogger(__name__)

# The window's store waits at most this long for another program's lock, then retries later instead:
# a lock held by a terminal command must never freeze the window (issue: ~3 s before "database is busy").
GUI_BUSY_TIMEOUT_MS = 100

RETRY, READ_ONLY_OPEN, RECOVER, QUIT, CONTINUE = "retry", "read-only", "recover", "quit", "continue"


def startup_problem(exc: StoreError) -> tuple[str, str, list[str]]:
    """(headline, what happened and what to do, the choices offered, the first being the default)."""
    path = paths.database_path()
    if exc.kind == FULL:
        return (
            QCoreApplication.translate("StartupProblem", "LocalMind cannot start: the disk is full."),
            QCoreApplication.translate(
                "StartupProblem",
                "Your conversations are safe in {path}; nothing is damaged. LocalMind needs a little free space on "
                "that disk to open them. Free some space, then choose Try again. Meanwhile you can open them "
                "read-only to read and export them.",
            ).format(path=path),
            [RETRY, READ_ONLY_OPEN, QUIT],
        )
    if exc.kind == READ_ONLY:
        return (
            QCoreApplication.translate(
                "StartupProblem", "Your conversations are on a read-only disk or in a read-only file."
            ),
            QCoreApplication.translate(
                "StartupProblem",
                "They are safe in {path}. LocalMind can open them read-only: you can read, search and export them, "
                "but nothing new can be saved. To chat again, make the file and its folder writable (or the disk), "
                "then start LocalMind again.",
            ).format(path=path),
            [READ_ONLY_OPEN, QUIT],
        )
    if exc.kind == BUSY:
        return (
            QCoreApplication.translate("StartupProblem", "Another program is using your conversations."),
            QCoreApplication.translate(
                "StartupProblem",
                "{path} is locked by another program (for example a LocalMind command running in a terminal, or a "
                "backup or sync tool). Your conversations are safe. Wait for it to finish or close it, then choose "
                "Try again.",
            ).format(path=path),
            [RETRY, QUIT],
        )
    if exc.kind == DAMAGED:
        return (
            QCoreApplication.translate("StartupProblem", "Part of your conversation database is damaged."),
            QCoreApplication.translate(
                "StartupProblem",
                "LocalMind found damage in {path}. It can copy everything that is still readable into a new "
                "database and keep the damaged file beside it, untouched. Choose Recover "
                "my conversations to do it now.",
            ).format(path=path),
            [RECOVER, QUIT],
        )
    if exc.kind == NEWER:
        return (
            QCoreApplication.translate("StartupProblem", "These conversations were saved by a newer LocalMind."),
            QCoreApplication.translate(
                "StartupProblem",
                "{path} uses a newer format than this version knows. Update LocalMind to open them; nothing was changed.",
            ).format(path=path),
            [QUIT],
        )
    return (
        QCoreApplication.translate("StartupProblem", "LocalMind cannot open your conversations."),
        user_text(exc),
        [RETRY, QUIT],
    )


def _button_text(choice: str) -> str:
    return {
        RETRY: QCoreApplication.translate("StartupProblem", "Try again"),
        READ_ONLY_OPEN: QCoreApplication.translate("StartupProblem", "Open read-only"),
        RECOVER: QCoreApplication.translate("StartupProblem", "Recover my conversations"),
        QUIT: QCoreApplication.translate("StartupProblem", "Quit"),
        CONTINUE: QCoreApplication.translate("StartupProblem", "Continue"),
    }[choice]


class StoreDialog(QDialog):
    """A headline, plain-text details and one button per choice; ``choice`` says which was clicked."""

    def __init__(
        self, headline: str, detail: str, choices: Sequence[str], parent: QWidget | None = None, *, error: bool = True
    ) -> None:
        super().__init__(parent)
        self.setObjectName("StoreDialog")
        self.setWindowTitle(APP_NAME)
        self.choice = QUIT
        self.headline = QLabel(headline)
        self.headline.setObjectName("StoreDialogHeadline")
        self.headline.setTextFormat(Qt.TextFormat.PlainText)
        self.headline.setWordWrap(True)
        font = self.headline.font()
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.15)
        self.headline.setFont(font)
        # Paths and SQLite's words are not ours: always plain text.
        self.detail = QLabel(detail)
        self.detail.setTextFormat(Qt.TextFormat.PlainText)
        self.detail.setWordWrap(True)
        self.detail.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.detail.setMinimumWidth(460)
        icon = QLabel()
        standard = (
            QStyle.StandardPixmap.SP_MessageBoxWarning if error else QStyle.StandardPixmap.SP_MessageBoxInformation
        )
        icon.setPixmap(self.style().standardIcon(standard).pixmap(48, 48))
        self.buttons = QDialogButtonBox()
        self.choice_buttons: dict[str, QPushButton] = {}
        for i, choice in enumerate(choices):
            role = QDialogButtonBox.ButtonRole.RejectRole if choice == QUIT else QDialogButtonBox.ButtonRole.AcceptRole
            button = self.buttons.addButton(_button_text(choice), role)
            button.setObjectName(f"choice-{choice}")
            button.clicked.connect(lambda _=False, c=choice: self._choose(c))
            self.choice_buttons[choice] = button
            if i == 0:
                button.setDefault(True)
                button.setFocus()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(20, 18, 20, 14)
        layout.setSpacing(10)
        layout.addWidget(icon)
        layout.addWidget(self.headline)
        layout.addWidget(self.detail)
        layout.addWidget(self.buttons)

    def _choose(self, choice: str) -> None:
        self.choice = choice
        self.done(0)

    def reject(self) -> None:  # Esc or the window's close button: quit, never an action on the database
        self.choice = QUIT
        super().reject()


def ask(headline: str, detail: str, choices: Sequence[str], *, error: bool = True) -> str:
    dialog = StoreDialog(headline, detail, choices, error=error)
    dialog.exec()
    return dialog.choice


def salvage_text(report: recovery.SalvageReport) -> tuple[str, str]:
    """(headline, details) after a rescue: what was saved, what was not, where the damaged file is."""
    parts = [
        QCoreApplication.translate(
            "StartupProblem", "Saved: {conversations} conversations with {messages} messages."
        ).format(conversations=report.conversations, messages=report.messages)
    ]
    if report.partial:
        shown = ", ".join(f"“{t}”" for t in report.partial[:8]) + (" …" if len(report.partial) > 8 else "")
        parts.append(
            QCoreApplication.translate(
                "StartupProblem", "Not complete — some messages could not be read ({count}): {titles}."
            ).format(count=len(report.partial), titles=shown)
        )
    if report.untitled:
        parts.append(
            QCoreApplication.translate(
                "StartupProblem", "{count} conversations whose title could not be read are named “Recovered chat”."
            ).format(count=report.untitled)
        )
    if report.unreadable_rows and not report.partial and not report.untitled:
        parts.append(
            QCoreApplication.translate(
                "StartupProblem", "A few unreadable fragments could not be matched to any conversation."
            )
        )
    parts.append(
        QCoreApplication.translate("StartupProblem", "The damaged file is kept, untouched, at {path}.").format(
            path=report.damaged_copy
        )
    )
    complete = not report.partial and not report.untitled and not report.unreadable_rows
    headline = (
        QCoreApplication.translate("StartupProblem", "All your conversations were recovered.")
        if complete
        else QCoreApplication.translate(
            "StartupProblem", "Your conversations were recovered, except for what is listed."
        )
    )
    return headline, "\n\n".join(parts)


def open_store(ask_user: object = None) -> ConversationStore | None:
    """The window's store, after telling the user about any problem in a window; None if they chose to quit.

    ``ask_user(headline, detail, choices) -> choice`` stands in for the dialogs in tests.
    """
    choose = ask_user if callable(ask_user) else ask
    backup.backup_before_upgrade(paths.database_path())  # before this version's migrations touch anything
    read_only = False
    while True:
        try:
            return ConversationStore(check=WHEN_DUE, read_only=read_only, busy_timeout_ms=GUI_BUSY_TIMEOUT_MS)
        except StoreError as exc:
            log.warning("The conversation database cannot be opened: %s", exc)
            headline, detail, choices = startup_problem(exc)
            if read_only:
                choices = [c for c in choices if c != READ_ONLY_OPEN]
            choice = choose(headline, detail, choices)
        if choice == QUIT:
            return None
        read_only = choice == READ_ONLY_OPEN
        if choice == RECOVER:
            try:
                report = recovery.salvage(paths.database_path())
            except (OSError, UserFacingError, Exception) as exc:
                log.exception("Recovery failed")
                choose(
                    QCoreApplication.translate("StartupProblem", "The conversations could not be recovered."),
                    QCoreApplication.translate(
                        "StartupProblem",
                        "{error}\n\nThe damaged file was not changed. 'localmind export --all -o chats.json' in a "
                        "terminal saves every conversation that can still be read.",
                    ).format(error=exc),
                    [QUIT],
                )
                return None
            choose(*salvage_text(report), [CONTINUE])


def read_only_notice() -> tuple[str, str]:
    return (
        QCoreApplication.translate("StartupProblem", "Read-only: nothing new can be saved."),
        QCoreApplication.translate(
            "StartupProblem",
            "Your conversations are open read-only. You can read, search and export them. To chat again, make the "
            "data folder writable and start LocalMind again.",
        ),
    )


def start_backup(store: ConversationStore, tasks: TaskRunner) -> None:
    """The daily / new-version backup, in the task runner (a copy of a large database takes a moment)."""
    if store.read_only:
        return
    tasks.start(lambda _ctx: backup.backup_if_due(store), key="backup")


class RestoreDialog(QDialog):
    """The backups, newest first; the chosen one replaces the conversations (after a copy of them is taken)."""

    def __init__(self, backups: Sequence[backup.Backup], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(QCoreApplication.translate("BackupRestore", "Restore from backup"))
        self.backups = list(backups)
        intro = QLabel(
            QCoreApplication.translate(
                "BackupRestore",
                "Choose a backup. Your conversations are replaced by those in it; a copy of them as they are now is "
                "kept first, so you can undo this by restoring that copy.",
            )
        )
        intro.setWordWrap(True)
        intro.setTextFormat(Qt.TextFormat.PlainText)
        self.list = QListWidget()
        for b in self.backups:
            count = b.conversation_count()
            reason = {
                "daily": QCoreApplication.translate("BackupRestore", "daily"),
                "upgrade": QCoreApplication.translate("BackupRestore", "before an update"),
                "before-restore": QCoreApplication.translate("BackupRestore", "before a restore"),
            }.get(b.reason, b.reason)
            chats = (
                QCoreApplication.translate("BackupRestore", "{count} chats").format(count=count)
                if count is not None
                else QCoreApplication.translate("BackupRestore", "unreadable")
            )
            item = QListWidgetItem(f"{b.created:%Y-%m-%d %H:%M} — {reason} — {chats} — v{b.version}")
            self.list.addItem(item)
        if self.backups:
            self.list.setCurrentRow(0)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.restore_button = self.buttons.addButton(
            QCoreApplication.translate("BackupRestore", "Restore"), QDialogButtonBox.ButtonRole.AcceptRole
        )
        self.restore_button.setEnabled(bool(self.backups))
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.list)
        layout.addWidget(self.buttons)
        self.resize(560, 320)

    def chosen(self) -> backup.Backup | None:
        row = self.list.currentRow()
        return self.backups[row] if 0 <= row < len(self.backups) else None


def restore_title(ok: bool) -> str:
    if ok:
        return QCoreApplication.translate("BackupRestore", "The backup was restored.")
    return QCoreApplication.translate("BackupRestore", "The backup could not be restored.")


def restore_detail(safety: Path) -> str:
    return QCoreApplication.translate(
        "BackupRestore", "Your conversations as they were just before are kept in {path}."
    ).format(path=safety)


def restore_flow(mind: Any) -> None:
    """ "Restore from backup…": choose one, replace the conversations in place, show the result."""
    window = mind.window
    if mind.session.generating:
        window.show_error(
            QCoreApplication.translate("BackupRestore", "Stop the answer first."),
            QCoreApplication.translate("BackupRestore", "A backup can be restored while no answer is being written."),
        )
        return
    backups = backup.list_backups(mind.store)
    if not backups:
        window.show_notice(QCoreApplication.translate("BackupRestore", "No backups yet."), no_backups_text())
        return
    dialog = RestoreDialog(backups, window)
    if dialog.exec() != QDialog.DialogCode.Accepted or dialog.chosen() is None:
        return
    chosen = dialog.chosen()
    assert chosen is not None
    try:
        safety = backup.restore(mind.store, chosen.path)
    except UserFacingError as exc:
        window.show_error(restore_title(False), user_text(exc))
        return
    mind.session.new_chat()
    mind.reload_conversations()
    window.show_notice(restore_title(True), restore_detail(safety), timeout_ms=0)


def no_backups_text() -> str:
    return QCoreApplication.translate(
        "BackupRestore", "There is no backup yet. LocalMind makes one each day you use it, and before an update."
    )


def import_summary(result: ImportResult) -> str:
    """One line on what an import did: added, updated, copied, skipped (already here)."""
    parts = []
    if result.added:
        text = QCoreApplication.translate("ImportSummary", "Imported {count} chat(s).")
        parts.append(text.format(count=len(result.added)))
    if result.updated:
        text = QCoreApplication.translate("ImportSummary", "Added new messages to {count} chat(s) already here.")
        parts.append(text.format(count=len(result.updated)))
    if result.copied:
        text = QCoreApplication.translate(
            "ImportSummary", "Imported {count} chat(s) as copies (they differ from the ones already here)."
        )
        parts.append(text.format(count=len(result.copied)))
    if result.skipped:
        text = QCoreApplication.translate("ImportSummary", "Skipped {count} chat(s) already here.")
        parts.append(text.format(count=len(result.skipped)))
    return " ".join(parts) or QCoreApplication.translate(
        "ImportSummary", "The file holds no chats; nothing was imported."
    )


def save_or_rescue(saver: ReplySaver) -> None:
    """Closing with answers not stored yet: ask until they are stored, or write them to a file if the user quits."""
    while saver.flush():
        count = len(saver.pending)
        headline = (
            QCoreApplication.translate("StartupProblem", "1 answer is not saved yet.")
            if count == 1
            else QCoreApplication.translate("StartupProblem", "{count} answers are not saved yet.").format(count=count)
        )
        detail = QCoreApplication.translate(
            "StartupProblem",
            "LocalMind could not store it in your conversations: the disk is full, read-only, or another program "
            "holds them. Free some space (or close that program), then choose Try again. If you quit now, "
            "LocalMind writes the answer to a text file in {home} instead.",
        ).format(home=Path.home())
        if ask(headline, detail, [RETRY, QUIT]) != RETRY:
            saver.rescue_to_file()
            return
