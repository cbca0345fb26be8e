"""The open conversation: which one, its messages and settings, opening, renaming, trashing and restoring it,
and what the engine reads of it. ``ChatSession`` adds the turns on top.

QtCore only; driven by tests without a window.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from dataclasses import dataclass, field
from typing import Any, Protocol

from PySide6.QtCore import QObject, Signal

from localmind.core.conversations import Conversation, Message
from localmind.core.store import ConversationStore, classify
from localmind.engine.types import ChatMessage, FinishReason, LoadInfo
from localmind.errors import UserFacingError
from localmind.settings import Settings
from localmind.viewmodels.reply_saver import open_problem
from localmind.workers.inference import InferenceService

log = logging.getLogger(__name__)


@dataclass
class _Turn:
    request_id: int
    conversation_id: str
    reply: Message
    user_message: Message | None  # set when the turn was started by sending a new message
    parts: list[str] = field(default_factory=list)
    chars: int = 0
    saved_chars: int = 0
    started: float = field(default_factory=time.monotonic)
    first_text_at: float | None = None

    def measured_stats(self) -> dict[str, Any]:
        """What the session itself saw of a turn the engine could not report on (the app closing under it)."""
        now = time.monotonic()
        stats: dict[str, Any] = {"total_s": round(now - self.started, 3), "finish_reason": FinishReason.CANCELLED.value}
        if self.first_text_at is not None:
            stats["time_to_first_token_s"] = round(self.first_text_at - self.started, 3)
        return stats

    @property
    def text(self) -> str:
        if len(self.parts) > 1:
            self.parts[:] = ["".join(self.parts)]
        return self.parts[0] if self.parts else ""


class DocumentsTurns(Protocol):
    """What a chat with "Use my documents" adds to each turn (documents/chat.py DocumentsChat), given at construction."""

    def system(self, system_prompt: str, messages: list[Message]) -> str: ...

    def content_for_model(self, message: Message) -> str: ...

    def before_turn(self, messages: list[Message]) -> list[Message]: ...

    def after_turn(
        self, messages: list[Message], text: str, stats: dict[str, Any] | None
    ) -> tuple[str, dict[str, Any] | None]: ...


class OpenConversation(QObject):
    """The conversation shown (or a new, unsaved chat) and the signals that tell the views what changed.

    Signals:
        conversation_opened(object, list): a conversation (``None`` for a new, unsaved chat) and its messages;
            also sent after a regenerate or an edit reshaped the messages.
        conversations_changed(): the sidebar's list should be read again.
        message_added(Message), reply_delta(str), message_updated(Message): changes to the open conversation.
        generating_changed(bool)
        turn_finished(TurnStats)
        context_usage(int used, int budget)
        error(str title, str detail): something went wrong; ``detail`` says what to do.
        draft_returned(str): a message that could not be sent, for the composer to show again.
    """

    conversation_opened = Signal(object, list)
    conversations_changed = Signal()
    message_added = Signal(object)
    reply_delta = Signal(str)
    message_updated = Signal(object)
    generating_changed = Signal(bool)
    turn_finished = Signal(object)
    context_usage = Signal(int, int)
    error = Signal(str, str)
    draft_returned = Signal(str)

    def __init__(
        self,
        store: ConversationStore,
        service: InferenceService,
        settings: Settings,
        parent: QObject | None = None,
        *,
        documents: DocumentsTurns | None = None,
    ) -> None:
        super().__init__(parent)
        self.store = store
        self.service = service
        self.settings = settings
        self.model: LoadInfo | None = None
        self.conversation: Conversation | None = None
        self.messages: list[Message] = []
        self._draft_system_prompt = settings.generation.system_prompt
        self._draft_settings: dict[str, Any] = {}
        self._turn: _Turn | None = None
        self._count_request: int | None = None
        self._closed = False
        self.documents = documents  # the app's documents chat when it has one ("Use my documents")

    def _abandon_turn(self) -> None:
        """Stop the turn in flight and keep its text (``ChatSession`` has turns)."""

    @property
    def generating(self) -> bool:
        return self._turn is not None

    @property
    def conversation_id(self) -> str | None:
        return self.conversation.id if self.conversation else None

    @property
    def turn_progress(self) -> tuple[int, int] | None:
        """(reply message id, characters received) of the turn in flight."""
        return (self._turn.reply.id, self._turn.chars) if self._turn else None

    @property
    def generating_conversation_id(self) -> str | None:
        return self._turn.conversation_id if self._turn else None

    def set_model(self, info: LoadInfo | None) -> None:
        """The model now ready for turns (``None`` while loading or after a failure)."""
        self.model = info
        if info is not None:
            self.request_context_usage()

    def chat_settings(self) -> tuple[str, dict[str, Any]]:
        """System prompt and per-conversation generation settings of the open (or unsaved) chat."""
        if self.conversation is not None:
            return self.conversation.system_prompt, dict(self.conversation.settings)
        return self._draft_system_prompt, dict(self._draft_settings)

    def set_chat_settings(self, system_prompt: str, settings: dict[str, Any]) -> None:
        if self.conversation is None:
            self._draft_system_prompt, self._draft_settings = system_prompt, dict(settings)
            return
        self.store.update_conversation(self.conversation.id, system_prompt=system_prompt, settings=dict(settings))
        self.conversation = dataclasses.replace(self.conversation, system_prompt=system_prompt, settings=dict(settings))
        self.request_context_usage()

    def new_chat(self) -> None:
        self.conversation = None
        self.messages = []
        self._draft_system_prompt = self.settings.generation.system_prompt
        self._draft_settings = {}
        self.conversation_opened.emit(None, [])
        self.context_usage.emit(0, self.model.context_budget if self.model else 0)

    def open_conversation(self, conversation_id: str) -> bool:
        previous = self.conversation
        try:
            self.conversation = self.store.get_conversation(conversation_id)
            self._reload_messages()
        except UserFacingError as exc:
            # A damaged page under this chat: say so; the other chats stay usable.
            self.conversation = previous
            self.error.emit(
                self.tr("This conversation cannot be opened."),
                open_problem(classify(exc)) or str(exc),
            )
            return False
        self.request_context_usage()
        return True

    def _reload_messages(self, leave_out: int | None = None) -> None:
        """Read the open conversation again and show it (``leave_out``: a reply about to start, added by the turn)."""
        assert self.conversation is not None
        messages = [m for m in self.store.messages(self.conversation.id) if m.id != leave_out]
        turn = self._turn
        if turn is not None and turn.conversation_id == self.conversation.id:
            # The store holds the text as of the last save; the turn holds every token so far.
            messages = [dataclasses.replace(m, content=turn.text) if m.id == turn.reply.id else m for m in messages]
        self.messages = messages
        self.conversation_opened.emit(self.conversation, list(messages))

    def rename_conversation(self, conversation_id: str, title: str) -> None:
        self.store.rename_conversation(conversation_id, title)
        if self.conversation is not None and self.conversation.id == conversation_id:
            self.conversation = self.store.get_conversation(conversation_id)
        self.conversations_changed.emit()

    def delete_conversation(self, conversation_id: str) -> None:
        """Move a conversation to the trash (``restore_conversation`` undoes it); its turn, if any, stops."""
        if self._turn is not None and self._turn.conversation_id == conversation_id:
            self._abandon_turn()
        self.store.delete_conversation(conversation_id)
        if self.conversation_id == conversation_id:
            self.new_chat()
        self.conversations_changed.emit()

    def restore_conversation(self, conversation_id: str) -> None:
        self.store.restore_conversation(conversation_id)
        self.conversations_changed.emit()

    def request_context_usage(self) -> None:
        """Ask the engine how full the context is for the open conversation (answered by ``on_token_count``)."""
        if self.model is None or self.generating:
            return
        history = self._history()
        if not any(m.role != "system" for m in history):
            self._count_request = None
            self.context_usage.emit(0, self.model.context_budget)
            return
        self._count_request = self.service.request_token_count(history)

    def engine_history(self) -> list[ChatMessage]:
        """The open conversation as the engine reads it (type-ahead prepares exactly this)."""
        return self._history()

    def _history(self) -> list[ChatMessage]:
        system_prompt, _ = self.chat_settings()
        if self.documents is not None:
            system_prompt = self.documents.system(system_prompt, self.messages)
        history = [ChatMessage("system", system_prompt)] if system_prompt.strip() else []
        for m in self.messages:
            if m.role == "system" or m.status == "error" or not m.content:
                continue
            if self._turn is not None and m.id == self._turn.reply.id:
                continue
            content = self.documents.content_for_model(m) if self.documents is not None else m.content
            history.append(ChatMessage(m.role, content))
        return history

    def on_token_count(self, request_id: int, count: int) -> None:
        if request_id == self._count_request and self.model is not None:
            self._count_request = None
            self.context_usage.emit(count, self.model.context_budget)

    def _forget_empty_conversation(self, conversation_id: str) -> None:
        """A chat whose first message was refused is not kept: the window goes back to a new chat with its settings."""
        try:
            self.store.delete_conversation(conversation_id)  # to the trash, emptied when the app closes
        except UserFacingError as exc:
            log.warning("Could not remove the empty chat: %s", exc)
        if self.conversation_id != conversation_id or self.conversation is None:
            return
        system_prompt, settings = self.conversation.system_prompt, dict(self.conversation.settings)
        self.conversation = None
        self.messages = []
        self._draft_system_prompt, self._draft_settings = system_prompt, settings
        self.conversation_opened.emit(None, [])
