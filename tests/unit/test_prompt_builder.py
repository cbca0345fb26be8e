"""The prompt builder alone: og's tokenizer and the tiny model's template, no Generator."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from localmind.engine.prompt_builder import ContextWindow, PromptBuilder, order_passages, safe_draft
from localmind.engine.types import ChatMessage, ContextLengthExceededError, GenerationOptions, PromptTooLongError
from tests.helpers.tiny_model import REPLIES


@pytest.fixture(scope="module")
def tokenizer(tiny_model: Path) -> object:
    import onnxruntime_genai as og

    return og.Tokenizer(og.Model(str(tiny_model)))


def builder(tokenizer: object, budget: int, reply_reserve: int = 32) -> PromptBuilder:
    prompts = PromptBuilder(ContextWindow(budget=budget, min_reply_reserve=reply_reserve))
    prompts.attach(tokenizer, None)  # the fallback template: ChatML, as the tiny model's own
    return prompts


def conversation(turns: int) -> list[ChatMessage]:
    messages = [ChatMessage("system", "You are helpful.")]
    for i in range(turns):
        messages += [ChatMessage("user", f"question number {i} about the fox"), ChatMessage("assistant", REPLIES[0])]
    return [*messages, ChatMessage("user", "newest")]


def test_render_and_message_ends_line_up(tokenizer: object) -> None:
    prompts = builder(tokenizer, 2048)
    messages = conversation(2)
    text = prompts.render(messages)
    assert text.startswith("<|im_start|>system\nYou are helpful.<|im_end|>\n")
    assert text.endswith("<|im_start|>user\nnewest<|im_end|>\n<|im_start|>assistant\n")
    ends = prompts.message_ends(messages, text)
    assert ends[-1] == len(text) and ends == sorted(set(ends)) and len(ends) == len(messages)
    assert all(text[end - len("<|im_end|>\n") : end] == "<|im_end|>\n" for end in ends[:-1])
    # Encoding piece by piece gives the tokens of one encode of the whole (the KV cache relies on it).
    pieces = [prompts.encode(text[a:b], at_start=a == 0) for a, b in zip([0, *ends], ends, strict=False)]
    assert [t for piece in pieces for t in piece] == prompts.encode(text)


def test_fit_drops_the_oldest_turns_and_keeps_the_system_prompt(tokenizer: object) -> None:
    prompts = builder(tokenizer, 2048)
    messages = conversation(6)
    whole = prompts.count(messages)
    prompts.window.budget = whole  # room for everything but the reply
    fitted = prompts.fit(messages, GenerationOptions(max_new_tokens=64))
    assert fitted.dropped > 0 and fitted.dropped % 2 == 0
    assert fitted.messages == [messages[0], *messages[1 + fitted.dropped :]]
    assert fitted.tokens + 64 <= whole and fitted.tokens == prompts.count(fitted.messages)
    prompts.window.budget = whole + 64
    assert prompts.fit(messages, GenerationOptions(max_new_tokens=64)).dropped == 0


def test_without_drop_oldest_a_conversation_that_does_not_fit_is_refused_with_its_counts(tokenizer: object) -> None:
    prompts = builder(tokenizer, 2048)
    messages = conversation(6)
    whole = prompts.count(messages)
    prompts.window.budget = whole + 10
    options = GenerationOptions(max_new_tokens=100, drop_oldest=False)
    with pytest.raises(ContextLengthExceededError) as caught:
        prompts.fit(messages, options)
    error = caught.value
    assert isinstance(error, PromptTooLongError)  # callers that catch the old error still do
    assert (error.prompt_tokens, error.max_context, error.max_tokens) == (whole, whole + 10, 100)
    assert (
        error.reply_reserve == min(100, (whole + 10) // 4)
        and f"{whole:,}" in str(error)
        and f"{whole + 10:,}" in str(error)
    )
    prompts.window.budget = whole + 32  # exactly the room the minimum reply reserve asks for
    fitted = prompts.fit(messages, GenerationOptions(max_new_tokens=10, drop_oldest=False))
    assert fitted.dropped == 0 and fitted.tokens == whole


def test_a_single_message_that_cannot_fit_is_too_long(tokenizer: object) -> None:
    prompts = builder(tokenizer, 64)
    with pytest.raises(PromptTooLongError, match="too long"):
        prompts.fit([ChatMessage("user", "word " * 100)], GenerationOptions())


def test_the_draft_prompt_is_the_history_and_the_draft_up_to_its_last_word(tokenizer: object) -> None:
    prompts = builder(tokenizer, 2048)
    history = conversation(1)[:-1]
    planned = prompts.draft_prompt(history, "Tell me a sto", whole=False)
    assert planned is not None
    text, ends = planned
    assert text == prompts.render(history, add_generation_prompt=False) + "<|im_start|>user\nTell me a"
    assert ends[-1] == len(text)
    whole = prompts.draft_prompt(history, "Tell me a story", whole=True)
    assert whole is not None and whole[0] == prompts.render([*history, ChatMessage("user", "Tell me a story")])
    assert safe_draft("Tell me a sto") == "Tell me a" and safe_draft("Tell") == ""


def test_order_passages_keeps_the_longest_stable_prefix() -> None:
    assert order_passages([], ["a", "b"]) == ["a", "b"]
    assert order_passages(["a", "b"], ["b", "a", "c"]) == ["a", "b", "c"]  # both stay: their places, c appended
    assert order_passages(["a", "b", "c"], ["c", "a", "d"]) == ["a", "c", "d"]  # b left: the prefix ends there
    assert order_passages(["a", "b"], ["c"]) == ["c"]
    assert order_passages(["a", "a"], ["a"]) == ["a"]


@dataclass(frozen=True)
class Piece:
    text: str


def compose(chosen: object) -> str:
    return "\n\n".join([*(p.text for p in chosen), "My question: where?"])  # type: ignore[attr-defined]


def cut(piece: Piece, fraction: float) -> Piece:
    return Piece(piece.text[: int(len(piece.text) * fraction)] + "…")


def test_passages_fit_what_the_context_has_left(tokenizer: object) -> None:
    prompts = builder(tokenizer, 2048, reply_reserve=64)  # the reply's room: 64 tokens whatever the budget
    history = [ChatMessage("system", "Be brief.")]
    passages = [Piece("the rain gauge recorded 417 millimetres " * 4), Piece("the lighthouse budget " * 40)]
    question_only = prompts.count([*history, ChatMessage("user", compose([]))])
    one = prompts.count([*history, ChatMessage("user", compose(passages[:1]))])
    # Room for the first passage and half of the second, with a 64-token reply.
    prompts.window.budget = one + 64 + (prompts.count([ChatMessage("user", passages[1].text)]) // 2)
    fitted = prompts.fit_passages(history, passages, compose, cut, max_new_tokens=64)
    assert fitted.offered == 2 and fitted.used == 2 and fitted.shortened == 1
    assert fitted.passages[0] == passages[0] and fitted.passages[1].text.endswith("…")
    assert prompts.count([*history, ChatMessage("user", compose(fitted.passages))]) + 64 <= prompts.window.budget
    # Without shortening the second is left out; with almost no room none is used, and that is no error.
    assert prompts.fit_passages(history, passages, compose, None, max_new_tokens=64).used == 1
    prompts.window.budget = question_only + 64 + 2
    nothing = prompts.fit_passages(history, passages, compose, cut, max_new_tokens=64)
    assert nothing.used == 0 and nothing.passages == [] and nothing.offered == 2
