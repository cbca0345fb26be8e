"""Passages in the prompt with the real engine: labels, budget, and KV reuse from turn to turn."""

from __future__ import annotations

from pathlib import Path

from localmind.commands.docs_chat import DocumentsTurns
from localmind.documents.index import DocumentIndex
from localmind.documents.library import Library
from localmind.documents.prompting import DOCS_INSTRUCTION, NO_MATCH_NOTE, cited, sources_line
from localmind.engine.local import LocalEngine
from localmind.engine.types import ChatMessage, GenerationOptions, LoadOptions, TurnFinished
from tests.helpers.engine_turns import run_turn


def turn(engine: LocalEngine, history: list[ChatMessage], options: GenerationOptions) -> tuple[str, TurnFinished]:
    return run_turn(engine, history, options)


def test_passages_go_in_labelled_and_the_cache_is_reused(corpus: Path, tiny_model: Path, tmp_path: Path) -> None:
    library = Library(DocumentIndex(tmp_path / "index.sqlite3"))
    library.add([corpus])
    engine = LocalEngine()
    info = engine.load(str(tiny_model), LoadOptions(device="cpu", context_budget=2048))
    options = GenerationOptions(temperature=0, max_new_tokens=12)
    docs = DocumentsTurns(library, "", engine, info, options)
    history = docs.system([ChatMessage("system", "Be brief.")])
    assert history[0].content == f"Be brief.\n\n{DOCS_INSTRUCTION}"

    prompt = docs.prompt(history, "What did the Kestrel Ridge rain gauge record?")
    assert "[1] field-notes.pdf p. 3\n" in prompt and "417 millimetres" in prompt
    assert prompt.endswith("My question: What did the Kestrel Ridge rain gauge record?")
    history.append(ChatMessage("user", prompt))
    reply, first = turn(engine, history, options)
    history.append(ChatMessage("assistant", reply))
    assert docs.sources_line(reply).startswith("Sources: [1] field-notes.pdf p. 3")

    # Second question: new passages are numbered on from the first turn's; earlier turns are untouched, so the
    # engine prefills only the new turn.
    prompt2 = docs.prompt(history, "How much is the lighthouse restoration budget?")
    assert "budget.docx\n" in prompt2 and "[1] field-notes.pdf" not in prompt2
    history.append(ChatMessage("user", prompt2))
    _, second = turn(engine, history, options)
    assert second.stats.reused_tokens >= first.stats.prompt_tokens
    assert second.stats.prompt_tokens - second.stats.reused_tokens < engine.count_tokens(history[-1:]) + 8

    # The same question again: its passages were given already, so they are referred to, not repeated.
    prompt3 = docs.prompt(history, "Kestrel Ridge rain gauge again?")
    assert "Also relevant, given earlier: [1]" in prompt3 and "417 millimetres" not in prompt3
    nothing = docs.prompt(history, "zebracorn quasar")
    assert nothing.startswith(NO_MATCH_NOTE) and docs.sources_line("") == "Sources: no matching passages"
    engine.close()


def test_passages_that_do_not_fit_the_budget_are_left_out(corpus: Path, tiny_model: Path, tmp_path: Path) -> None:
    library = Library(DocumentIndex(tmp_path / "index.sqlite3"))
    library.add([corpus])
    engine = LocalEngine()
    info = engine.load(str(tiny_model), LoadOptions(device="cpu", context_budget=2048))
    docs = DocumentsTurns(library, "", engine, info, GenerationOptions(max_new_tokens=512))
    question = "Kestrel Ridge rain gauge"
    docs.budget = engine.count_tokens([ChatMessage("user", f"My question: {question}")]) + docs.reserve + 3
    prompt = docs.prompt([], question)  # room for the question only: not even a passage's label fits
    assert prompt == question and docs.left_out > 0  # the question alone, never refused for the passages
    assert docs.sources_line("") == f"Sources: no passages fit the context ({docs.left_out} found)"
    engine.close()


def test_a_passage_too_long_for_what_is_left_is_shortened(corpus: Path, tiny_model: Path, tmp_path: Path) -> None:
    library = Library(DocumentIndex(tmp_path / "index.sqlite3"))
    library.add([corpus])
    engine = LocalEngine()
    info = engine.load(str(tiny_model), LoadOptions(device="cpu", context_budget=2048))
    docs = DocumentsTurns(library, "", engine, info, GenerationOptions(max_new_tokens=32))
    question = "What did the Kestrel Ridge rain gauge record?"
    whole = docs.prompt([], question)
    full = engine.count_tokens([ChatMessage("user", whole)])
    docs = DocumentsTurns(library, "", engine, info, GenerationOptions(max_new_tokens=32))
    docs.budget = full + docs.reserve - 20  # the passages less a few words
    cut = docs.prompt([], question)
    assert " …\n\nMy question: " in cut and cut.endswith(question) and len(cut) < len(whole)
    assert engine.count_tokens([ChatMessage("user", cut)]) + docs.reserve <= docs.budget
    engine.close()


def test_a_small_context_gets_a_short_instruction_or_none(tiny_model: Path, tmp_path: Path) -> None:
    from localmind.documents.prompting import SHORT_INSTRUCTION

    engine = LocalEngine()
    library = Library(DocumentIndex(tmp_path / "index.sqlite3"))
    for budget, expected in ((2048, DOCS_INSTRUCTION), (256, SHORT_INSTRUCTION), (64, None)):
        info = engine.load(str(tiny_model), LoadOptions(device="cpu", context_budget=budget))
        docs = DocumentsTurns(library, "", engine, info, GenerationOptions())
        history = docs.system([ChatMessage("system", "Be brief.")])
        assert history[0].content == (f"Be brief.\n\n{expected}" if expected else "Be brief.")
    engine.close()


def test_citations_pick_the_sources_the_reply_names() -> None:
    from localmind.documents.prompting import Source

    sources = [Source(1, "/a/x.pdf", 2, "t"), Source(2, "/a/y.md", None, "u")]
    assert [s.number for s in cited("As [2] says, yes.", sources)] == [2]
    assert [s.number for s in cited("No citation at all.", sources)] == [1, 2]
    assert sources_line(sources) == "Sources: [1] x.pdf p. 2; [2] y.md"


def test_the_window_s_chat_takes_the_instruction_its_passages_share_has_room_for(tmp_path: Path) -> None:
    from localmind.documents.chat import DocumentsChat
    from localmind.documents.prompting import SHORT_INSTRUCTION

    library = Library(DocumentIndex(tmp_path / "index.sqlite3"))
    chat = DocumentsChat(library, lambda _id, _stats: None)
    chat.enabled = True
    assert chat.system("Be brief.", []) == "Be brief."  # nothing added yet: nothing to read, no instruction
    note = tmp_path / "note.md"
    note.write_text("# Harbour\n\nThe harbour wall was rebuilt in 1887.\n", encoding="utf-8")
    library.add([note])
    assert chat.system("Be brief.", []) == f"Be brief.\n\n{DOCS_INSTRUCTION}"  # no limit set: the full one
    chat.fits = lambda text: len(text) <= 60  # a small model's share
    assert chat.system("Be brief.", []) == f"Be brief.\n\n{SHORT_INSTRUCTION}"
    chat.fits = lambda text: False
    assert chat.system("Be brief.", []) == "Be brief."
