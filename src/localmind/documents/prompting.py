"""Passages into the prompt, with source labels the model is asked to cite, within the context budget.

Where they go, and why: the system part carries a fixed instruction ("passages are marked [n]; cite them"), the same
on every turn, and the passages found for a question are put in front of that question, in the user's turn. Every
earlier turn therefore stays byte-identical from one turn to the next, so the engine reuses its KV cache for the
whole conversation so far and prefills only the new turn (``tests/documents/test_chat_docs.py`` checks
``reused_tokens``). Passages already given in an earlier turn keep their number and are not repeated, so numbers are
stable within a conversation and [2] means the same passage in every answer.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from localmind.documents.search import Passage

DOCS_INSTRUCTION = (
    "You can read passages from the user's own documents. They appear before a question, each marked with a number "
    "in brackets, like [1], followed by its file name and page. Answer from those passages when they are relevant and "
    "cite each passage you use by its number in brackets, e.g. [1]. If the passages do not contain the answer, say "
    "that the user's documents do not cover it, then answer from general knowledge if you can."
)
NO_MATCH_NOTE = "(No passages in the user's documents match this question. Say so if the answer depends on them.)"
PASSAGES_HEADER = "Passages from my documents:"
QUESTION_HEADER = "My question:"
_CITATION = re.compile(r"\[(\d{1,3})\]")


@dataclass
class Source:
    number: int
    file: str
    page: int | None
    text: str

    @staticmethod
    def of(number: int, p: Passage) -> Source:
        return Source(number, p.file, p.page, p.text)

    @property
    def label(self) -> str:
        name = self.file.replace("\\", "/").rsplit("/", 1)[-1]
        return f"{name} p. {self.page}" if self.page is not None else name

    def as_json(self) -> dict[str, Any]:
        return {"number": self.number, "file": self.file, "page": self.page, "text": self.text}

    @staticmethod
    def from_json(raw: dict[str, Any]) -> Source:
        return Source(int(raw["number"]), str(raw["file"]), raw.get("page"), str(raw.get("text", "")))


@dataclass
class PreparedTurn:
    prompt: str  # the user's turn as the model reads it
    sources: list[Source]  # the passages relevant to this question (old ones included), numbered
    matched: bool  # False: nothing relevant was found ("no matching passages")


@dataclass
class ConversationSources:
    """The numbered passages a conversation has been given so far."""

    sources: list[Source] = field(default_factory=list)

    def number_for(self, passage: Passage) -> tuple[Source, bool]:
        for s in self.sources:
            if s.file == passage.file and s.page == passage.page and s.text == passage.text:
                return s, False
        source = Source.of(max((s.number for s in self.sources), default=0) + 1, passage)
        self.sources.append(source)
        return source, True

    def prepare(
        self, question: str, passages: Sequence[Passage], fits: Callable[[str], bool] | None = None
    ) -> PreparedTurn:
        """The user's turn with the new passages in front of it; ``fits`` drops passages the budget cannot take."""
        if not passages:
            return PreparedTurn(f"{NO_MATCH_NOTE}\n\n{question}", [], False)
        chosen: list[Source] = []
        new_blocks: list[str] = []
        for passage in passages:
            source, new = self.number_for(passage)
            block = f"[{source.number}] {source.label}\n{source.text}"
            if new and fits is not None and not fits("\n\n".join([*new_blocks, block])):
                self.sources.pop()
                continue
            chosen.append(source)
            if new:
                new_blocks.append(block)
        if not chosen:
            return PreparedTurn(f"{NO_MATCH_NOTE}\n\n{question}", [], False)
        numbers = ", ".join(f"[{s.number}]" for s in chosen)
        parts = [PASSAGES_HEADER, *new_blocks] if new_blocks else []
        if len(new_blocks) < len(chosen):
            parts.append(f"(Also relevant, given earlier: {numbers}.)")
        prompt = "\n\n".join([*parts, f"{QUESTION_HEADER} {question}"])
        return PreparedTurn(prompt, chosen, True)


def with_instruction(system_prompt: str) -> str:
    return f"{system_prompt.rstrip()}\n\n{DOCS_INSTRUCTION}" if system_prompt.strip() else DOCS_INSTRUCTION


def cited(reply: str, sources: Sequence[Source]) -> list[Source]:
    """The sources the reply cites by number; all given sources when it cites none (they are what it read)."""
    numbers = {int(n) for n in _CITATION.findall(reply)}
    chosen = [s for s in sources if s.number in numbers]
    return chosen or list(sources)


def sources_line(sources: Sequence[Source]) -> str:
    """``Sources: [1] field-notes.pdf p. 3; [2] plan.docx`` (what the terminal prints after a reply)."""
    if not sources:
        return "Sources: no matching passages"
    return "Sources: " + "; ".join(f"[{s.number}] {s.label}" for s in sources)
