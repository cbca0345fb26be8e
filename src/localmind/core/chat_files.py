"""Conversations out to Markdown (to read) and JSON (to keep), and JSON back in.

The JSON format is ours and versioned::

    {"format": "localmind-conversations", "version": 1, "exported_at": "...", "app": "...",
     "conversations": [{"id", "title", "created_at", "updated_at", "system_prompt", "settings", "model",
                        "messages": [{"role", "content", "created_at", "status", "stats"}]}]}

Times are seconds since the epoch as JSON numbers, which round-trip exactly. An
import checks the whole file before it writes anything and is all or nothing. It
goes by conversation id, so the same file imported twice changes nothing (see
``ConversationStore.merge_conversations``). What comes from a file is not trusted:
titles become one line of sane length, times must fall between 1970 and 9999,
and nesting deep enough to exhaust Python's stack is refused with a clear error.
"""

from __future__ import annotations

import functools
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from types import UnionType
from typing import Any, Literal, Union, get_args, get_origin

from localmind import APP_NAME, __version__
from localmind.core.conversations import (
    Conversation,
    ImportResult,
    Message,
    MessageStatus,
    MessageVersion,
    Role,
    answer_sources,
    source_label,
    without_sources_line,
)
from localmind.core.store import DAMAGED, ConversationStore, StoreError
from localmind.errors import Phrase, UserFacingError
from localmind.schema import ABSENT, Invalid, parse, spec

FORMAT = "localmind-conversations"
FORMAT_VERSION = 1

Exported = tuple[Conversation, list[Message]]

TITLE_MAX_CHARS = 120
LATEST_TIME = 253_402_300_799.0  # 9999-12-31 23:59:59 UTC: later cannot be shown as a date


class ImportFileError(UserFacingError):
    """The file to import is not a LocalMind conversation export, or is damaged."""


def collect(store: ConversationStore, conversation_ids: Sequence[str] | None = None) -> list[Exported]:
    """The given conversations (in the trash or not) or, with ``None``, every one not in the trash."""
    conversations = (
        store.list_conversations()
        if conversation_ids is None
        else [store.get_conversation(i) for i in conversation_ids]
    )
    return [(c, _with_versions(store, store.messages(c.id))) for c in conversations]


def _with_versions(store: ConversationStore, messages: list[Message]) -> list[Message]:
    """The messages, each with the versions of it that are not shown (an export keeps them)."""
    return [replace(m, kept_versions=tuple(store.versions(m.id))) if m.versions > 1 else m for m in messages]


def collect_readable(
    store: ConversationStore, conversation_ids: Sequence[str] | None = None
) -> tuple[list[Exported], list[tuple[str, str]]]:
    """Like :func:`collect`, but a damaged database still gives every conversation it can read.

    Returns the conversations read and, for each one that could not be, its (id, title or "").
    """
    if conversation_ids is not None:
        wanted = [(i, "") for i in conversation_ids]
    else:
        try:
            wanted = [(c.id, c.title) for c in store.list_conversations()]
        except StoreError as exc:
            if exc.kind != DAMAGED:
                raise
            wanted = _ids_the_hard_way(store)
    items: list[Exported] = []
    unreadable: list[tuple[str, str]] = []
    for id, title in wanted:
        try:
            conversation = store.get_conversation(id)
            items.append((conversation, _with_versions(store, store.messages(id))))
        except StoreError as exc:
            if exc.kind != DAMAGED:
                raise
            unreadable.append((id, title))
    return items, unreadable


def _ids_the_hard_way(store: ConversationStore) -> list[tuple[str, str]]:
    """Conversation ids and titles read range by range, when the list as a whole cannot be read."""
    return [(id, title) for id, title, deleted_at in store.readable_conversation_rows() if deleted_at is None]


# --- JSON -------------------------------------------------------------------------------------------


def to_json_data(items: Sequence[Exported]) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "version": FORMAT_VERSION,
        "exported_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "app": f"{APP_NAME} {__version__}",
        "conversations": [
            {
                "id": c.id,
                "title": c.title,
                "created_at": c.created_at,
                "updated_at": c.updated_at,
                "system_prompt": c.system_prompt,
                "settings": c.settings,
                "model": c.model,
                "messages": [_message_json(m) for m in messages],
            }
            for c, messages in items
        ],
    }


def _message_json(m: Message) -> dict[str, Any]:
    data: dict[str, Any] = {
        "role": m.role,
        "content": m.content,
        "created_at": m.created_at,
        "status": m.status,
        "stats": m.stats,
    }
    if m.kept_versions:  # a regenerated answer: which version is shown, and the others (older readers ignore both)
        data["version"] = m.version
        data["versions"] = [
            {
                "version": v.version,
                "content": v.content,
                "created_at": v.created_at,
                "status": v.status,
                "stats": v.stats,
            }
            for v in m.kept_versions
        ]
    return data


def to_json(items: Sequence[Exported]) -> str:
    return json.dumps(to_json_data(items), ensure_ascii=False, indent=2, allow_nan=False) + "\n"


# --- reading: the shapes, checked by LocalMind's shared validator (localmind.schema) ---------------------------------
# Keys these shapes do not declare are skipped (``extra="ignore"``): a newer LocalMind may add some, as "version" and
# "versions" were added to messages. ABSENT marks a value whose default depends on another field, filled in below.


@dataclass(kw_only=True, slots=True)  # not frozen: built once per message, where frozen costs
class _VersionIn:
    content: str
    stats: dict[str, Any] | None = None
    status: MessageStatus = "complete"
    version: int = 0
    created_at: float = spec(ABSENT, ge=0, le=LATEST_TIME)  # default: the message's time


@dataclass(kw_only=True, slots=True)
class _MessageIn:
    role: Role
    created_at: float = spec(ABSENT, ge=0, le=LATEST_TIME)  # default: the conversation's time
    content: str
    stats: dict[str, Any] | None = None
    versions: list[_VersionIn] = field(default_factory=list)
    version: int = ABSENT  # default: after the kept versions
    status: MessageStatus = "complete"


@dataclass(kw_only=True, slots=True)
class _ConversationIn:
    created_at: float = spec(ABSENT, ge=0, le=LATEST_TIME)  # default: now
    id: str = ""
    title: str
    updated_at: float = spec(ABSENT, ge=0, le=LATEST_TIME)  # default: created_at
    system_prompt: str = ""
    settings: dict[str, Any] = field(default_factory=dict)
    model: str | None = None
    messages: list[_MessageIn]


@dataclass(kw_only=True, slots=True)
class _ExportIn:
    conversations: list[_ConversationIn]  # "format" and "version" are checked before (parse_json)


_TIME_PROBLEMS = ("greater_than_equal", "less_than_equal", "finite_number")


def _refusal(source: str, where: str, problem: Any) -> ImportFileError:
    return ImportFileError.say(
        "{file} cannot be imported: {where} {problem}.",
        "Use a file made by LocalMind's JSON export (localmind export --format json), unchanged.",
        file=source,
        where=where,
        problem=problem,
    )


def _where(loc: tuple[str | int, ...]) -> str:
    if len(loc) == 1:
        return f'"{loc[0]}"'
    return "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in loc).lstrip(".")


def _expected_names(tp: Any) -> list[str]:
    if get_origin(tp) in (Union, UnionType):
        return list(dict.fromkeys(name for member in get_args(tp) for name in _expected_names(member)))
    if tp is type(None):
        return ["null"]
    if tp is str or get_origin(tp) is Literal:
        return [_JSON_NAMES[str]]
    if tp in (int, float):
        return [_JSON_NAMES[int]]
    if tp is list or get_origin(tp) is list:
        return [_JSON_NAMES[list]]
    return [_JSON_NAMES[dict]]  # a dict or one of the shapes above


def _import_problem(source: str, problem: Invalid) -> ImportFileError:
    """The shared validator's finding, in the import's own (translated) words."""
    where, value = _where(problem.loc), problem.value
    if problem.kind == "missing":
        return _refusal(source, where, Phrase("is missing"))
    if problem.kind == "literal_error":
        allowed = ", ".join(get_args(problem.expected))
        return _refusal(
            source, where, Phrase("is {value}, expected one of {allowed}", value=repr(value), allowed=allowed)
        )
    if problem.kind in _TIME_PROBLEMS:
        shown = f"{value:.6g}" if isinstance(value, float) or abs(value) < 10**300 else "∞"
        return _refusal(
            source, where, Phrase("is not a time between 1970 and 9999 in seconds since 1970 ({value})", value=shown)
        )
    names = _expected_names(problem.expected)
    either = functools.reduce(lambda a, b: Phrase("{first} or {second}", first=a, second=b), names)
    return _refusal(source, where, Phrase("should be {kinds}, not {found}", kinds=either, found=_json_type(value)))


def clean_title(text: str) -> str:
    """A title from outside: its first non-empty line, spaces and control characters collapsed, at most 120 characters."""
    for line in text.splitlines():
        words = " ".join("".join(ch if ch.isprintable() else " " for ch in line).split())
        if words:
            return words if len(words) <= TITLE_MAX_CHARS else words[: TITLE_MAX_CHARS - 1].rstrip() + "…"
    return "New chat"


_JSON_NAMES: dict[type, str] = {
    str: Phrase("text"),
    int: Phrase("a number"),
    float: Phrase("a number"),
    dict: Phrase("an object"),
    list: Phrase("a list"),
}


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    return _JSON_NAMES.get(type(value), type(value).__name__)


def _reject_constant(name: str) -> Any:
    # Python's json reads NaN and Infinity, which are not JSON and cannot be stored back.
    raise ValueError(f"{name} is not a JSON value")


def parse_json(text: str | bytes, source: str = "The file") -> list[Exported]:
    """Check an export completely and return its conversations; :class:`ImportFileError` says what is wrong."""
    data = _decode(text, source)
    version = data.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise _refusal(source, "version", Phrase("is {value}, expected a whole number", value=repr(version)))
    if version > FORMAT_VERSION:
        raise ImportFileError.say(
            "{file} was made by a newer LocalMind (format version {version}; this one reads {known}).",
            "Update LocalMind, then import it again.",
            file=source,
            version=version,
            known=FORMAT_VERSION,
        )
    try:
        export = parse(_ExportIn, data, extra="ignore")
    except Invalid as problem:
        raise _import_problem(source, problem) from None
    now = time.time()
    return [_conversation(raw, now) for raw in export.conversations]


def _decode(text: str | bytes, source: str) -> dict[str, Any]:
    """The file's JSON, if it is JSON with LocalMind's header."""
    try:
        data = json.loads(text, parse_constant=_reject_constant)
    except UnicodeDecodeError as exc:
        raise ImportFileError.say(
            "{file} cannot be imported: its text is not UTF-8 ({reason}).",
            "Use a file made by LocalMind's JSON export (localmind export --format json), unchanged.",
            file=source,
            reason=exc.reason,
        ) from exc
    except RecursionError as exc:
        raise ImportFileError.say(
            "{file} cannot be imported: it is nested too deeply to be a LocalMind export.",
            "Use a file made by LocalMind's JSON export (localmind export --format json), unchanged.",
            file=source,
        ) from exc
    except ValueError as exc:
        raise ImportFileError.say(
            "{file} is not JSON ({reason}).",
            "Pick a file made by LocalMind's JSON export; Markdown exports cannot be imported.",
            file=source,
            reason=exc,
        ) from exc
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ImportFileError.say(
            '{file} is not a LocalMind conversation export (no "format": "{format}" header).',
            "Pick a file made by LocalMind's JSON export.",
            file=source,
            format=FORMAT,
        )
    return data


def _conversation(raw: _ConversationIn, now: float) -> Exported:
    created = now if raw.created_at is ABSENT else raw.created_at
    conversation = Conversation(
        id=raw.id,
        title=clean_title(raw.title),
        created_at=created,
        updated_at=created if raw.updated_at is ABSENT else raw.updated_at,
        system_prompt=raw.system_prompt,
        settings=raw.settings,
        model=raw.model,
    )
    messages = [_message(m, conversation, j) for j, m in enumerate(raw.messages)]
    conversation.message_count = len(messages)
    return conversation, messages


def _message(m: _MessageIn, conversation: Conversation, position: int) -> Message:
    created = conversation.created_at if m.created_at is ABSENT else m.created_at
    # An export made before sources were metadata has the sources line in the text: it comes in without it.
    content, stats = without_sources_line(m.content, m.stats)
    kept = [_version(v, created) for v in m.versions]
    # Versions are numbered 0..n-1 here whatever the file says: the one shown keeps its place among them.
    shown = len(kept) if m.version is ABSENT else m.version
    order = sorted([(v.version, 1, v) for v in kept] + [(shown, 0, None)], key=lambda x: (x[0], x[1]))
    number = next(i for i, item in enumerate(order) if item[2] is None)
    renumbered = tuple(replace(item[2], version=i) for i, item in enumerate(order) if item[2] is not None)
    return Message(
        id=0,
        conversation_id=conversation.id,
        position=position,
        role=m.role,
        content=content,
        created_at=created,
        status=m.status,
        stats=stats,
        version=number,
        versions=len(renumbered) + 1,
        kept_versions=renumbered,
    )


def _version(v: _VersionIn, default_time: float) -> MessageVersion:
    content, stats = without_sources_line(v.content, v.stats)
    return MessageVersion(
        version=v.version,
        content=content,
        created_at=default_time if v.created_at is ABSENT else v.created_at,
        status="stopped" if v.status == "streaming" else v.status,
        stats=stats,
    )


def import_json(store: ConversationStore, text: str | bytes, source: str = "The file") -> list[Conversation]:
    """Import every conversation in an export into ``store``; returns those added or changed, as stored."""
    return merge_json(store, text, source).changed


def merge_json(store: ConversationStore, text: str | bytes, source: str = "The file") -> ImportResult:
    """Import an export by conversation id; the result says what was added, updated, skipped or copied."""
    return store.merge_conversations(parse_json(text, source))


def read_file(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise UserFacingError.say(
            "Cannot read {path}: {reason}.", "Check the file name.", path=path, reason=exc.strerror or exc
        ) from exc


def import_file(store: ConversationStore, path: Path) -> list[Conversation]:
    return import_json(store, read_file(path), str(path))


# --- Markdown ---------------------------------------------------------------------------------------

_ROLE_HEADINGS = {"user": "You", "assistant": "Assistant", "system": "System"}
_STATUS_NOTES = {"stopped": "(stopped before the end)", "error": "(generation failed)", "streaming": "(unfinished)"}


def _when(ts: float) -> str:
    return datetime.fromtimestamp(ts).astimezone().strftime("%Y-%m-%d %H:%M")


def _quote(text: str) -> str:
    return "\n".join(f"> {line}" if line else ">" for line in text.splitlines())


def conversation_markdown(conversation: Conversation, messages: Sequence[Message]) -> str:
    """One conversation as a Markdown document meant for people; message text is kept as written."""
    details = [f"Started {_when(conversation.created_at)}", f"last message {_when(conversation.updated_at)}"]
    if conversation.model:
        details.append(f"model {conversation.model}")
    parts = [f"# {conversation.title}", f"*{', '.join(details)}*"]
    if conversation.system_prompt:
        parts.append("**System prompt**\n\n" + _quote(conversation.system_prompt))
    for m in messages:
        heading = f"## {_ROLE_HEADINGS[m.role]}"
        if m.status in _STATUS_NOTES:
            heading += f" {_STATUS_NOTES[m.status]}"
        parts.append(heading)
        parts.append(m.content.strip("\n"))
        sources = answer_sources(m.stats) if m.role == "assistant" else None
        if sources:
            parts.append("*Sources: " + "; ".join(f"[{s['number']}] {source_label(s)}" for s in sources) + "*")
    return "\n\n".join(parts) + "\n"


def to_markdown(items: Sequence[Exported]) -> str:
    return "\n---\n\n".join(conversation_markdown(c, messages) for c, messages in items)
