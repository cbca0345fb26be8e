"""Cutting answer text into prose runs and fenced code blocks, whole or while it streams (no Qt).

Fenced code is cut out before Qt's Markdown reader sees the text, so each code block can be shown by
its own widget with highlighting and a copy button.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_FENCE_OPEN = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>[^\n]*)$")
# An unfinished line longer than this (a model writing one endless paragraph, or looping) is cut at a
# sentence end and settled, so the still-growing tail, which is re-rendered per batch, stays short.
LONG_LINE_CUT = 1000
# Leading whitespace beyond this is dropped before anything else looks at a line: 2,000 nested list levels are 4 MB
# of spaces, and every later step (fences, Markdown) costs per character (issue 10.8). No real code nests this deep.
MAX_LEADING_WHITESPACE = 64
_DEEP_INDENT = re.compile(rf"^([ \t]{{{MAX_LEADING_WHITESPACE}}})[ \t]+", re.MULTILINE)
_SENTENCE_END = re.compile(r"[.!?;:。！？；…](?=\s)|[。！？；]")


@dataclass
class ProseBlock:
    text: str


@dataclass
class CodeBlock:
    code: str
    language: str
    closed: bool = True


Block = ProseBlock | CodeBlock


def _fence_open(line: str) -> tuple[str, int, str] | None:
    """(fence characters, indent, language) when ``line`` opens a fenced code block."""
    m = _FENCE_OPEN.match(line)
    if m is None:
        return None
    fence, info = m.group("fence"), m.group("info").strip()
    if fence[0] == "`" and "`" in info:
        return None  # CommonMark: a backtick fence's info string may not hold backticks (that is inline code)
    language = info.split()[0].lower() if info else ""
    return fence, len(m.group("indent").expandtabs(4)), language


def _fence_closes(line: str, fence: str) -> bool:
    stripped = line.strip()
    return len(stripped) >= len(fence) and stripped == stripped[0] * len(stripped) and stripped[0] == fence[0]


def _dedent(line: str, indent: int) -> str:
    """Remove up to ``indent`` columns of leading spaces, as CommonMark does inside an indented fence."""
    i = 0
    while i < len(line) and i < indent and line[i] == " ":
        i += 1
    return line[i:]


def split_blocks(text: str) -> list[Block]:
    """Cut a whole message into prose runs and fenced code blocks, in order."""
    blocks: list[Block] = []
    prose: list[str] = []
    code: list[str] = []
    opened: tuple[str, int, str] | None = None
    text = _DEEP_INDENT.sub(r"\1", text)
    for line in text.split("\n"):
        if opened is None:
            opened = _fence_open(line)
            if opened is None:
                prose.append(line)
            elif any(p.strip() for p in prose):
                blocks.append(ProseBlock("\n".join(prose)))
                prose = []
            else:
                prose = []
        elif _fence_closes(line, opened[0]):
            blocks.append(CodeBlock("\n".join(code), opened[2]))
            code, opened = [], None
        else:
            code.append(_dedent(line, opened[1]))
    if opened is not None:
        blocks.append(CodeBlock("\n".join(code), opened[2], closed=False))
    elif any(p.strip() for p in prose):
        blocks.append(ProseBlock("\n".join(prose)))
    return blocks


# Events produced by StreamSplitter.feed, applied in order by the message widget.
@dataclass
class ProseSettled:
    """A prose run that no later text can change: render it once and keep it."""

    text: str


@dataclass
class ProseTail:
    """The prose still growing at the end of the answer (everything after the last settled run)."""

    text: str


@dataclass
class CodeOpened:
    language: str


@dataclass
class CodeLines:
    """Complete lines to add to the open code block."""

    lines: list[str]


@dataclass
class CodeTail:
    """The incomplete last line of the open code block (replaces the previous one)."""

    text: str


@dataclass
class CodeClosed:
    pass


StreamEvent = ProseSettled | ProseTail | CodeOpened | CodeLines | CodeTail | CodeClosed


def _could_become_fence(partial: str) -> bool:
    """Whether an unfinished line might still turn out to open or close a fence."""
    s = partial.lstrip(" ")
    if len(partial) - len(s) > 3 and not s.startswith(("`", "~")):
        return False
    if not s:
        return False
    if s[0] not in "`~":
        return False
    run = len(s) - len(s.lstrip(s[0]))
    return run >= 3 or run == len(s)


class StreamSplitter:
    """Turns streamed text batches into block events, looking only at the new text.

    The work per batch is proportional to the batch plus the unsettled prose tail, never to the whole
    answer: complete lines are classified once, prose settles at a blank line followed by an
    unindented line (so indented continuations of list items stay with their item), and code lines
    are handed over as they complete.
    """

    def __init__(self) -> None:
        self._partial = ""
        self._fence: tuple[str, int, str] | None = None
        self._prose: list[str] = []

    @property
    def in_code(self) -> bool:
        return self._fence is not None

    def feed(self, delta: str) -> list[StreamEvent]:
        events: list[StreamEvent] = []
        data = self._partial + delta
        if "\n" in delta:
            *complete, self._partial = data.split("\n")
        else:
            complete, self._partial = [], data
        code_lines: list[str] = []
        for line in complete:
            if self._fence is not None:
                if _fence_closes(line, self._fence[0]):
                    if code_lines:
                        events.append(CodeLines(code_lines))
                        code_lines = []
                    events.append(CodeClosed())
                    self._fence = None
                else:
                    code_lines.append(_dedent(line, self._fence[1]))
                continue
            opened = _fence_open(line)
            if opened is not None:
                self._settle(events)
                events.append(CodeOpened(opened[2]))
                self._fence = opened
            elif line.strip() and not line[0].isspace() and self._prose and not self._prose[-1].strip():
                self._settle(events)
                self._add_prose(line)
            else:
                self._add_prose(line)
        if (
            self._fence is None
            and self._partial
            and self._prose
            and not self._prose[-1].strip()
            and not self._partial[0].isspace()
            and not _could_become_fence(self._partial)
        ):
            # The next block has begun: its first character rules out a continuation.
            self._settle(events)
        if self._fence is None and len(self._partial) > LONG_LINE_CUT:
            self._cut_long_line(events)
        if self._fence is not None:
            if code_lines:
                events.append(CodeLines(code_lines))
            events.append(CodeTail("" if _could_become_fence(self._partial) else self._partial))
        else:
            tail = self._partial if not _could_become_fence(self._partial) else ""
            if self._prose or tail:
                events.append(ProseTail("\n".join([*self._prose, tail]) if self._prose else tail))
        return events

    def _add_prose(self, line: str) -> None:
        self._prose.append(line)

    def _cut_long_line(self, events: list[StreamEvent]) -> None:
        """Settle the first part of an over-long line. It shows as two paragraphs until the answer
        completes and is rendered whole."""
        line = self._partial
        search_from = LONG_LINE_CUT // 4
        cut = -1
        for m in _SENTENCE_END.finditer(line, search_from):
            cut = m.end()
        if cut < 0:
            cut = line.rfind(" ", search_from) + 1 or len(line)
        self._add_prose(line[:cut])
        self._settle(events)
        self._partial = line[cut:].lstrip(" ")

    def _settle(self, events: list[StreamEvent]) -> None:
        text = "\n".join(self._prose).lstrip("\n").rstrip()
        if text.strip():
            events.append(ProseSettled(text))
        self._prose = []
