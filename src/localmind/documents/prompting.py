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
from dataclasses import dataclass, field, replace
from typing import Any

from localmind.documents.search import Passage
from localmind.engine.prompt_builder import choose_passages

DOCS_INSTRUCTION = (
    "You can read passages from the user's own documents. They appear before a question, each marked with a number "
    "in brackets, like [1], followed by its file name and page. Answer from those passages when they are relevant and "
    "cite each passage you use by its number in brackets, e.g. [1]. If the passages do not contain the answer, say "
    "that the user's documents do not cover it, then answer from general knowledge if you can."
)
# For a context too small for DOCS_INSTRUCTION.
SHORT_INSTRUCTION = "Cite the passages you use by number, like [1]."
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
    matched: bool  # False: nothing relevant was found or none fit ("no matching passages")
    found: int = 0  # passages the search found
    shortened: int = 0  # of the sources, passages cut to fit the context

    @property
    def left_out(self) -> int:
        """Passages found that did not fit the context."""
        return max(0, self.found - len(self.sources))


@dataclass
class ConversationSources:
    """The numbered passages a conversation has been given so far."""

    sources: list[Source] = field(default_factory=list)

    def _given(self, passage: Passage, among: Sequence[Source]) -> Source | None:
        for s in among:
            if s.file == passage.file and s.page == passage.page and s.text == passage.text:
                return s
        return None

    def number_for(self, passage: Passage) -> tuple[Source, bool]:
        given = self._given(passage, self.sources)
        if given is not None:
            return given, False
        source = Source.of(max((s.number for s in self.sources), default=0) + 1, passage)
        self.sources.append(source)
        return source, True

    def _numbered(self, chosen: Sequence[Passage]) -> list[tuple[Source, bool]]:
        """The sources ``chosen`` would be, numbered as ``number_for`` will number them, without keeping them."""
        entries: list[tuple[Source, bool]] = []
        fresh: list[Source] = []
        following = max((s.number for s in self.sources), default=0) + 1
        for passage in chosen:
            given = self._given(passage, self.sources)
            if given is None and (given := self._given(passage, fresh)) is None:
                given = Source.of(following, passage)
                fresh.append(given)
                following += 1
                entries.append((given, True))
            elif all(s is not given for s, _ in entries):
                entries.append((given, False))
        return entries

    def prepare(
        self, question: str, passages: Sequence[Passage], fits: Callable[[str], bool] | None = None
    ) -> PreparedTurn:
        """The user's turn with the passages in front of it (best first). ``fits(blocks)`` says whether the text put
        in front of the question fits what the context has left after the conversation, the question and room for
        the answer: passages that do not are cut or left out (the prompt builder's fitting), and the question is
        never refused because of them."""
        fitted = choose_passages(
            passages, lambda chosen: _passages_text(self._numbered(chosen)), fits or _always, shortened
        )
        if not fitted.passages:
            return PreparedTurn(_no_match(question, fits), [], False, len(passages))
        entries = self._numbered(fitted.passages)
        prompt = _turn_text(question, entries)
        for passage in fitted.passages:
            self.number_for(passage)  # keeps the new ones, numbered as in the prompt
        sources = [s for s, _ in entries]
        return PreparedTurn(prompt, sources, True, len(passages), fitted.shortened)


def _always(_turn: str) -> bool:
    return True


def _passages_text(entries: Sequence[tuple[Source, bool]]) -> str:
    """The passages given for the first time in full, the ones given earlier by number: what goes before the
    question."""
    new_blocks = [f"[{s.number}] {s.label}\n{s.text}" for s, new in entries if new]
    parts = [PASSAGES_HEADER, *new_blocks] if new_blocks else []
    if len(new_blocks) < len(entries):
        numbers = ", ".join(f"[{s.number}]" for s, _ in entries)
        parts.append(f"(Also relevant, given earlier: {numbers}.)")
    return "\n\n".join(parts)


def _turn_text(question: str, entries: Sequence[tuple[Source, bool]]) -> str:
    return f"{_passages_text(entries)}\n\n{QUESTION_HEADER} {question}"


def _no_match(question: str, fits: Callable[[str], bool] | None) -> str:
    """The turn when no passage is used: a note that says so, unless even that does not fit (the question alone)."""
    return f"{NO_MATCH_NOTE}\n\n{question}" if fits is None or fits(NO_MATCH_NOTE) else question


def shortened(passage: Passage, fraction: float) -> Passage | None:
    """``passage`` cut to about ``fraction`` of its text, at a word boundary, marked as cut; None if nothing is left."""
    cut = int(len(passage.text) * fraction)
    space = passage.text.rfind(" ", 0, cut + 1)
    cut = space if space > cut // 2 else cut
    text = passage.text[:cut].rstrip()
    return replace(passage, text=f"{text} …") if text else None


def with_instruction(system_prompt: str, instruction: str = DOCS_INSTRUCTION) -> str:
    return f"{system_prompt.rstrip()}\n\n{instruction}" if system_prompt.strip() else instruction


def instruction_for(system_prompt: str, fits: Callable[[str], bool] | None) -> str:
    """The system part with the instruction that fits the context: the full one, a short one, or none, whichever
    ``fits(instruction)`` first (the terminal: at most a quarter of the context; the window: its passages' share).
    The same for a whole conversation: the system part stays the same from turn to turn (the KV cache's reuse
    depends on it)."""
    for instruction in (DOCS_INSTRUCTION, SHORT_INSTRUCTION):
        if fits is None or fits(instruction):
            return with_instruction(system_prompt, instruction)
    return system_prompt


def cited(reply: str, sources: Sequence[Source]) -> list[Source]:
    """The sources the reply cites by number; all given sources when it cites none (they are what it read)."""
    numbers = {int(n) for n in _CITATION.findall(reply)}
    chosen = [s for s in sources if s.number in numbers]
    return chosen or list(sources)


def sources_line(sources: Sequence[Source], left_out: int = 0) -> str:
    """``Sources: [1] field-notes.pdf p. 3; [2] plan.docx`` (what the terminal prints after a reply), and how many
    passages found were left out because the context had no room for them."""
    note = f" ({left_out} more found did not fit the context)" if left_out else ""
    if not sources:
        return (
            f"Sources: no passages fit the context ({left_out} found)" if left_out else "Sources: no matching passages"
        )
    return "Sources: " + "; ".join(f"[{s.number}] {s.label}" for s in sources) + note
