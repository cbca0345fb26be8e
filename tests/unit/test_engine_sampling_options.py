"""logprobs / top_logprobs, logit_bias, n > 1 on a shared prompt cache, token-id and text prompts read without the
template, and fill-in-the-middle (suffix) — on the real og with the tiny model, whose logits are a one-hot
(+10 for its next token, -10 for every other), so each log-probability is known exactly."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import onnxruntime_genai as og
import pytest
from tokenizers import Tokenizer

from localmind.engine.local import LocalEngine
from localmind.engine.process import EngineProcess
from localmind.engine.prompt_builder import ContextWindow, PromptBuilder
from localmind.engine.sampling import token_logprob
from localmind.engine.types import (
    ChatMessage,
    ContextLengthExceededError,
    EngineError,
    FinishReason,
    GenerationOptions,
    LoadOptions,
    TextDelta,
    TokenLogprob,
    TurnFinished,
    choice_options,
)
from tests.helpers.engine_turns import run_turn
from tests.helpers.tiny_model import EOT, IM_END, IM_START, REPLIES, expected_reply
from tests.unit.test_engine_generate import chatml

ASK = [ChatMessage("user", "Hello!")]


@pytest.fixture
def engine(tiny_model: Path) -> LocalEngine:
    e = LocalEngine()
    e.load(str(tiny_model), LoadOptions(device="cpu"))
    return e


@pytest.fixture
def tok(tiny_model: Path) -> Tokenizer:
    return Tokenizer.from_file(str(tiny_model / "tokenizer.json"))


def events(engine: LocalEngine | EngineProcess, options: GenerationOptions) -> tuple[list[TextDelta], TurnFinished]:
    deltas: list[TextDelta] = []
    for event in engine.generate(ASK, options):
        if isinstance(event, TextDelta):
            deltas.append(event)
        else:
            assert isinstance(event, TurnFinished)
            return deltas, event
    raise AssertionError("no TurnFinished")


def test_logprobs_of_each_generated_token(engine: LocalEngine, tok: Tokenizer) -> None:
    # No repetition penalty: the distribution is the model's own (the penalty would change it, as documented).
    options = GenerationOptions(temperature=0, repetition_penalty=1.0, logprobs=True, top_logprobs=3)
    deltas, finished = events(engine, options)
    reply = "".join(d.text for d in deltas)
    ids = tok.encode(reply).ids
    logprobs = [lp for d in deltas for lp in d.logprobs]
    assert len(logprobs) == finished.stats.generated_tokens == len(ids)
    vocab = tok.get_vocab_size()
    chosen = -math.log1p((vocab - 1) * math.exp(-20))  # log-softmax of the one-hot's +10 against vocab-1 at -10
    other = -20 + chosen
    for lp in logprobs:
        assert lp.logprob == pytest.approx(chosen, abs=1e-9)
        assert lp.bytes == tuple(lp.token.encode())
        assert len(lp.top) == 3 and lp.top[0][0] == lp.token and lp.top[0][1] == pytest.approx(chosen, abs=1e-9)
        assert [value for _, value, _ in lp.top[1:]] == pytest.approx([other, other], abs=1e-6)
    assert [lp.token for lp in logprobs] == [tok.decode([t]) for t in ids]
    plain, _ = events(engine, GenerationOptions(temperature=0))
    assert all(d.logprobs == () for d in plain)  # opt-in


def test_logprobs_cross_the_engine_process(tiny_model: Path) -> None:
    engine = EngineProcess()
    try:
        engine.load(str(tiny_model), LoadOptions(device="cpu"))
        deltas, finished = events(engine, GenerationOptions(temperature=0, logprobs=True, top_logprobs=2))
        logprobs = [lp for d in deltas for lp in d.logprobs]
        assert len(logprobs) == finished.stats.generated_tokens and isinstance(logprobs[0], TokenLogprob)
    finally:
        engine.close()


def test_token_logprob_against_numpy() -> None:
    rng = np.random.default_rng(5)
    logits = rng.normal(size=50).astype(np.float32)
    logits[3] = -np.inf  # a banned token
    got = token_logprob(logits, 7, 5, str)
    x = logits.astype(np.float64)
    expected = x - np.log(np.exp(x[np.isfinite(x)]).sum())
    assert got.logprob == pytest.approx(expected[7])
    assert [int(t) for t, _, _ in got.top] == list(np.argsort(-x)[:5])
    assert token_logprob(logits, 3, 0, str).logprob == -9999.0


def test_logit_bias_bans_and_forces_tokens(engine: LocalEngine, tok: Tokenizer) -> None:
    greedy, _ = run_turn(engine, ASK, GenerationOptions(temperature=0))
    greedy_first = tok.encode(greedy).ids[0]
    banned, _ = run_turn(engine, ASK, GenerationOptions(temperature=0, logit_bias=((greedy_first, -100.0),)))
    assert tok.encode(banned).ids[:1] != [greedy_first]
    cat = tok.token_to_id("cat")
    assert cat is not None and cat != greedy_first
    forced, _ = run_turn(engine, ASK, GenerationOptions(temperature=0, max_new_tokens=1, logit_bias=((cat, 100.0),)))
    assert forced == "cat"
    with pytest.raises(EngineError, match="logit_bias"):
        run_turn(engine, ASK, GenerationOptions(logit_bias=((1, 5.0),), json_schema='{"type": "object"}'))


def test_n_choices_read_the_prompt_once(engine: LocalEngine) -> None:
    """Choices are sequential turns on the same prompt: the second keeps the whole prompt in the cache but its
    last token (read again for fresh logits) and drops the first choice's reply."""
    options = GenerationOptions(temperature=0.9, seed=11)
    first, one = run_turn(engine, ASK, options)
    second, two = run_turn(engine, ASK, GenerationOptions(temperature=0.9, seed=12))
    assert one.stats.reused_tokens == 0
    assert two.stats.reused_tokens == two.stats.prompt_tokens - 1
    assert first in REPLIES and second in REPLIES


def test_a_token_id_prompt_is_read_as_it_is(engine: LocalEngine, tok: Tokenizer) -> None:
    ids = tok.encode(chatml([ChatMessage("user", "Tell me a story about a cat.")])).ids
    text, finished = run_turn(engine, [], GenerationOptions(temperature=0, prompt_token_ids=tuple(ids)))
    assert text == expected_reply(ids)
    assert finished.stats.prompt_tokens == len(ids)
    again, second = run_turn(engine, [], GenerationOptions(temperature=0, prompt_token_ids=tuple(ids)))
    assert again == text and second.stats.reused_tokens == len(ids) - 1  # n > 1 on a token prompt shares it too
    # A chat turn afterwards keeps only the tokens it has in common with the raw prompt, and answers exactly.
    chat = [ChatMessage("user", "Hi")]
    reply, third = run_turn(engine, chat, GenerationOptions(temperature=0))
    assert third.stats.reused_tokens <= 3 and reply == expected_reply(tok.encode(chatml(chat)).ids)


def test_a_text_prompt_skips_the_template(engine: LocalEngine, tok: Tokenizer) -> None:
    raw = f"{IM_START}user\nWhat is 2 + 2?{IM_END}\n{IM_START}assistant\n"
    text, _ = run_turn(engine, [], GenerationOptions(temperature=0, raw_prompt=raw))
    assert text == expected_reply(tok.encode(raw).ids)


@pytest.mark.parametrize("ids", [(-1,), (10**6,), ()])
def test_token_ids_outside_the_vocabulary_are_refused(engine: LocalEngine, ids: tuple[int, ...]) -> None:
    with pytest.raises(EngineError, match="token ids must be between 0 and"):
        run_turn(engine, [], GenerationOptions(prompt_token_ids=ids))
    assert run_turn(engine, ASK, GenerationOptions(temperature=0))[1].reason is FinishReason.END_OF_TURN


def test_a_token_prompt_longer_than_the_context_is_refused(engine: LocalEngine) -> None:
    with pytest.raises(ContextLengthExceededError):
        run_turn(engine, [], GenerationOptions(prompt_token_ids=(5,) * 3000))


def test_suffix_without_fim_tokens_is_refused_naming_suffix(engine: LocalEngine) -> None:
    with pytest.raises(EngineError, match=r"^suffix is not supported by this model"):
        run_turn(engine, [], GenerationOptions(raw_prompt="def f(", suffix="    return x\n"))


def fim_builder(tiny_model: Path, tmp_path: Path) -> tuple[PromptBuilder, Tokenizer]:
    """The tiny tokenizer with Qwen's fill-in-the-middle tokens added (prompt building only: the tiny graph's
    vocabulary does not reach them)."""
    folder = tmp_path / "fim"
    folder.mkdir()
    for name in ("genai_config.json", "tokenizer_config.json", "special_tokens_map.json", "model.onnx"):
        (folder / name).write_bytes((tiny_model / name).read_bytes())
    tok = Tokenizer.from_file(str(tiny_model / "tokenizer.json"))
    tok.add_special_tokens(["<|fim_prefix|>", "<|fim_suffix|>", "<|fim_middle|>"])
    tok.save(str(folder / "tokenizer.json"))
    prompts = PromptBuilder(ContextWindow(2048))
    prompts.attach(og.Tokenizer(og.Model(str(folder))), None)
    return prompts, tok


def test_fill_in_the_middle_prompt(tiny_model: Path, tmp_path: Path) -> None:
    prompts, tok = fim_builder(tiny_model, tmp_path)
    ids = prompts.raw_tokens(GenerationOptions(raw_prompt="hello hi", suffix=" how are you"))
    pre, suf, mid = (tok.token_to_id(t) for t in ("<|fim_prefix|>", "<|fim_suffix|>", "<|fim_middle|>"))
    assert ids == [pre, *tok.encode("hello hi").ids, suf, *tok.encode(" how are you").ids, mid]
    assert prompts.special_token(EOT) is not None and prompts.special_token("hello hi") is None
    with pytest.raises(EngineError, match="suffix needs a text prompt"):
        prompts.raw_tokens(GenerationOptions(prompt_token_ids=(1, 2), suffix="x"))


def test_choice_options_give_each_choice_its_own_seed() -> None:
    seeded = GenerationOptions(seed=7)
    assert [choice_options(seeded, i).seed for i in range(3)] == [7, 8, 9]
    assert choice_options(GenerationOptions(), 2).seed is None
