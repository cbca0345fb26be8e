"""``localmind chat --docs``: passages from the user's documents in each turn, sources printed after the reply."""

from __future__ import annotations

import sys
from typing import Any

from localmind.documents.library import Library
from localmind.documents.prompting import (
    QUESTION_HEADER,
    ConversationSources,
    Source,
    cited,
    instruction_for,
    sources_line,
    with_instruction,
)
from localmind.engine.prompt_builder import ContextWindow
from localmind.engine.types import ChatMessage, GenerationOptions, LoadInfo


class DocumentsTurns:
    def __init__(self, library: Library, collection: str, engine: Any, info: LoadInfo, options: GenerationOptions):
        self.library = library
        self.collections = [collection] if collection else None
        self.engine = engine
        self.budget = info.context_budget or 4096
        # Room for the answer as the engine keeps it when it fits the prompt: passages never make it drop a turn.
        self.reserve = ContextWindow(self.budget).reply_reserve(options.max_new_tokens)
        self.sources = ConversationSources()
        self.turn_sources: list[Source] = []
        self.left_out = 0  # passages found for the last question that did not fit the context

    @staticmethod
    def open(collection: str, engine: Any, info: LoadInfo, options: GenerationOptions) -> DocumentsTurns:
        library = Library.open()
        if library.index.chunk_count() == 0:
            print("note: no documents are indexed yet; add some with: localmind docs add PATH", file=sys.stderr)
        elif library.embedder is None:
            print(
                "note: keyword search only; installing the embedding model "
                "(an ONNX export of multilingual-e5-small: localmind docs embedder DIR) improves results.",
                file=sys.stderr,
            )
        return DocumentsTurns(library, collection, engine, info, options)

    def system(self, history: list[ChatMessage]) -> list[ChatMessage]:
        base = history[0].content if history and history[0].role == "system" else ""
        rest = history[1:] if history and history[0].role == "system" else history
        base_tokens = self._count_system(base) if base.strip() else 0

        def fits(instruction: str) -> bool:  # at most a quarter of the context
            return self._count_system(with_instruction(base, instruction)) - base_tokens <= self.budget // 4

        system = instruction_for(base, fits)
        return [ChatMessage("system", system), *rest] if system else rest

    def _count_system(self, text: str) -> int:
        return int(self.engine.count_tokens([ChatMessage("system", text)]))

    def prompt(self, history: list[ChatMessage], question: str) -> str:
        passages = self.library.search(question, collections=self.collections)

        def fits(blocks: str) -> bool:
            trial = [*history, ChatMessage("user", f"{blocks}\n\n{QUESTION_HEADER} {question}")]
            return int(self.engine.count_tokens(trial)) + self.reserve <= self.budget

        turn = self.sources.prepare(question, passages, fits)
        self.turn_sources, self.left_out = turn.sources, turn.left_out
        return turn.prompt

    def sources_line(self, reply: str) -> str:
        return sources_line(cited(reply, self.turn_sources), self.left_out)
