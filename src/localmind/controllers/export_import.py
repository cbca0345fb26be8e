"""Export and import of conversations from the window: the file dialogs, the work off the GUI thread, the notices."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QObject
from PySide6.QtWidgets import QFileDialog

from localmind.controllers.conversations import Conversations
from localmind.core import chat_files
from localmind.core.conversations import Conversation, ImportResult
from localmind.core.store import ConversationStore
from localmind.errors import UserFacingError
from localmind.ui import store_dialogs
from localmind.ui.main_window import MainWindow
from localmind.workers.messages import user_text
from localmind.workers.tasks import TaskRunner


class ImportExport(QObject):
    """The sidebar's Export and Import: asks for the file, runs the work in the task runner, tells the outcome."""

    def __init__(
        self,
        store: ConversationStore,
        conversations: Conversations,
        window: MainWindow,
        tasks: TaskRunner,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.store, self.conversations, self.window, self.tasks = store, conversations, window, tasks
        self.last_import: ImportResult | None = None  # what the last import did, for its notice

    def wire(self) -> None:
        self.window.sidebar.export_requested.connect(self.ask_export)
        self.window.sidebar.import_requested.connect(self.ask_import)

    def export_conversations(self, conversation_ids: Sequence[str] | None, fmt: str, path: Path) -> int:
        """Write the conversations (all with ``None``) to ``path`` as ``md`` or ``json``; returns how many."""
        items = chat_files.collect(self.store, conversation_ids)
        text = chat_files.to_json(items) if fmt == "json" else chat_files.to_markdown(items)
        try:
            path.write_text(text, encoding="utf-8")
        except OSError as exc:
            raise UserFacingError(
                QCoreApplication.translate("LocalMind", "Could not write {path}: {reason}.").format(
                    path=path, reason=exc.strerror or exc
                ),
                hint=QCoreApplication.translate("LocalMind", "Choose another folder."),
            ) from exc
        return len(items)

    def import_conversations(self, path: Path) -> list[Conversation]:
        """Merge the export at ``path`` into the store on this thread, and open the first chat it changed."""
        self._imported(chat_files.merge_json(self.store, chat_files.read_file(path), str(path)))
        return self.last_import.changed if self.last_import is not None else []

    def _imported(self, result: ImportResult) -> None:
        self.last_import = result
        self.conversations.reload()
        if result.changed:
            self.conversations.open(result.changed[0].id)

    def ask_export(self, conversation_id: str, fmt: str) -> None:
        ids = [conversation_id] if conversation_id else None
        suffix = "json" if fmt == "json" else "md"
        name = "localmind-chats"
        if conversation_id:
            with contextlib.suppress(UserFacingError):
                name = self.store.get_conversation(conversation_id).title
        safe = "".join(ch if ch.isalnum() or ch in " -_" else "_" for ch in name).strip() or "chat"
        filters = (
            QCoreApplication.translate("LocalMind", "JSON (*.json)")
            if fmt == "json"
            else QCoreApplication.translate("LocalMind", "Markdown (*.md)")
        )
        target, _ = QFileDialog.getSaveFileName(
            self.window,
            QCoreApplication.translate("LocalMind", "Export"),
            str(Path.home() / f"{safe}.{suffix}"),
            filters,
        )
        if not target:
            return

        def done(count: int) -> None:
            self.window.show_notice(
                QCoreApplication.translate("LocalMind", "Exported {count} chat(s) to {path}.").format(
                    count=count, path=target
                )
            )

        # Off the GUI thread: thousands of chats take a while to write (the store is thread-safe).
        self.tasks.start(
            lambda _ctx: self.export_conversations(ids, fmt, Path(target)),
            key=f"export:{target}",
            on_success=done,
            on_failure=lambda exc: self.task_failed(QCoreApplication.translate("LocalMind", "Export failed."), exc),
        )

    def ask_import(self) -> None:
        source, _ = QFileDialog.getOpenFileName(
            self.window,
            QCoreApplication.translate("LocalMind", "Import conversations"),
            str(Path.home()),
            QCoreApplication.translate("LocalMind", "LocalMind export (*.json)"),
        )
        if not source:
            return

        def done(result: ImportResult) -> None:
            self._imported(result)
            self.window.show_notice(store_dialogs.import_summary(result))

        database = self.store.path
        self.tasks.start(
            lambda _ctx: import_with_own_connection(database, Path(source)),
            key=f"import:{source}",
            on_success=done,
            on_failure=lambda exc: self.task_failed(QCoreApplication.translate("LocalMind", "Import failed."), exc),
        )

    def task_failed(self, title: str, exc: BaseException) -> None:
        if not isinstance(exc, UserFacingError):
            raise exc  # a bug: the crash handler shows it
        self.window.show_error(title, user_text(exc))


def import_with_own_connection(database: Path, source: Path) -> ImportResult:
    """Import on a worker thread through a connection of its own: the window's store is never held by it, so the
    window waits at most its short busy timeout for SQLite's lock, never for the whole import (issue 10.6)."""
    with ConversationStore(database, recover_interrupted=False) as store:
        return chat_files.merge_json(store, chat_files.read_file(source), str(source))


__all__ = ["ImportExport", "import_with_own_connection"]
