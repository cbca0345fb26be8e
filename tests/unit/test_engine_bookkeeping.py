"""The engine's record of its KV cache never drifts from og's (issue 9 item 19).

* An interrupt that lands between og's append and the engine's own record (Ctrl+C in the terminal chat) leaves
  og one step ahead: the next turn must notice and read the prompt again, and answer as a fresh engine would.
* A tokenizer that puts a BOS in front of every encode (Llama 3 style) must not put one in the middle of the
  context when the prompt is encoded piece by piece.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from tokenizers import Tokenizer

from localmind.engine.local import LocalEngine
from localmind.engine.types import ChatMessage, FinishReason, GenerationOptions, LoadOptions, TurnFinished
from tests.helpers.engine_turns import run_turn
from tests.helpers.tiny_model import EOT

GREEDY = GenerationOptions(temperature=0)


def run(engine: LocalEngine, messages: list[ChatMessage]) -> tuple[str, TurnFinished]:
    return run_turn(engine, messages, GREEDY)


def fresh_reply(tiny_model: Path, messages: list[ChatMessage]) -> str:
    engine = LocalEngine()
    engine.load(str(tiny_model), LoadOptions(device="cpu"))
    return run(engine, messages)[0]


class _InterruptOnce:
    """og's Generator, with a Ctrl+C landing right after og took a given append (behind the real interface)."""

    def __init__(self, real: Any, at_append: int) -> None:
        self._real, self._left = real, at_append

    def append_tokens(self, tokens: Any) -> None:
        self._real.append_tokens(tokens)
        self._left -= 1
        if self._left == 0:
            raise KeyboardInterrupt

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)


@pytest.mark.parametrize("at_append", [1, 2])  # the new message's first chunk; the reply's first token
def test_an_interrupt_between_og_and_the_record_is_noticed(tiny_model: Path, at_append: int) -> None:
    engine = LocalEngine()
    engine.load(str(tiny_model), LoadOptions(device="cpu"))
    chat = [ChatMessage("user", "Tell me a story about a cat.")]
    reply, _ = run(engine, chat)
    chat += [ChatMessage("assistant", reply), ChatMessage("user", "hello")]
    engine.kv.generator = _InterruptOnce(engine.kv.generator, at_append)
    with pytest.raises(KeyboardInterrupt):  # Ctrl+C: the terminal keeps the question with an empty answer
        run(engine, chat)
    engine.kv.generator = engine.kv.generator._real
    assert int(engine.kv.generator.token_count()) != len(engine.kv.record.tokens)  # what the interrupt leaves
    chat += [ChatMessage("assistant", ""), ChatMessage("user", "hello hi how are you")]
    reply, finished = run(engine, chat)
    assert finished.reason is FinishReason.END_OF_TURN
    assert reply == fresh_reply(tiny_model, chat)
    assert int(engine.kv.generator.token_count()) == len(engine.kv.record.tokens)
    assert [int(t) for t in engine.kv.generator.get_sequence(0)] == engine.kv.record.tokens


class _BosOnEveryEncode:
    """og's tokenizer as a Llama 3 tokenizer behaves: a BOS in front of every encoded text."""

    def __init__(self, real: Any, bos: int) -> None:
        self._real, self._bos = real, bos

    @property
    def bos_token_id(self) -> int:
        return self._bos

    def encode(self, text: str) -> Any:
        return np.concatenate([np.asarray([self._bos], dtype=np.int32), self._real.encode(text)])

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)


def test_a_tokenizer_that_adds_bos_to_every_encode_gives_one_bos_at_the_start(
    tiny_model: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import onnxruntime_genai as og

    bos = Tokenizer.from_file(str(tiny_model / "tokenizer.json")).token_to_id(EOT)
    real_tokenizer = og.Tokenizer
    monkeypatch.setattr(og, "Tokenizer", lambda model: _BosOnEveryEncode(real_tokenizer(model), bos))
    engine = LocalEngine()
    engine.load(str(tiny_model), LoadOptions(device="cpu"))
    chat = [ChatMessage("system", "You are helpful."), ChatMessage("user", "hello")]
    for question in ("Tell me a story about a cat.", "What is 2 + 2?", "中文 emoji 😀"):
        reply, finished = run(engine, chat)
        assert finished.reason is FinishReason.END_OF_TURN
        chat += [ChatMessage("assistant", reply), ChatMessage("user", question)]
    run(engine, chat)
    tokens = engine.kv.record.tokens
    assert tokens[0] == bos and bos not in tokens[1:]
    # The prompt part is exactly one encode of the whole conversation (what a fresh prefill reads).
    prompt_end = engine.kv.record.token_marks[-2]
    assert tokens[:prompt_end] == [int(t) for t in engine.prompts.tokenizer.encode(engine.prompts.render(chat))]
    assert [int(t) for t in engine.kv.generator.get_sequence(0)] == tokens
