"""Conversations and messages as plain data, the shape the store hands to the rest of the app.

These are snapshots: changing a field changes nothing on disk. Every change goes
through :class:`localmind.core.store.ConversationStore`, which returns fresh ones.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, get_args

Role = Literal["system", "user", "assistant"]
MessageStatus = Literal["complete", "streaming", "stopped", "error"]

ROLES: tuple[str, ...] = get_args(Role)
MESSAGE_STATUSES: tuple[str, ...] = get_args(MessageStatus)

# Keys a conversation's ``settings`` may carry; anything else is kept but ignored
# when generation options are built (see localmind.settings.generation_options).
CONVERSATION_SETTING_KEYS = ("temperature", "top_p", "top_k", "max_new_tokens", "repetition_penalty", "preset")


@dataclass
class Conversation:
    """One chat. ``settings`` holds per-conversation overrides of the app's generation defaults.

    Attributes:
        id: uuid4 hex, stable for the life of the conversation (imports get new ones).
        created_at, updated_at: seconds since the epoch; ``updated_at`` moves when a message is added.
        model: the model folder or id last used in this conversation, if any.
        message_count: number of messages when the snapshot was taken.
        deleted_at: set when the conversation is in the trash (soft delete), else ``None``.
    """

    id: str
    title: str
    created_at: float
    updated_at: float
    system_prompt: str = ""
    settings: dict[str, Any] = field(default_factory=dict)
    model: str | None = None
    message_count: int = 0
    deleted_at: float | None = None

    @property
    def is_deleted(self) -> bool:
        return self.deleted_at is not None


@dataclass
class Message:
    """One turn. ``position`` orders messages in a conversation, from 0, without gaps.

    Attributes:
        status: "streaming" while a reply is being written; "stopped" when the user stopped it
            or the app ended before it finished (its text is kept); "error" when generation failed.
        stats: what the engine reported for an assistant reply (tokens/s, time to first token...), and its
            sources when it was answered from the user's documents (see ``SOURCES_KEY``).
        version, versions: an answer that was regenerated has several versions; this is the one shown (from 0),
            of ``versions``. The others are read with ``ConversationStore.versions``.
    """

    id: int
    conversation_id: str
    position: int
    role: Role
    content: str
    created_at: float
    status: MessageStatus = "complete"
    stats: dict[str, Any] | None = None
    version: int = 0
    versions: int = 1
    # The versions not shown, when they were read for an export or from one (store reads leave this empty).
    kept_versions: tuple[MessageVersion, ...] = ()


@dataclass(frozen=True)
class MessageVersion:
    """A version of an answer that is not the one shown (see ``ConversationStore.versions``)."""

    version: int
    content: str
    created_at: float
    status: MessageStatus
    stats: dict[str, Any] | None = None


@dataclass
class SearchHit:
    """A search result: a message (``message_id`` set) or a conversation's title (``message_id is None``).

    Attributes:
        snippet: plain text around the first match, safe to show as is.
        rank: smaller is a better match; hits come back best first.
        match_spans: ``(start, end)`` character offsets of the matched text within ``snippet``.
    """

    conversation_id: str
    conversation_title: str
    message_id: int | None
    snippet: str
    rank: float
    match_spans: tuple[tuple[int, int], ...] = ()


@dataclass
class ImportResult:
    """What an import did with each conversation it read, by the conversation's id.

    Attributes:
        added: new here (kept their id from the file when it was free).
        updated: already here with fewer messages; the new ones were added at the end.
        skipped: already here with the same messages (or more): nothing to do.
        copied: already here but different (both were changed since): added beside it under a new id.
    """

    added: list[Conversation] = field(default_factory=list)
    updated: list[Conversation] = field(default_factory=list)
    skipped: list[Conversation] = field(default_factory=list)
    copied: list[Conversation] = field(default_factory=list)

    @property
    def changed(self) -> list[Conversation]:
        """Conversations now in the store that were not there (or not like this) before, newest first in file order."""
        return [*self.added, *self.copied, *self.updated]


# An answer's sources (the passages of the user's documents it cites) are its metadata: ``stats["sources"]``, a list
# of {"number", "file", "page", "text", "chunk_id"}; an empty list means documents were searched and none matched.
# The window shows them under the answer in the user's language; they are not part of the text (not copied, not
# searched, not sent back to the model).
SOURCES_KEY = "sources"
# Before schema 3 the sources line was appended to the text, from this offset on (recorded in the stats).
LEGACY_SOURCES_AT_KEY = "sources_at"


def without_sources_line(content: str, stats: dict[str, Any] | None) -> tuple[str, dict[str, Any] | None]:
    """An answer stored (or exported) with its sources line in the text: the text without it, the stats without
    the offset. Anything else comes back unchanged."""
    if not isinstance(stats, dict) or LEGACY_SOURCES_AT_KEY not in stats:
        return content, stats
    at = stats[LEGACY_SOURCES_AT_KEY]
    rest = {k: v for k, v in stats.items() if k != LEGACY_SOURCES_AT_KEY}
    if isinstance(at, int) and not isinstance(at, bool) and 0 <= at <= len(content):
        content = content[:at]
    return content, rest


def source_label(source: dict[str, Any]) -> str:
    """ "notes.pdf p. 3" for one recorded source (the file's name, and its page when it has pages)."""
    name = str(source.get("file", "")).replace("\\", "/").rsplit("/", 1)[-1]
    page = source.get("page")
    return f"{name} p. {page}" if isinstance(page, int) and not isinstance(page, bool) else name


def answer_sources(stats: dict[str, Any] | None) -> list[dict[str, Any]] | None:
    """The sources recorded for an answer (``[]``: none matched), or None when it was not answered from documents."""
    raw = stats.get(SOURCES_KEY) if isinstance(stats, dict) else None
    if not isinstance(raw, list):
        return None
    return [s for s in raw if isinstance(s, dict) and isinstance(s.get("number"), int)]
