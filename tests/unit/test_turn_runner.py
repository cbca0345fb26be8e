"""The turn runner alone, composed from a prompt builder and a KV cache on the tiny model (no LocalEngine)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from localmind.engine.kv_cache import KVCache
from localmind.engine.prompt_builder import ContextWindow, PromptBuilder
from localmind.engine.turn_runner import TurnRunner
from localmind.engine.types import (
    ChatMessage,
    ContextLengthExceededError,
    FinishReason,
    GenerationOptions,
    StreamEvent,
    TextDelta,
    TurnFinished,
)
from tests.helpers.tiny_model import REPLIES, expected_reply

GREEDY = GenerationOptions(temperature=0)


def runner(tiny_model: Path, budget: int = 512) -> TurnRunner:
    import onnxruntime_genai as og

    model = og.Model(str(tiny_model))
    window = ContextWindow(budget=budget)
    prompts, kv = PromptBuilder(window), KVCache(window)
    prompts.attach(og.Tokenizer(model), None)
    kv.attach(og, model, chunk=16, turn_sized=False, kv_after_first_turn=False)
    turns = TurnRunner(prompts, kv, threading.Event())
    turns.eos = {int(t) for t in prompts.tokenizer.eos_token_ids}
    return turns


def turn(turns: TurnRunner, messages: list[ChatMessage], options: GenerationOptions = GREEDY) -> tuple[str, Any]:
    text, finished = "", None
    for event in turns.run(messages, options):
        if isinstance(event, TextDelta):
            text += event.text
        else:
            finished = event
    assert isinstance(finished, TurnFinished)
    return text, finished


def test_a_turn_streams_the_model_s_reply_and_the_next_reuses_the_cache(tiny_model: Path) -> None:
    turns = runner(tiny_model)
    chat = [ChatMessage("user", "hello")]
    reply, finished = turn(turns, chat)
    assert reply == expected_reply(turns.prompts.encode(turns.prompts.render(chat)))
    assert finished.reason is FinishReason.END_OF_TURN and finished.stats.reused_tokens == 0
    assert finished.stats.generated_tokens > 0 and finished.stats.context_tokens == len(turns.kv.record.tokens)
    chat += [ChatMessage("assistant", reply), ChatMessage("user", "and more")]
    reply2, second = turn(turns, chat)
    assert reply2 == expected_reply(turns.prompts.encode(turns.prompts.render(chat)))
    assert second.stats.reused_tokens >= finished.stats.prompt_tokens  # the first turn and its reply stayed


def test_dropped_messages_are_reported_and_refused_when_dropping_is_off(tiny_model: Path) -> None:
    turns = runner(tiny_model, budget=160)
    chat = [ChatMessage("system", "You are helpful.")]
    for i in range(6):
        chat += [ChatMessage("user", f"question number {i} about the fox"), ChatMessage("assistant", REPLIES[0])]
    chat.append(ChatMessage("user", "newest"))
    _, finished = turn(turns, chat, GenerationOptions(temperature=0, max_new_tokens=32))
    assert finished.stats.dropped_messages > 0
    with pytest.raises(ContextLengthExceededError) as caught:
        turn(turns, chat, GenerationOptions(temperature=0, max_new_tokens=32, drop_oldest=False))
    assert caught.value.max_context == 160 and caught.value.prompt_tokens > 160 - 32


def test_a_cancel_before_the_read_stops_with_nothing_said(tiny_model: Path) -> None:
    turns = runner(tiny_model)
    turns.cancel.set()
    reply, finished = turn(turns, [ChatMessage("user", "hello " * 40)])
    assert reply == "" and finished.reason is FinishReason.CANCELLED and turns.kv.in_step()


class _FailingGenerator:
    def __init__(self, real: Any) -> None:
        self._real = real

    def append_tokens(self, tokens: Any) -> None:
        raise RuntimeError("device lost")

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)


def test_a_failing_read_goes_to_the_fall_back_or_ends_in_an_error(tiny_model: Path) -> None:
    turns = runner(tiny_model)
    turns.kv.generator = _FailingGenerator(turns.kv.new_generator())
    _, finished = turn(turns, [ChatMessage("user", "hello")])
    assert finished.reason is FinishReason.ERROR and "device lost" in (finished.error or "")
    assert turns.kv.generator is None  # og's state after an error is not trusted

    seen: list[Exception] = []

    def fall_back(messages: list[ChatMessage], options: GenerationOptions, exc: Exception) -> Iterator[StreamEvent]:
        seen.append(exc)
        yield TextDelta("from the CPU")

    turns.kv.generator = _FailingGenerator(turns.kv.new_generator())
    events = list(turns.run([ChatMessage("user", "hello")], GREEDY, fall_back))
    assert events == [TextDelta("from the CPU")] and str(seen[0]) == "device lost"
