"""The open conversation and the turn being generated: the glue between the store, the engine and the views.

Durability rules live here. The user's message is committed before the engine
is asked for anything; the reply is written to the store as a "streaming"
message at once and its text saved every ``SAVE_INTERVAL_MS`` while tokens
arrive, then once more with its final status when the turn ends. A ``kill -9``
therefore loses at most the last save interval of a reply, never a message.

QtCore only: the views and the inference service are wired to it in
``localmind.app``, so it can be driven by tests without a window.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from localmind.core.conversations import Conversation, Message, MessageStatus
from localmind.core.store import ConversationStore, classify
from localmind.engine.types import ChatMessage, FinishReason, LoadInfo, TurnFinished
from localmind.errors import UserFacingError
from localmind.models.reply_saver import ReplySaver, change_problem, message_problem, open_problem
from localmind.settings import Settings, generation_options
from localmind.workers.inference import InferenceService

log = logging.getLogger(__name__)

SAVE_INTERVAL_MS = 500
TITLE_CHARS = 48


def title_from(text: str) -> str:
    """A conversation title from its first message: the first line, shortened."""
    for line in text.splitlines():
        words = " ".join(line.split())
        if words:
            return words if len(words) <= TITLE_CHARS else words[: TITLE_CHARS - 1].rstrip() + "…"
    return "New chat"


@dataclass
class _Turn:
    request_id: int
    conversation_id: str
    reply: Message
    user_message: Message | None  # set when the turn was started by sending a new message
    parts: list[str] = field(default_factory=list)
    chars: int = 0
    saved_chars: int = 0

    @property
    def text(self) -> str:
        if len(self.parts) > 1:
            self.parts[:] = ["".join(self.parts)]
        return self.parts[0] if self.parts else ""


class ChatSession(QObject):
    """Sends messages, streams replies into the store and tells the views what changed.

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
        self, store: ConversationStore, service: InferenceService, settings: Settings, parent: QObject | None = None
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
        self._submitted_at: float | None = None
        self._closed = False
        self.documents: Any = None  # a documents.chat.DocumentsChat when the app has one ("Use my documents")
        self._save_timer = QTimer(self)
        self._save_timer.setInterval(SAVE_INTERVAL_MS)
        self._save_timer.timeout.connect(self.save_partial_reply)
        # Answers whose final save failed (full disk, lock, read-only) live here until they are stored.
        self.saver = ReplySaver(store, self)

    # -- state --------------------------------------------------------------------------------------------------
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

    # -- conversations ------------------------------------------------------------------------------------------
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

    def _reload_messages(self) -> None:
        assert self.conversation is not None
        messages = self.store.messages(self.conversation.id)
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

    # -- turns --------------------------------------------------------------------------------------------------
    def send(self, text: str) -> bool:
        """Commit ``text`` as the user's message and start the reply; ``False`` if nothing was sent."""
        self._submitted_at = time.time()  # the reply's time to first token counts from here (the Enter key)
        if not text.strip() or self.generating or self._closed:
            return False
        if self.model is None:
            self.error.emit(self.tr("No model is loaded."), self.tr("Open a model folder or get a model first."))
            self.draft_returned.emit(text)
            return False
        new = self.conversation is None
        try:
            # The chat, the message and the empty reply are one transaction: a full disk leaves none of them,
            # so the message is either stored and answered or back in the composer, never both.
            with self.store.transaction():
                conversation = self.conversation or self.store.create_conversation(
                    title=title_from(text),
                    system_prompt=self._draft_system_prompt,
                    settings=self._draft_settings,
                    model=self.model.model_dir,
                )
                if conversation.model != self.model.model_dir:  # which engine answers: a folder or remote:URL#NAME
                    self.store.update_conversation(conversation.id, model=self.model.model_dir)
                user = self.store.append_message(conversation.id, "user", text)
                reply = self.store.append_message(conversation.id, "assistant", "", status="streaming")
        except UserFacingError as exc:
            # Not committed, so not sent: the text goes back to the composer rather than being lost.
            self.error.emit(
                self.tr("Your message was not sent."), message_problem(classify(exc), self.store.path.parent, str(exc))
            )
            self.draft_returned.emit(text)
            return False
        if new:
            self.conversation = conversation
            self.messages = []
            self.conversation_opened.emit(self.conversation, [])
        self.messages.append(user)
        self.message_added.emit(user)
        self.conversations_changed.emit()
        return self._start_turn(user_message=user, reply=reply)

    def regenerate(self) -> bool:
        """Replace the last answer with a new one."""
        if self.generating or self._closed or self.conversation is None or self.model is None:
            return False
        users = [m for m in self.messages if m.role == "user"]
        if not users:
            return False
        try:
            self.store.delete_messages_after(self.conversation.id, users[-1].position)
            self._reload_messages()
        except UserFacingError as exc:
            self.error.emit(
                self.tr("No answer was generated."), change_problem(classify(exc), self.store.path.parent, str(exc))
            )
            return False
        return self._start_turn(user_message=None)

    def edit_message(self, message_id: int, text: str) -> bool:
        """Change an earlier user message and continue the conversation from it (later messages go)."""
        if self.generating or self._closed or self.conversation is None or self.model is None or not text.strip():
            return False
        target = next((m for m in self.messages if m.id == message_id and m.role == "user"), None)
        if target is None:
            return False
        try:
            with self.store.transaction():  # the edit and dropping what followed it: both or neither
                self.store.update_message(message_id, content=text)
                self.store.delete_messages_after(self.conversation.id, target.position)
            self._reload_messages()
        except UserFacingError as exc:
            self.error.emit(
                self.tr("No answer was generated."), change_problem(classify(exc), self.store.path.parent, str(exc))
            )
            return False
        return self._start_turn(user_message=None)

    def stop(self) -> None:
        if self._turn is not None:
            self.service.cancel()

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

    def _start_turn(self, user_message: Message | None, reply: Message | None = None) -> bool:
        assert self.conversation is not None and self.model is not None
        try:
            options = generation_options(self.settings.generation, self.conversation.settings)
            if isinstance(self.conversation.settings.get("thinking"), bool):  # the chat's "Think before answering"
                options = dataclasses.replace(options, thinking=self.conversation.settings["thinking"])
        except UserFacingError as exc:
            self.error.emit(self.tr("The chat settings are not valid."), str(exc))
            return False
        if self.documents is not None:
            self.messages = self.documents.before_turn(self.messages)
        options = dataclasses.replace(options, submitted_at=self._submitted_at or time.time())
        self._submitted_at = None
        history = self._history()
        if reply is None:
            try:
                reply = self.store.append_message(self.conversation.id, "assistant", "", status="streaming")
            except UserFacingError as exc:
                self.error.emit(
                    self.tr("No answer was generated."),
                    message_problem(classify(exc), self.store.path.parent, str(exc)),
                )
                return False
        self.messages.append(reply)
        self.message_added.emit(reply)
        request_id = self.service.generate(history, options)
        self._turn = _Turn(request_id, self.conversation.id, reply, user_message)
        self._count_request = None
        self._save_timer.start()
        self.generating_changed.emit(True)
        return True

    def save_partial_reply(self) -> None:
        """Write the reply's text so far (the timer calls this; a kill loses at most one interval)."""
        turn = self._turn
        if turn is None or turn.saved_chars == turn.chars or self._closed:
            return
        try:
            self.store.update_message(turn.reply.id, content=turn.text)
        except UserFacingError as exc:
            # Keep streaming: the whole text stays in memory and the final save tries until it is stored.
            self.saver.streaming_save_failed(exc)
            return
        turn.saved_chars = turn.chars
        self.saver.streaming_save_worked()

    def on_tokens(self, request_id: int, text: str) -> None:
        turn = self._turn
        if turn is None or turn.request_id != request_id:
            return
        turn.parts.append(text)
        turn.chars += len(text)
        if turn.conversation_id == self.conversation_id:
            self.reply_delta.emit(text)

    def on_finished(self, request_id: int, finished: TurnFinished) -> None:
        turn = self._turn
        if turn is None or turn.request_id != request_id:
            return
        status: MessageStatus = "complete"
        if finished.reason == FinishReason.CANCELLED:
            status = "stopped"
        elif finished.reason == FinishReason.ERROR:
            status = "error"
        stats = {**dataclasses.asdict(finished.stats), "finish_reason": finished.reason.value}
        if status == "stopped" and not turn.chars:
            self._drop_empty_reply(turn)  # stopped before the first word: no empty answer left behind (issue 9.7)
            self.turn_finished.emit(finished.stats)
            return
        self._end_turn(turn, status, stats)
        self.turn_finished.emit(finished.stats)
        if finished.stats.context_budget:
            self.context_usage.emit(finished.stats.context_tokens, finished.stats.context_budget)
        if finished.reason == FinishReason.ERROR:
            self.error.emit(self.tr("The answer could not be finished."), finished.error or "")

    def on_failed(self, request_id: int, message: str) -> None:
        turn = self._turn
        if turn is None or turn.request_id != request_id:
            return
        if turn.chars:
            self._end_turn(turn, "error", None)
            self.error.emit(self.tr("The answer could not be finished."), message)
            return
        # Nothing was generated: take the empty reply away, and a message that was never answered goes back
        # to the composer (a prompt too long for the context must not be lost, nor left in the way).
        self._finish_turn_state()
        first_gone = turn.user_message.position if turn.user_message is not None else turn.reply.position
        try:
            self.store.delete_messages_after(turn.conversation_id, first_gone - 1)
        except UserFacingError as exc:
            log.warning("Could not remove the unanswered turn: %s", exc)
        if first_gone == 0:
            self._forget_empty_conversation(turn.conversation_id)  # issue 10.11: no empty chat left in the list
        elif self.conversation_id == turn.conversation_id:
            self._reload_messages()
        if turn.user_message is not None:
            self.draft_returned.emit(turn.user_message.content)
            self.error.emit(self.tr("Your message was not sent."), message)
        else:
            self.error.emit(self.tr("No answer was generated."), message)
        self.conversations_changed.emit()
        self.request_context_usage()

    def on_token_count(self, request_id: int, count: int) -> None:
        if request_id == self._count_request and self.model is not None:
            self._count_request = None
            self.context_usage.emit(count, self.model.context_budget)

    def _finish_turn_state(self) -> None:
        self._turn = None
        self._save_timer.stop()
        self.generating_changed.emit(False)

    def _end_turn(self, turn: _Turn, status: MessageStatus, stats: dict[str, Any] | None) -> None:
        text = turn.text
        if self.documents is not None:
            text, stats = self.documents.after_turn(self.messages, text, stats)
        self._finish_turn_state()
        self.saver.save(turn.reply.id, text, status, stats)  # kept and retried if it cannot be stored now
        updated = dataclasses.replace(turn.reply, content=text, status=status, stats=stats)
        if turn.conversation_id == self.conversation_id:
            self.messages = [updated if m.id == updated.id else m for m in self.messages]
            self.message_updated.emit(updated)

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

    def _drop_empty_reply(self, turn: _Turn) -> None:
        """Remove a reply that never got a word; the question stays, with "Answer again" under it."""
        self._finish_turn_state()
        try:
            self.store.delete_messages_after(turn.conversation_id, turn.reply.position - 1)
        except UserFacingError as exc:
            log.warning("Could not remove the empty reply: %s", exc)
        if self.conversation_id == turn.conversation_id:
            self._reload_messages()
        self.request_context_usage()

    def _abandon_turn(self) -> None:
        """Stop the turn now and keep its text as "stopped" (closing, or its conversation is going away)."""
        turn = self._turn
        if turn is None:
            return
        self.service.cancel()
        self._end_turn(turn, "stopped", None)

    def shutdown(self) -> None:
        """Stop and save the turn in flight, retry answers not stored yet; the session takes no new turns after this.

        Closed first: ending the turn tells listeners the session is idle, and one that sends a queued message
        then must be refused, or its turn would outlive the store.
        """
        self._closed = True
        self._abandon_turn()
        unsaved = self.saver.flush()
        if unsaved:
            log.error("%d answer(s) could not be stored before closing (messages %s)", len(unsaved), unsaved)
