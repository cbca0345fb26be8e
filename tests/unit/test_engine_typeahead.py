"""Type-ahead prefill on the tiny model (issue 12): the reply after a send is exactly a fresh prefill's.

The tiny model's reply depends on every token in the KV cache, and the tests also compare the cache token by
token with a fresh engine's: a type-ahead that left one wrong token behind fails them.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from pathlib import Path

import pytest

from localmind.engine.local import LocalEngine, safe_draft
from localmind.engine.types import ChatMessage, FinishReason, GenerationOptions, LoadOptions, TurnFinished
from localmind.settings import PRESETS, GenerationDefaults, generation_options
from tests.helpers.engine_turns import run_turn

GREEDY = GenerationOptions(temperature=0)
HISTORY = [
    ChatMessage("system", "You are helpful."),
    ChatMessage("user", "hello hi how are you"),
    ChatMessage("assistant", "Sure: here is **bold** and `code`."),
]


def run(engine: LocalEngine, messages: list[ChatMessage]) -> tuple[str, TurnFinished]:
    return run_turn(engine, messages, GREEDY)


@pytest.fixture
def engine(tiny_model: Path) -> LocalEngine:
    e = LocalEngine()
    e.load(str(tiny_model), LoadOptions(device="cpu"))
    return e


def fresh(tiny_model: Path, messages: list[ChatMessage]) -> tuple[str, list[int]]:
    e = LocalEngine()
    e.load(str(tiny_model), LoadOptions(device="cpu"))
    return run(e, messages)[0], list(e.kv.record.tokens)


def typed(engine: LocalEngine, history: list[ChatMessage], text: str, step: int = 7) -> None:
    """Prefill as the window does while someone types ``text``: a growing draft, a pause every few characters."""
    for end in range(step, len(text) + step, step):
        engine.prefill(history, text[:end])


def check_send(engine: LocalEngine, tiny_model: Path, history: list[ChatMessage], text: str) -> TurnFinished:
    messages = [*history, ChatMessage("user", text)]
    reply, finished = run(engine, messages)
    expected_reply, expected_tokens = fresh(tiny_model, messages)
    assert reply == expected_reply
    assert engine.kv.record.tokens == expected_tokens
    assert finished.reason is FinishReason.END_OF_TURN
    return finished


QUESTION = "Tell me a story about a cat. The quick brown fox jumps over the lazy dog. What is 2 + 2? 中文 emoji 😀"


def test_typing_then_send_reads_only_the_tail(engine: LocalEngine, tiny_model: Path) -> None:
    run(engine, [*HISTORY[:2]])  # the chat so far is in the cache, as after a reply
    typed(engine, HISTORY, QUESTION)
    finished = check_send(engine, tiny_model, HISTORY, QUESTION)
    # Only the end of the message and the reply header were read after the send.
    assert finished.stats.prompt_tokens - finished.stats.reused_tokens <= 12
    assert finished.stats.reused_tokens > 40


def test_deleting_and_retyping(engine: LocalEngine, tiny_model: Path) -> None:
    typed(engine, HISTORY, "The quick brown fox jumps over the lazy dog. Tell me a story")
    engine.prefill(HISTORY, "The quick brown fox")  # deleted back
    typed(engine, HISTORY, "The quick brown fox was here all along, what is 2 + 2?")
    check_send(engine, tiny_model, HISTORY, "The quick brown fox was here all along, what is 2 + 2?")


def test_an_edit_in_the_middle(engine: LocalEngine, tiny_model: Path) -> None:
    typed(engine, HISTORY, QUESTION)
    edited = QUESTION.replace("story about a cat", "tale about a dog")
    engine.prefill(HISTORY, edited)
    check_send(engine, tiny_model, HISTORY, edited)


def test_a_paste(engine: LocalEngine, tiny_model: Path) -> None:
    pasted = "The quick brown fox jumps over the lazy dog. " * 30
    engine.prefill(HISTORY, pasted)
    finished = check_send(engine, tiny_model, HISTORY, pasted)
    assert finished.stats.reused_tokens > 200


def test_switching_chats_while_typing(engine: LocalEngine, tiny_model: Path) -> None:
    typed(engine, HISTORY, QUESTION)
    other = [ChatMessage("user", "What is 2 + 2?"), ChatMessage("assistant", "I hear you — done")]
    typed(engine, other, "Tell me a story")
    check_send(engine, tiny_model, other, "Tell me a story about a cat.")
    # And back: the first chat's history is read again, then its send is exact too.
    typed(engine, HISTORY, QUESTION)
    check_send(engine, tiny_model, HISTORY, QUESTION)


def test_regenerate_after_type_ahead(engine: LocalEngine, tiny_model: Path) -> None:
    typed(engine, HISTORY, QUESTION)
    messages = [*HISTORY, ChatMessage("user", QUESTION)]
    first, _ = run(engine, messages)
    again, finished = run(engine, messages)  # regenerate: the same prompt, the old reply goes
    assert again == first == fresh(tiny_model, messages)[0]
    assert finished.stats.prompt_tokens - finished.stats.reused_tokens == 1


def test_the_word_being_typed_is_not_read_ahead() -> None:
    # Up to the last word boundary: the word being typed may still change; the finished ones are read.
    assert safe_draft("Tell me a story about") == "Tell me a story"
    assert safe_draft("Tell me a sto") == "Tell me a"
    assert safe_draft("Tell me a story ") == "Tell me a story"
    assert safe_draft("Tell") == ""
    assert safe_draft("line one\nline two") == "line one\nline"
    assert safe_draft("line one\nline") == "line one"
    assert safe_draft("Tell me a story about", margin=6) == "Tell me a story"  # a caller may keep a margin
    assert safe_draft("Tell me a sto", margin=6) == "Tell me"


def test_a_send_preempts_type_ahead_within_one_chunk(tiny_model: Path) -> None:
    engine = LocalEngine()
    engine.load(str(tiny_model), LoadOptions(device="cpu"))
    appended: list[int] = []
    real_append = engine.kv.append

    def slow_append(tokens: list[int]) -> None:
        time.sleep(0.02)  # a slow model: each chunk takes a while
        real_append(tokens)
        appended.append(len(tokens))

    engine.kv.append = slow_append  # type: ignore[method-assign]
    pasted = "The quick brown fox jumps over the lazy dog. " * 40
    worker = threading.Thread(target=engine.prefill, args=(HISTORY, pasted))
    worker.start()
    while len(appended) < 3:
        time.sleep(0.001)
    engine.preempt_prefill()
    seen = len(appended)
    worker.join(5)
    assert not worker.is_alive()
    assert len(appended) <= seen + 1  # at most the chunk that was running
    # A paste is read in full-size chunks (a send needs those tokens anyway) until its last 256 tokens; those, as a
    # typed message's, in chunks of 16: a send while someone types waits for at most 16 tokens.
    assert max(appended) <= 128


def test_a_typed_message_is_read_in_small_chunks_and_a_paste_in_large_ones(tiny_model: Path) -> None:
    engine = LocalEngine()
    engine.load(str(tiny_model), LoadOptions(device="cpu"))
    appended: list[int] = []
    real_append = engine.kv.append

    def counting_append(tokens: list[int]) -> None:
        real_append(tokens)
        appended.append(len(tokens))

    engine.kv.append = counting_append  # type: ignore[method-assign]
    pasted = "The quick brown fox jumps over the lazy dog. " * 60
    engine.prefill(HISTORY, pasted)
    assert max(appended) == 128  # the loader's prefill chunk
    assert sum(n for n in appended if n == 16) >= 256 - 16  # the end of the backlog in small chunks
    appended.clear()
    engine.prefill(HISTORY, pasted + "and then a few more typed words ")
    assert appended and max(appended) <= 16
    check_send(engine, tiny_model, HISTORY, pasted + "and then a few more typed words")
    engine.kv.append = real_append  # type: ignore[method-assign]
    check_send(engine, tiny_model, HISTORY, pasted)


def test_a_pause_reads_the_whole_draft_and_the_reply_header(engine: LocalEngine, tiny_model: Path) -> None:
    """After a pause the draft is read as if sent now, and the model's prediction after it is kept: Enter then
    reads nothing, and the reply is still exactly a fresh prefill's."""
    typed(engine, HISTORY, QUESTION[:40])
    engine.prefill(HISTORY, QUESTION, whole=True)
    finished = check_send(engine, tiny_model, HISTORY, QUESTION)
    assert finished.stats.prompt_tokens == finished.stats.reused_tokens > 20


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_the_kept_prediction_samples_as_a_fresh_read_does(tiny_model: Path, preset: str) -> None:
    """The sampling presets users run (temperature, top-k/p, repetition penalty), seeded: the reply after a whole
    read with the kept prediction equals a fresh engine's, token for token."""
    options = generation_options(GenerationDefaults(), {"preset": preset}, seed=1234)
    options = dataclasses.replace(options, max_new_tokens=12)
    messages = [*HISTORY, ChatMessage("user", QUESTION)]
    ahead = LocalEngine()
    ahead.load(str(tiny_model), LoadOptions(device="cpu"))
    ahead.prefill(HISTORY, QUESTION, whole=True)
    reply, finished = run_turn(ahead, messages, options)
    assert finished.stats.prompt_tokens == finished.stats.reused_tokens  # the kept prediction was used
    cold = LocalEngine()
    cold.load(str(tiny_model), LoadOptions(device="cpu"))
    expected, cold_finished = run_turn(cold, messages, options)
    assert cold_finished.stats.reused_tokens == 0
    assert reply == expected and ahead.kv.record.tokens == cold.kv.record.tokens


def test_kept_logits_are_forgotten_once_the_draft_changes(engine: LocalEngine, tiny_model: Path) -> None:
    """A pause keeps the prediction after the whole draft; an edit, even one back to the same length, drops it."""
    engine.prefill(HISTORY, QUESTION, whole=True)
    changed = QUESTION[:-1] + ("!" if QUESTION[-1] != "!" else "?")  # same length, another last character
    engine.prefill(HISTORY, changed[:-4], whole=False)  # typing on: the words so far, the header dropped
    finished = check_send(engine, tiny_model, HISTORY, changed)
    assert finished.stats.prompt_tokens - finished.stats.reused_tokens >= 1  # read again: nothing stale was used
    engine.prefill(HISTORY, QUESTION, whole=True)
    engine.prefill(HISTORY, changed, whole=True)  # a pause on the edited text: its own prediction is kept
    finished = check_send(engine, tiny_model, HISTORY, changed)
    assert finished.stats.prompt_tokens == finished.stats.reused_tokens


def test_typing_on_after_a_pause_drops_what_was_read_as_if_sent(engine: LocalEngine, tiny_model: Path) -> None:
    """The pause's guess (the unfinished word, the end of the turn, the reply header) never reaches a reply."""
    engine.prefill(HISTORY, QUESTION[:31], whole=True)  # "... The quick bro", as if sent
    engine.prefill(HISTORY, QUESTION[:44], whole=False)  # typing on: words so far
    engine.prefill(HISTORY, QUESTION[:60] + " and", whole=True)  # a pause, then the words change
    finished = check_send(engine, tiny_model, HISTORY, QUESTION)
    assert finished.stats.reused_tokens > 20
