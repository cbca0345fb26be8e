"""Documents in the window's chats: passages for each question, stored with the messages, sources under the answer.

The passages a question was asked with are saved in that user message's ``stats`` (``documents_prompt``), and the
numbered sources in the answer's (``sources``), so a conversation reads the same to the model on every later turn
(the engine's KV cache stays valid: see ``prompting``), regenerate and restart included, and an export records which
sources were given and cited. The answer's sources are its metadata, never its text: the window shows them under it
in the user's language, as links (``localmind-source:<chunk id>``) that open the passage; they are not copied with
the answer, not found by search and not read by the model. With no documents added, "Use my documents" changes
nothing: no instruction, no search, no sources (the window says once that there are none yet).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from localmind.core.conversations import Message
from localmind.documents.index import DocumentIndex
from localmind.documents.library import Library
from localmind.documents.prompting import ConversationSources, Source, cited, instruction_for
from localmind.documents.search import Passage
from localmind.engine.prompt_builder import order_passages

log = logging.getLogger(__name__)

FOUND_KEY, SHORTENED_KEY = "passages_found", "passages_shortened"
# In an answer's stats: how many of its question's passages were in the prompt read ahead while it was typed, in the
# same places (the engine kept what it had read of them: its ``reused_tokens`` cover them).
READ_AHEAD_KEY = "passages_read_ahead"
PassageKey = tuple[str, int | None, str]

SOURCE_SCHEME = "localmind-source"
PROMPT_KEY, QUESTION_KEY, SOURCES_KEY, SOURCES_AT_KEY = (
    "documents_prompt",
    "documents_question",
    "sources",
    "sources_at",
)


class DocumentsChat:
    """Owned by the app; ``enabled`` follows the "Use my documents" switch, ``collections`` the chosen ones."""

    def __init__(
        self,
        library: Library,
        save_stats: Callable[[int, dict[str, Any]], None],
        fits: Callable[[str], bool] | None = None,
    ) -> None:
        self.library = library
        self.save_stats = save_stats  # ConversationStore.update_message(id, stats=...)
        self.enabled = False
        self.collections: list[str] = []
        self.last_turn: list[Source] | None = None  # the sources of the turn being answered; [] = no match
        self.fits = fits  # whether new passages fit the loaded model's context (None: all that were found)
        # The last read-ahead (issue 19): the ids of the messages it followed, and its passages in prompt order.
        # Replaced whole (one assignment): the engine service's thread writes it, the window's thread reads it.
        self._ahead: tuple[tuple[int, ...], list[PassageKey]] | None = None
        self._readers = threading.local()  # the read-ahead's own index connection, on the engine service's thread
        # The read-ahead's last search: (its text, the collections, the index's state, the passages found). Enter
        # reuses them when the question as sent is that text and the index has not changed since: no search on the
        # window's thread then (a question's embedding, with semantic search on, costs tens of ms there).
        self._searched: tuple[str, tuple[str, ...], int | None, list[Passage]] | None = None
        self.last_read_ahead: int | None = None  # passages of the turn being answered that the read-ahead had in place

    def has_documents(self) -> bool:
        """Whether anything is indexed: with nothing, "Use my documents" has nothing to add to a turn."""
        try:
            return self.library.index.db.execute("SELECT 1 FROM chunks LIMIT 1").fetchone() is not None
        except Exception:  # a broken index must not stop the chat
            log.warning("could not read the document index", exc_info=True)
            return False

    @property
    def active(self) -> bool:
        """On, and there is something to read."""
        return self.enabled and self.has_documents()

    # -- what the model reads -------------------------------------------------------------------------------
    def system(self, system_prompt: str, messages: list[Message]) -> str:
        if self.active or any((m.stats or {}).get(PROMPT_KEY) for m in messages):
            return instruction_for(system_prompt, self.fits)  # a small context gets a short one, or none
        return system_prompt

    @staticmethod
    def content_for_model(message: Message) -> str:
        stats = message.stats or {}
        if message.role == "user" and stats.get(PROMPT_KEY) and stats.get(QUESTION_KEY) == message.content:
            return str(stats[PROMPT_KEY])
        if message.role == "assistant" and isinstance(stats.get(SOURCES_AT_KEY), int):
            return message.content[: stats[SOURCES_AT_KEY]]
        return message.content

    def passage_tokens(self, system_prompt: str, messages: list[Message], count: Callable[[str], int]) -> int:
        """Tokens the documents add to what the model reads in this conversation: the instruction in the system part
        and the passages given with each question (counted as the prompt with them less the question alone)."""
        total = 0
        with_documents = self.system(system_prompt, messages)
        if with_documents != system_prompt:
            total += max(0, count(with_documents) - count(system_prompt))
        for m in messages:
            stats = m.stats or {}
            if (
                m.role == "user"
                and m.status != "error"
                and stats.get(PROMPT_KEY)
                and stats.get(QUESTION_KEY) == m.content
            ):
                total += max(0, count(str(stats[PROMPT_KEY])) - count(m.content))
        return total

    # -- reading ahead (issue 19) ------------------------------------------------------------------------------
    def read_ahead_turn(self, messages: list[Message], draft: str) -> str | None:
        """The user's turn as it would be sent if ``draft`` were the question (passages first, then the question),
        for the engine to read while the question is typed; None when documents add nothing. Run on the engine
        service's thread. Passages of the previous read-ahead that are found again keep their places, so the
        tokens read for them stay valid (``order_passages``)."""
        if not draft.strip() or not self.enabled:
            return None
        try:
            reader = self._reader()
            if reader.index.db.execute("SELECT 1 FROM chunks LIMIT 1").fetchone() is None:
                return None  # nothing indexed: the draft alone, as a send would read it
        except Exception:
            log.warning("could not read the document index ahead", exc_info=True)
            return None
        earlier = tuple(m.id for m in messages)
        previous = self._ahead[1] if self._ahead is not None and self._ahead[0] == earlier else []
        found = self._search(draft, reader)
        self._searched = (draft, tuple(self.collections), _state(reader), found)
        passages = _in_place(previous, found)
        turn = _numbered_before(messages, None).prepare(draft, passages, self.fits)
        self._ahead = (earlier, [_key(s) for s in turn.sources])
        return turn.prompt

    def _reader(self) -> Library:
        """The library as this thread searches it: a DocumentIndex is one thread's at a time, so the read-ahead's
        thread opens its own read-only connection (kept for the thread's life), with the same embedder."""
        reader: Library | None = getattr(self._readers, "library", None)
        if reader is None or reader.index.path != self.library.index.path:
            reader = Library(DocumentIndex(self.library.index.path, read_only=True))
            self._readers.library = reader
        reader.embedder = self.library.embedder
        return reader

    def _search(self, text: str, library: Library | None = None) -> list[Passage]:
        try:
            return (library or self.library).search(text, collections=self.collections or None)
        except Exception:  # a broken index must not stop the chat: answer without documents, say nothing matched
            log.warning("document search failed", exc_info=True)
            return []

    # -- a turn ---------------------------------------------------------------------------------------------
    def before_turn(self, messages: list[Message]) -> list[Message]:
        """Find passages for the last question (once; regenerate reuses them). Returns the messages, updated."""
        self.last_turn = self.last_read_ahead = None
        users = [m for m in messages if m.role == "user"]
        if not users or not self.active:
            return messages
        question = users[-1]
        stats = question.stats or {}
        if stats.get(PROMPT_KEY) and stats.get(QUESTION_KEY) == question.content:
            self.last_turn = [Source.from_json(s) for s in stats.get(SOURCES_KEY, [])]
            return messages
        earlier = tuple(m.id for m in messages[: messages.index(question)])
        ahead = self._ahead
        previous = ahead[1] if ahead is not None and ahead[0] == earlier else []
        # Searched once more for the question as sent (unless the read-ahead searched just that, in the index as it
        # is); the passages the read-ahead found keep their places.
        searched = self._searched
        if (
            searched is not None
            and searched[:2] == (question.content, tuple(self.collections))
            and searched[2] is not None
            and searched[2] == _state(self.library)
        ):
            found = searched[3]
        else:
            found = self._search(question.content)
        passages = _in_place(previous, found)
        turn = _numbered_before(messages, question.id).prepare(question.content, passages, self.fits)
        if previous:
            self.last_read_ahead = _common_prefix(previous, [_key(s) for s in turn.sources])
        chunk_ids = {(p.file, p.page, p.text): p.chunk_id for p in passages}
        sources = [{**s.as_json(), "chunk_id": chunk_ids.get((s.file, s.page, s.text))} for s in turn.sources]
        new_stats = {**stats, PROMPT_KEY: turn.prompt, QUESTION_KEY: question.content, SOURCES_KEY: sources}
        if turn.left_out or turn.shortened:  # how many of the passages found the context had room for
            new_stats[FOUND_KEY], new_stats[SHORTENED_KEY] = turn.found, turn.shortened
        self.save_stats(question.id, new_stats)
        self.last_turn = turn.sources
        updated = replace(question, stats=new_stats)
        return [updated if m.id == question.id else m for m in messages]

    def after_turn(
        self, messages: list[Message], text: str, stats: dict[str, Any] | None
    ) -> tuple[str, dict[str, Any] | None]:
        """The answer's text as it is, and its stats with the sources it cites (``[]``: nothing matched)."""
        if self.last_turn is None or not text:
            return text, stats
        users = [m for m in messages if m.role == "user"]
        raw = {s["number"]: s for s in ((users[-1].stats or {}).get(SOURCES_KEY, []) if users else [])}
        used = cited(text, self.last_turn)
        self.last_turn = None
        recorded = [{**s.as_json(), "chunk_id": raw.get(s.number, {}).get("chunk_id")} for s in used]
        new_stats = {**(stats or {}), SOURCES_KEY: recorded}
        if self.last_read_ahead is not None:
            new_stats[READ_AHEAD_KEY] = self.last_read_ahead
        return text, new_stats

    def passage(self, chunk_id: int) -> Passage | None:
        row = self.library.index.db.execute(
            "SELECT c.id, f.path, c.page, c.text, f.collection FROM chunks c JOIN files f ON f.id = c.file_id"
            " WHERE c.id = ?",
            (chunk_id,),
        ).fetchone()
        return Passage(row[0], row[1], row[2], row[3], 0.0, row[4]) if row else None


def _state(library: Library) -> int | None:
    """The index's generation (it changes with every committed write); None when it cannot be read."""
    try:
        return library.index.generation()
    except Exception:
        return None


def _key(p: Passage | Source) -> PassageKey:
    return (p.file, p.page, p.text)


def _in_place(previous: list[PassageKey], found: list[Passage]) -> list[Passage]:
    """``found`` in the order that keeps the previous read-ahead's passages where they were (``order_passages``,
    by file, page and text: a new search scores them anew)."""
    if not previous:
        return found
    by_key = {_key(p): p for p in found}
    return [by_key[k] for k in order_passages(previous, list(by_key))]


def _common_prefix(a: list[PassageKey], b: list[PassageKey]) -> int:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n


def _numbered_before(messages: list[Message], question_id: int | None) -> ConversationSources:
    """The sources given with the questions before ``question_id`` (all of ``messages`` with None), by number."""
    numbered = ConversationSources()
    for m in messages:
        if m.id == question_id:
            break
        for raw in (m.stats or {}).get(SOURCES_KEY, []) if m.role == "user" else []:
            source = Source.from_json(raw)
            if all(s.number != source.number for s in numbered.sources):
                numbered.sources.append(source)
    numbered.sources.sort(key=lambda s: s.number)
    return numbered
