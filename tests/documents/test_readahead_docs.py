"""Documents read-ahead (issue 19): the question's passages are read while it is typed, and the reply after Enter is
exactly a fresh prefill's, also when the passages change between the read-ahead and Enter.

Run on the tiny test model (its reply depends on every cached token) and on a real transformer built by og's model
builder (micro-llama, random weights), greedy, token by token.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from localmind.core.conversations import Message
from localmind.documents.chat import READ_AHEAD_KEY, DocumentsChat
from localmind.documents.index import DocumentIndex
from localmind.documents.library import Library
from localmind.documents.prompting import PASSAGES_HEADER, QUESTION_HEADER
from localmind.engine.local import LocalEngine
from localmind.engine.types import ChatMessage, GenerationOptions, LoadOptions, TurnFinished
from tests.helpers.engine_turns import run_turn

GREEDY = GenerationOptions(temperature=0, max_new_tokens=16, repetition_penalty=1.0)
FIRST = "What did the Kestrel Ridge rain gauge record"  # typed first: finds the field notes
# Enter: the question grew and now also finds the budget (a passage appended) — or it changed its mind entirely.
BUDGET = "What is the lighthouse restoration budget"
GROWN = BUDGET + ", and what did the Kestrel Ridge rain gauge record?"  # ranks the field notes first
CHANGED = "How far did the Vatnajokull glacier retreat?"


def message(mid: int, role: str, content: str) -> Message:
    return Message(mid, "c", mid, role, content, time.time())  # type: ignore[arg-type]


def load(model: Path, budget: int) -> LocalEngine:
    engine = LocalEngine()
    engine.load(str(model), LoadOptions(device="cpu", context_budget=budget, prefill_chunk=64))
    return engine


def documents_chat(corpus: Path, tmp_path: Path, engine: LocalEngine) -> DocumentsChat:
    library = Library(DocumentIndex(tmp_path / "index.sqlite3"))
    library.add([corpus])
    chat = DocumentsChat(library, lambda _id, _stats: None)
    chat.enabled = True
    budget = engine.prompts.window.budget
    chat.fits = lambda blocks: engine.count_tokens([ChatMessage("user", blocks)]) <= budget // 2
    return chat


def ask(
    model: Path, corpus: Path, tmp_path: Path, typed: list[str], question: str, budget: int
) -> tuple[DocumentsChat, str, TurnFinished, list[int]]:
    """Type ``typed`` drafts (each read ahead as after a pause), then send ``question``; checks the reply and the
    cache against a fresh engine's. Returns the chat, the turn sent, the turn's stats and the tokens the passages
    take in the prompt: the first one, the first two…"""
    engine = load(model, budget)
    chat = documents_chat(corpus, tmp_path, engine)
    earlier: list[Message] = []
    system = [ChatMessage("system", chat.system("Be brief.", earlier))]
    for draft in typed:
        turn = chat.read_ahead_turn(earlier, draft)
        assert turn is not None and turn.startswith(PASSAGES_HEADER)
        engine.prefill(system, turn, whole=True)
    sent = chat.before_turn([message(1, "user", question)])
    prompt = DocumentsChat.content_for_model(sent[0])
    messages = [*system, ChatMessage("user", prompt)]
    reply, finished = run_turn(engine, messages, GREEDY)
    fresh = load(model, budget)
    expected, _ = run_turn(fresh, messages, GREEDY)
    assert reply == expected
    assert engine.kv.record.tokens == fresh.kv.record.tokens
    ends = [m.start() for m in re.finditer(r"\n\n\[\d+\] ", prompt)][1:]
    ends.append(prompt.index(QUESTION_HEADER))
    head = fresh.count_tokens(system)
    passage_tokens = [fresh.count_tokens([*system, ChatMessage("user", prompt[:end])]) - head for end in ends]
    engine.close()
    fresh.close()
    return chat, prompt, finished, passage_tokens


@pytest.mark.parametrize("typed", [[FIRST], [FIRST[:20], FIRST]])
def test_the_same_passages_leave_only_the_question_to_read(
    corpus: Path, tmp_path: Path, roomy_model: Path, typed: list[str]
) -> None:
    chat, prompt, finished, passage_tokens = ask(roomy_model, corpus, tmp_path, typed, FIRST + "?", 8192)
    assert "417 millimetres" in prompt
    assert chat.last_read_ahead == prompt.count("\n[")  # every passage was where the read-ahead had put it
    assert finished.stats.reused_tokens >= passage_tokens[-1]
    assert finished.stats.prompt_tokens - finished.stats.reused_tokens <= 12  # the question's tail and the header
    _, stats = chat.after_turn([message(1, "user", FIRST)], "See [1].", {})
    assert stats is not None and stats[READ_AHEAD_KEY] == chat.last_read_ahead > 0  # the answer's stats say so


def test_a_passage_found_at_enter_is_appended_and_the_rest_kept(
    corpus: Path, tmp_path: Path, roomy_model: Path
) -> None:
    chat, prompt, finished, passage_tokens = ask(roomy_model, corpus, tmp_path, [BUDGET], GROWN, 8192)
    # The search at Enter ranks the field notes first; the budget, read ahead, keeps its place in front of them.
    assert prompt.index("82,500 euros") < prompt.index("417 millimetres")
    assert chat.last_read_ahead == 1
    assert passage_tokens[0] <= finished.stats.reused_tokens < passage_tokens[-1]


def test_other_passages_at_enter_rewind_to_the_first_difference(
    corpus: Path, tmp_path: Path, roomy_model: Path
) -> None:
    chat, prompt, finished, _ = ask(roomy_model, corpus, tmp_path, [FIRST], CHANGED, 8192)
    assert "38 metres" in prompt and "417 millimetres" not in prompt
    assert chat.last_read_ahead == 0
    assert finished.stats.reused_tokens > 0  # the system part and the passages' header stayed


def test_no_documents_no_read_ahead_turn(tmp_path: Path, tiny_model: Path) -> None:
    chat = DocumentsChat(Library(DocumentIndex(tmp_path / "index.sqlite3")), lambda _id, _stats: None)
    chat.enabled = True
    assert chat.read_ahead_turn([], FIRST) is None  # nothing indexed: the draft is read alone
    chat.enabled = False
    assert chat.read_ahead_turn([], FIRST) is None


@pytest.fixture(scope="module")
def builder_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from bench.make_models import build

    return Path(build("micro-llama", tmp_path_factory.mktemp("builder"))["dir"])


@pytest.mark.slow
@pytest.mark.parametrize("question", [FIRST + "?", GROWN, CHANGED])
def test_a_real_transformer_replies_as_after_a_fresh_prefill(
    corpus: Path, tmp_path: Path, builder_model: Path, question: str
) -> None:
    typed = [BUDGET] if question == GROWN else [FIRST[:20], FIRST]
    _, _, finished, passage_tokens = ask(builder_model, corpus, tmp_path, typed, question, 2048)
    assert finished.stats.reused_tokens > 0
    if question == FIRST + "?":
        assert finished.stats.reused_tokens >= passage_tokens[-1]


def test_enter_reuses_the_read_ahead_s_search_of_the_same_question(
    corpus: Path, tmp_path: Path, tiny_model: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The question as sent is what the read-ahead searched last: Enter does not search again on the window's
    thread; the prompt is the one a search would give. After the index changed, or for other text, it searches."""
    engine = load(tiny_model, 8192)
    chat = documents_chat(corpus, tmp_path, engine)  # its fits() counts with the engine
    question = FIRST + "?"
    assert chat.read_ahead_turn([], question) is not None
    searches: list[str] = []
    real_search = chat.library.search

    def counted(text: str, **kwargs: object) -> object:
        searches.append(text)
        return real_search(text, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(chat.library, "search", counted)
    reused = DocumentsChat.content_for_model(chat.before_turn([message(1, "user", question)])[0])
    assert searches == []
    fresh = DocumentsChat(chat.library, lambda _id, _stats: None, chat.fits)
    fresh.enabled = True
    assert DocumentsChat.content_for_model(fresh.before_turn([message(1, "user", question)])[0]) == reused
    assert searches == [question] and "417 millimetres" in reused

    searches.clear()
    assert chat.read_ahead_turn([], question) is not None
    with chat.library.index.transaction():  # any committed write to the index: the cached passages may be stale
        pass
    chat.before_turn([message(2, "user", question)])
    assert searches == [question]
    searches.clear()
    chat.before_turn([message(3, "user", FIRST)])  # other text than the read-ahead searched
    assert searches == [FIRST]
    engine.close()
