"""Generation on the tiny model: exact streamed text, stats, cancel, KV reuse and rewind, context limits."""

from __future__ import annotations

from pathlib import Path

import pytest
from tokenizers import Tokenizer

from localmind.engine.local import LocalEngine
from localmind.engine.types import (
    ChatMessage,
    FinishReason,
    GenerationOptions,
    LoadOptions,
    PromptTooLongError,
    TextDelta,
    TurnFinished,
)
from tests.helpers.engine_turns import run_pieces
from tests.helpers.tiny_model import REPLIES, expected_reply

GREEDY = GenerationOptions(temperature=0)


def chatml(messages: list[ChatMessage]) -> str:
    return "".join(f"<|im_start|>{m.role}\n{m.content}<|im_end|>\n" for m in messages) + "<|im_start|>assistant\n"


def run(
    engine: LocalEngine, messages: list[ChatMessage], options: GenerationOptions = GREEDY
) -> tuple[list[str], TurnFinished]:
    return run_pieces(engine, messages, options)


@pytest.fixture
def engine(tiny_model: Path) -> LocalEngine:
    e = LocalEngine()
    e.load(str(tiny_model), LoadOptions(device="cpu"))
    return e


@pytest.fixture
def tok(tiny_model: Path) -> Tokenizer:
    return Tokenizer.from_file(str(tiny_model / "tokenizer.json"))


def expected(tok: Tokenizer, messages: list[ChatMessage]) -> str:
    return expected_reply(tok.encode(chatml(messages)).ids)


def conversation(n_turns: int) -> list[ChatMessage]:
    msgs = [ChatMessage("system", "You are helpful.")]
    for i in range(n_turns):
        msgs.append(ChatMessage("user", f"question number {i} about the fox"))
        msgs.append(ChatMessage("assistant", REPLIES[i % 3]))
    return msgs


def test_exact_streamed_reply_and_stats(engine: LocalEngine, tok: Tokenizer) -> None:
    msgs = [ChatMessage("system", "Be nice"), ChatMessage("user", "hi")]
    deltas, fin = run(engine, msgs)
    assert "".join(deltas) == expected(tok, msgs)
    assert fin.reason is FinishReason.END_OF_TURN
    prompt_ids = tok.encode(chatml(msgs)).ids
    assert fin.stats.prompt_tokens == len(prompt_ids)
    assert fin.stats.reused_tokens == 0
    assert fin.stats.generated_tokens == len(tok.encode("".join(deltas)).ids)
    assert fin.stats.context_tokens == fin.stats.prompt_tokens + fin.stats.generated_tokens
    assert fin.stats.time_to_first_token_s > 0 and fin.stats.tokens_per_second > 0


def test_deltas_are_whole_characters_even_when_tokens_split_them(engine: LocalEngine, tok: Tokenizer) -> None:
    # Find prompts that make the model give each reply, including the one with 世界 and 🌍.
    for reply in REPLIES:
        ids = [tok.encode(reply).ids]
        split_tokens = [t for t in ids[0] if "\ufffd" in tok.decode([t])]
        if reply == REPLIES[0]:
            assert split_tokens, "the test model must split a character across tokens"
    seen = set()
    for i in range(12):
        msgs = [ChatMessage("user", f"prompt {i} 你好 🙂")]
        deltas, _ = run(engine, msgs)
        seen.add("".join(deltas))
        for d in deltas:
            assert d and "\ufffd" not in d
    assert seen == set(REPLIES)


def test_next_turn_prefills_only_the_new_message(engine: LocalEngine, tok: Tokenizer) -> None:
    msgs = [ChatMessage("system", "sys"), ChatMessage("user", "first")]
    deltas, fin1 = run(engine, msgs)
    msgs += [ChatMessage("assistant", "".join(deltas)), ChatMessage("user", "second")]
    deltas2, fin2 = run(engine, msgs)
    assert fin2.stats.reused_tokens == fin1.stats.context_tokens
    assert "".join(deltas2) == expected(tok, msgs)


def test_reuse_matches_fresh_prefill_over_many_turns(tiny_model: Path, tok: Tokenizer) -> None:
    reuse = LocalEngine()
    reuse.load(str(tiny_model), LoadOptions(device="cpu"))
    msgs = [ChatMessage("system", "sys")]
    for i in range(8):
        msgs.append(ChatMessage("user", f"turn {i} " + "x" * i))
        deltas, fin = run(reuse, msgs)
        fresh = LocalEngine()
        fresh.load(str(tiny_model), LoadOptions(device="cpu"))
        fresh_deltas, fresh_fin = run(fresh, msgs)
        assert "".join(deltas) == "".join(fresh_deltas) == expected(tok, msgs)
        if i:
            assert fin.stats.reused_tokens > 0 and fresh_fin.stats.reused_tokens == 0
        msgs.append(ChatMessage("assistant", "".join(deltas)))


def test_regenerate_rewinds_to_the_prompt(engine: LocalEngine, tok: Tokenizer) -> None:
    msgs = [*conversation(2), ChatMessage("user", "again")]
    first, _fin1 = run(engine, msgs)
    again, fin2 = run(engine, msgs)
    assert first == again
    assert "".join(again) == expected(tok, msgs)
    # Only the last user message was read again, not the history.
    assert 0 < fin2.stats.prompt_tokens - fin2.stats.reused_tokens <= len(tok.encode(chatml(msgs[-1:])).ids) + 2


def test_edit_rewinds_to_the_edited_message(engine: LocalEngine, tok: Tokenizer) -> None:
    msgs = [*conversation(3), ChatMessage("user", "last")]
    run(engine, msgs)
    edited = [*msgs[:3], ChatMessage("user", "an edited question, longer than before")]
    deltas, fin = run(engine, edited)
    assert "".join(deltas) == expected(tok, edited)
    # Everything up to the edited message, and then the tokens it still shares with the old one.
    assert fin.stats.reused_tokens >= len(tok.encode(chatml(msgs[:3])[: -len("<|im_start|>assistant\n")]).ids)
    assert fin.stats.reused_tokens == shared_tokens(tok, msgs, edited)


def test_switching_conversations_re_prefills(engine: LocalEngine, tok: Tokenizer) -> None:
    a = [ChatMessage("user", "conversation A")]
    b = [ChatMessage("user", "completely different B")]
    run(engine, a)
    deltas, fin = run(engine, b)
    assert "".join(deltas) == expected(tok, b)
    assert fin.stats.reused_tokens == shared_tokens(tok, a, b) <= 6  # "<|im_start|>user\n" and a word piece


def shared_tokens(tok: Tokenizer, a: list[ChatMessage], b: list[ChatMessage]) -> int:
    """How many tokens two prompts share from the start (what a KV cache can keep between them)."""
    x, y = tok.encode(chatml(a)).ids, tok.encode(chatml(b)).ids
    n = 0
    while n < min(len(x), len(y)) and x[n] == y[n]:
        n += 1
    return n


class ChunkCountingEngine(LocalEngine):
    """Counts prefill appends and cancels after a given one (a deterministic 'Stop' during a long prompt)."""

    def __init__(self, cancel_after_appends: int) -> None:
        super().__init__()
        self.appends = 0
        self.cancel_after = cancel_after_appends
        real_append = self.kv.append

        def append(tokens: list[int]) -> None:
            real_append(tokens)
            self.appends += 1
            if self.appends == self.cancel_after:
                self.cancel()

        self.kv.append = append  # type: ignore[method-assign]


def test_cancel_during_prefill_stops_within_one_chunk(tiny_model: Path, tok: Tokenizer) -> None:
    engine = ChunkCountingEngine(cancel_after_appends=2)
    engine.load(str(tiny_model), LoadOptions(device="cpu", prefill_chunk=8))
    long = [ChatMessage("user", "word " * 200)]
    deltas, fin = run(engine, long)
    assert fin.reason is FinishReason.CANCELLED and deltas == []
    assert engine.appends == 2  # it stopped at the next chunk boundary
    # The engine is reusable and its cache is correct.
    engine.cancel_after = -1
    msgs = [ChatMessage("user", "short one")]
    deltas, fin = run(engine, msgs)
    assert "".join(deltas) == expected(tok, msgs)


def test_cancel_during_decode_then_continue(engine: LocalEngine, tok: Tokenizer, tiny_model: Path) -> None:
    msgs = [ChatMessage("user", "hello there")]
    deltas: list[str] = []
    fin = None
    for event in engine.generate(msgs, GREEDY):
        if isinstance(event, TextDelta):
            deltas.append(event.text)
            if len(deltas) == 3:
                engine.cancel()
        else:
            fin = event
    assert fin is not None and fin.reason is FinishReason.CANCELLED
    assert len(deltas) == 3 and fin.stats.generated_tokens == 3  # stopped within one decode step
    partial = "".join(deltas)
    assert expected(tok, msgs).startswith(partial)
    # Continue the chat with the partial answer in the history: reuse and fresh agree.
    msgs2 = [*msgs, ChatMessage("assistant", partial), ChatMessage("user", "go on")]
    cont, fin2 = run(engine, msgs2)
    fresh = LocalEngine()
    fresh.load(str(tiny_model), LoadOptions(device="cpu"))
    assert cont == run(fresh, msgs2)[0]
    assert "".join(cont) == expected(tok, msgs2)
    assert fin2.stats.reused_tokens > 0


def test_max_new_tokens_gives_length(engine: LocalEngine) -> None:
    _deltas, fin = run(engine, [ChatMessage("user", "hi")], GenerationOptions(temperature=0, max_new_tokens=3))
    assert fin.reason is FinishReason.LENGTH and fin.stats.generated_tokens == 3


def test_min_new_tokens_masks_the_end_of_turn(engine: LocalEngine) -> None:
    _deltas, fin = run(
        engine, [ChatMessage("user", "hi")], GenerationOptions(temperature=0, min_new_tokens=25, max_new_tokens=25)
    )
    assert fin.reason is FinishReason.LENGTH and fin.stats.generated_tokens == 25


def test_old_turns_are_dropped_to_fit_and_system_prompt_kept(tiny_model: Path, tok: Tokenizer) -> None:
    engine = LocalEngine()
    engine.load(str(tiny_model), LoadOptions(device="cpu", context_budget=160))
    msgs = [*conversation(6), ChatMessage("user", "newest")]
    options = GenerationOptions(temperature=0, max_new_tokens=32)
    kept, prompt, count, dropped = engine.fit_to_budget(msgs, options)
    assert dropped > 0 and dropped % 2 == 0
    assert prompt.startswith("<|im_start|>system\nYou are helpful.")
    assert "question number 0" not in prompt and "newest" in prompt
    assert count + 32 <= 160
    assert kept == [msgs[0], *msgs[1 + dropped :]]
    deltas, fin = run(engine, msgs, options)
    assert fin.stats.dropped_messages == dropped
    assert "".join(deltas) == expected(tok, kept)


def test_a_message_larger_than_the_budget_is_a_clear_error(tiny_model: Path) -> None:
    engine = LocalEngine()
    engine.load(str(tiny_model), LoadOptions(device="cpu", context_budget=128))
    with pytest.raises(PromptTooLongError) as err:
        list(engine.generate([ChatMessage("user", "word " * 500)], GREEDY))
    assert "too long" in str(err.value) and "128" in str(err.value)
    # Nothing broke.
    _deltas, fin = run(engine, [ChatMessage("user", "hi")])
    assert fin.reason is FinishReason.END_OF_TURN


def test_generation_stops_at_the_budget(tiny_model: Path, tok: Tokenizer) -> None:
    msgs = [ChatMessage("user", "hi")]
    n = len(tok.encode(chatml(msgs)).ids)
    reply = len(tok.encode(expected(tok, msgs)).ids)
    engine = LocalEngine()
    engine.load(str(tiny_model), LoadOptions(device="cpu", context_budget=64))
    engine.window.budget = n + reply // 2  # a budget the reply cannot fit in (the loader's minimum is 64)
    engine.min_reply_reserve = 2
    deltas, fin = run(engine, msgs)
    assert fin.reason is FinishReason.LENGTH
    assert fin.stats.generated_tokens == reply // 2  # it filled the budget exactly
    assert fin.stats.context_tokens <= n + reply // 2
    assert expected(tok, msgs).startswith("".join(deltas))


def test_invalid_options_are_rejected(engine: LocalEngine) -> None:
    from localmind.errors import UserFacingError

    for bad in (GenerationOptions(temperature=-1), GenerationOptions(top_p=0), GenerationOptions(max_new_tokens=0)):
        with pytest.raises(UserFacingError):
            engine.generate([ChatMessage("user", "hi")], bad)


def test_generate_without_a_model_is_a_clear_error() -> None:
    from localmind.engine.types import EngineError

    with pytest.raises(EngineError, match="No model is loaded"):
        LocalEngine().generate([ChatMessage("user", "hi")], GREEDY)


def test_text_that_is_not_unicode_is_read_as_replacement_characters(engine: LocalEngine, tok: Tokenizer) -> None:
    """A JSON ``\\ud800`` escape from an API client, or a byte that is not UTF-8 piped to the terminal command
    (read with surrogateescape), arrives as a lone surrogate: og's tokenizer takes UTF-8 only and refused the whole
    message with a binding error. It is read as U+FFFD, the way a decoder shows a bad byte."""
    clean = [ChatMessage("user", "caf\ufffd au lait \ufffd")]
    for text in ("caf\udce9 au lait \ud800", "caf\udce9 au lait \udfff"):
        pieces, finished = run(engine, [ChatMessage("user", text)])
        assert finished.reason is not FinishReason.ERROR, finished.error
        assert "".join(pieces) == expected(tok, clean)
        assert engine.count_tokens([ChatMessage("user", text)]) == engine.count_tokens(clean)
