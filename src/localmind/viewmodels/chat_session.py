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
from typing import Any

from PySide6.QtCore import QCoreApplication, QEventLoop, QObject, QTimer

from localmind.core.conversations import Message, MessageStatus
from localmind.core.store import ConversationStore, classify
from localmind.engine.types import FinishReason, TurnFinished
from localmind.errors import UserFacingError
from localmind.settings import Settings, generation_options
from localmind.viewmodels.open_conversation import DocumentsTurns, OpenConversation, _Turn
from localmind.viewmodels.reply_saver import ReplySaver, change_problem, message_problem
from localmind.workers.inference import InferenceService

log = logging.getLogger(__name__)

SAVE_INTERVAL_MS = 500
# Closing waits at most this long for the engine to end a turn in flight (it stops within one step, ~0.1 s).
SHUTDOWN_STOP_WAIT_S = 1.5
TITLE_CHARS = 48


def title_from(text: str) -> str:
    """A conversation title from its first message: the first line, shortened."""
    for line in text.splitlines():
        words = " ".join(line.split())
        if words:
            return words if len(words) <= TITLE_CHARS else words[: TITLE_CHARS - 1].rstrip() + "…"
    return "New chat"


class ChatSession(OpenConversation):
    """Sends messages, streams replies into the store and tells the views what changed (the signals are
    ``OpenConversation``'s)."""

    def __init__(
        self,
        store: ConversationStore,
        service: InferenceService,
        settings: Settings,
        parent: QObject | None = None,
        *,
        documents: DocumentsTurns | None = None,
    ) -> None:
        super().__init__(store, service, settings, parent, documents=documents)
        self._submitted_at: float | None = None
        self._save_timer = QTimer(self)
        self._save_timer.setInterval(SAVE_INTERVAL_MS)
        self._save_timer.timeout.connect(self.save_partial_reply)
        # Answers whose final save failed (full disk, lock, read-only) live here until they are stored.
        self.saver = ReplySaver(store, self)

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
        """Answer the last question again; the answer there now is kept as another version (‹ 1/2 ›)."""
        if self.generating or self._closed or self.conversation is None or self.model is None:
            return False
        users = [m for m in self.messages if m.role == "user"]
        if not users:
            return False
        answer = next((m for m in self.messages if m.position > users[-1].position and m.role == "assistant"), None)
        try:
            if answer is None:  # an unanswered question: a first answer
                self.store.delete_messages_after(self.conversation.id, users[-1].position)
                reply = None
            else:
                reply = self.store.new_version(answer.id)
            self._reload_messages(leave_out=reply.id if reply is not None else None)
        except UserFacingError as exc:
            self.error.emit(
                self.tr("No answer was generated."), change_problem(classify(exc), self.store.path.parent, str(exc))
            )
            return False
        return self._start_turn(user_message=None, reply=reply)

    def choose_version(self, message_id: int, version: int) -> bool:
        """Show another version of an answer; the model reads the one shown from the next turn on."""
        if self.generating or self._closed or not any(m.id == message_id for m in self.messages):
            return False
        try:
            chosen = self.store.choose_version(message_id, version)
        except UserFacingError as exc:
            self.error.emit(
                self.tr("The answer could not be changed."),
                change_problem(classify(exc), self.store.path.parent, str(exc)),
            )
            return False
        self.messages = [chosen if m.id == message_id else m for m in self.messages]
        self.message_updated.emit(chosen)
        self.request_context_usage()
        return True

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
        if turn.first_text_at is None:
            turn.first_text_at = time.monotonic()
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
        self._take_back_reply(turn, first_gone)
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

    def _drop_empty_reply(self, turn: _Turn) -> None:
        """Remove a reply that never got a word; the question stays, with "Answer again" under it."""
        self._finish_turn_state()
        self._take_back_reply(turn, turn.reply.position)
        if self.conversation_id == turn.conversation_id:
            self._reload_messages()
        self.request_context_usage()

    def _take_back_reply(self, turn: _Turn, first_gone: int) -> None:
        """Remove a reply that never got a word, and what follows ``first_gone``; a new version of an answer gives
        its place back to the version before it."""
        try:
            if turn.user_message is None and turn.reply.versions > 1:
                self.store.discard_version(turn.reply.id)
            else:
                self.store.delete_messages_after(turn.conversation_id, first_gone - 1)
        except UserFacingError as exc:
            log.warning("Could not remove the unanswered reply: %s", exc)

    def _abandon_turn(self) -> None:
        """Stop the turn now and keep its text as "stopped" (closing, or its conversation is going away)."""
        turn = self._turn
        if turn is None:
            return
        self.service.cancel()
        self._end_turn(turn, "stopped", turn.measured_stats())

    def _let_turn_stop(self, wait_s: float) -> None:
        """Stop the turn in flight and give the engine up to ``wait_s`` to end it, so that a reply cut by quitting
        keeps the engine's own figures (tokens, speed) as a reply stopped with Esc does. Only the service's events
        are waited for: user input stays queued."""
        turn = self._turn
        if turn is None:
            return
        self.service.cancel()
        deadline = time.monotonic() + wait_s
        while self._turn is turn and time.monotonic() < deadline:
            QCoreApplication.processEvents(QEventLoop.ProcessEventsFlag.ExcludeUserInputEvents, 20)
            if self._turn is turn:
                time.sleep(0.005)

    def shutdown(self) -> None:
        """Stop and save the turn in flight, retry answers not stored yet; the session takes no new turns after this.

        Closed first: ending the turn tells listeners the session is idle, and one that sends a queued message
        then must be refused, or its turn would outlive the store.
        """
        self._closed = True
        self._let_turn_stop(SHUTDOWN_STOP_WAIT_S)
        self._abandon_turn()  # an engine that did not answer in time: the session's own figures are kept
        unsaved = self.saver.flush()
        if unsaved:
            log.error("%d answer(s) could not be stored before closing (messages %s)", len(unsaved), unsaved)
