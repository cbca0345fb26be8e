"""The conversations in the window: open, rename, delete and undo, search, and the message box's drafts."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from PySide6.QtCore import QCoreApplication, QObject
from PySide6.QtWidgets import QApplication, QToolButton

from localmind.core.conversations import Conversation, Message
from localmind.core.store import ConversationStore
from localmind.engine.types import TurnStats
from localmind.errors import UserFacingError
from localmind.ui.main_window import MainWindow
from localmind.viewmodels.chat_session import ChatSession
from localmind.viewmodels.conversation_list import ConversationListModel
from localmind.viewmodels.drafts import Drafts
from localmind.workers.messages import user_text


class DraftKeeper:
    """What is typed in the message box stays with its chat: switching chats keeps it, reopening shows it again."""

    def __init__(self, drafts: Drafts, window: MainWindow) -> None:
        self.drafts, self.window = drafts, window
        self.key: str | None = None  # the conversation whose draft the message box shows ("" = a new chat)

    def switch(self, key: str) -> None:
        """Keep what is in the box for the chat being left, and show what was left in the one opened."""
        if key == self.key:
            return
        composer = self.window.composer
        previous, self.key = self.key, None  # no saving while the box is refilled
        if previous is not None and composer.editing is None:
            self.drafts.set(previous, composer.text)
        if composer.editing is None:
            composer.set_text(self.drafts.get(key))
        self.key = key

    def remember(self) -> None:
        if self.key is not None and self.window.composer.editing is None:
            self.drafts.set(self.key, self.window.composer.text)

    def returned(self, text: str) -> None:
        """A message that could not be sent comes back into the box, before what was typed since."""
        composer = self.window.composer
        current = composer.text
        composer.set_text(text if not current.strip() else text + "\n\n" + current)
        composer.input.setFocus()


class Conversations(QObject):
    """The sidebar's list and the chat shown: every action on a conversation the window offers."""

    def __init__(
        self,
        store: ConversationStore,
        session: ChatSession,
        window: MainWindow,
        listing: ConversationListModel,
        drafts: Drafts,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.store, self.session, self.window, self.listing = store, session, window, listing
        self.drafts = DraftKeeper(drafts, window)
        self.closed = False  # the store is closed: late signals (the sidebar's typing pause) do nothing

    def wire(self) -> None:
        session, window = self.session, self.window
        sidebar, composer, chat_view = window.sidebar, window.composer, window.chat_view
        session.conversation_opened.connect(self.on_conversation_opened)
        session.conversations_changed.connect(self.reload)
        session.message_updated.connect(self.on_message_updated)
        session.generating_changed.connect(self.on_generating_changed)
        session.draft_returned.connect(self.drafts.returned)
        composer.input.textChanged.connect(self.drafts.remember)
        sidebar.new_chat_requested.connect(self.new_chat)
        sidebar.conversation_selected.connect(self.open)
        sidebar.delete_requested.connect(self.delete)
        sidebar.undo_delete_requested.connect(self.undo_delete)
        sidebar.search_requested.connect(self.search)
        sidebar.search_hit_activated.connect(self.on_search_hit)
        self.listing.rename_requested.connect(self.rename)
        chat_view.edit_requested.connect(self.begin_edit)
        chat_view.version_requested.connect(self.choose_version)
        window.welcome.suggestion_chosen.connect(self.use_suggestion)

    def reload(self) -> None:
        self.listing.set_conversations(self.store.list_conversations())
        self.window.sidebar.select_conversation(self.session.conversation_id)

    def new_chat(self) -> None:
        self.window.show_chat()
        self.window.composer.cancel_edit()
        self.session.new_chat()
        self.window.composer.input.setFocus()

    def open(self, conversation_id: str) -> None:
        if conversation_id == self.session.conversation_id:
            return
        self.window.show_chat()
        self.window.composer.cancel_edit()
        self.session.open_conversation(conversation_id)

    def rename(self, conversation_id: str, title: str) -> None:
        self.session.rename_conversation(conversation_id, title)
        if conversation_id == self.session.conversation_id:
            self.window.set_conversation_title(title)

    def delete(self, conversation_id: str) -> None:
        try:
            title = self.store.get_conversation(conversation_id).title
            self.session.delete_conversation(conversation_id)
        except UserFacingError as exc:
            self.window.show_error(
                QCoreApplication.translate("LocalMind", "The chat could not be deleted."), user_text(exc)
            )
            return
        self.window.sidebar.show_deleted(conversation_id, title)

    def undo_delete(self, conversation_id: str) -> None:
        try:
            self.session.restore_conversation(conversation_id)
        except UserFacingError as exc:
            self.window.show_error(
                QCoreApplication.translate("LocalMind", "The chat could not be restored."), user_text(exc)
            )
            return
        self.open(conversation_id)

    def search(self, query: str) -> None:
        if self.closed:
            return  # the sidebar's typing pause can end after the window closed and the store with it
        try:
            hits = self.store.search(query)
        except UserFacingError as exc:
            self.window.show_error(QCoreApplication.translate("LocalMind", "Search failed."), user_text(exc))
            hits = []
        self.window.sidebar.show_results(query, hits)

    def on_search_hit(self, conversation_id: str, message_id: int | None) -> None:
        self.window.show_chat()  # opening the chat already shown does not switch pages by itself
        self.open(conversation_id)
        if message_id is not None:
            self.window.chat_view.scroll_to_message(message_id)

    def on_conversation_opened(self, conversation: Conversation | None, messages: list[Message]) -> None:
        self.drafts.switch(conversation.id if conversation is not None else "")
        self.window.show_conversation(conversation, messages)
        # The status bar speaks of this chat's last answer, not of the chat shown before (issue 9.10).
        self.window.status.set_turn_stats(last_turn_stats(messages))
        self.update_regenerate()

    def on_message_updated(self, message: Message) -> None:
        self.window.chat_view.update_message(
            message.id, content=message.content, status=message.status, details=message
        )
        self.update_regenerate()

    def on_generating_changed(self, generating: bool) -> None:
        self.window.set_generating(generating)
        self.update_regenerate()

    def update_regenerate(self) -> None:
        session = self.session
        # The chat view offers Regenerate under the last answer; the composer's button covers a question
        # left without one (its answer failed, or the app closed before it began).
        unanswered = bool(session.messages) and session.messages[-1].role == "user"
        self.window.composer.set_can_regenerate(not session.generating and session.model is not None and unanswered)

    def choose_version(self, message_id: int, version: int) -> None:
        self.session.choose_version(message_id, version)
        if not isinstance(QApplication.focusWidget(), QToolButton):  # ‹ › pressed from the keyboard keep the focus
            self.window.composer.input.setFocus()  # a click: typing goes on in the message box

    def begin_edit(self, message_id: int) -> None:
        message = next((m for m in self.session.messages if m.id == message_id), None)
        if message is not None and message.role == "user" and not self.session.generating:
            self.window.composer.begin_edit(message_id, message.content)

    def use_suggestion(self, prompt: str) -> None:
        self.window.composer.set_text(prompt)
        self.window.composer.input.setFocus()


def last_turn_stats(messages: Sequence[Message]) -> TurnStats | None:
    """The stored figures of the last answer in ``messages`` (a stopped one's too), or ``None``."""
    for message in reversed(messages):
        if message.role != "assistant":
            continue
        stats = message.stats if isinstance(message.stats, dict) else {}
        known = {f.name for f in dataclasses.fields(TurnStats)}
        try:
            return TurnStats(**{k: v for k, v in stats.items() if k in known}) if stats else None
        except TypeError:
            return None
    return None


__all__ = ["Conversations", "DraftKeeper", "last_turn_stats"]
