"""Reasoning models: <think> split from the answer, old thinking left out of prompts, the thinking switch."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from localmind.engine.formats.thinking import ThinkingRouter, split_thinking, strip_thinking, supports_thinking_switch
from localmind.engine.local import LocalEngine
from localmind.engine.types import ChatMessage, GenerationOptions, LoadOptions
from tests.helpers import community_model

# A Qwen3-style template (LocalMind's own wording): it reads enable_thinking at the generation prompt.
THINKING_TEMPLATE = (
    "{%- for message in messages %}"
    "{{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>\\n' }}"
    "{%- endfor %}"
    "{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}"
    "{%- if enable_thinking is defined and enable_thinking is false %}{{- '<think>\\n\\n</think>\\n\\n' }}{%- endif %}"
    "{%- endif %}"
)


@pytest.mark.parametrize(
    ("text", "thinking", "answer", "closed", "has"),
    [
        ("<think>\nplan it\n</think>\n\nHello!", "plan it", "Hello!", True, True),
        ("\n<think>half a thought", "half a thought", "", False, True),
        ("<thi", "", "", False, True),
        ("R1 style thinking</think>\n\nThe answer", "R1 style thinking", "The answer", True, True),
        ("Plain answer with no tags", "", "Plain answer with no tags", False, False),
        ("Say <think> literally, then stop", "", "Say <think> literally, then stop", False, False),
        ("<think>\n\n</think>\n\nThinking was off", "", "Thinking was off", True, True),
    ],
)
def test_split_thinking(text: str, thinking: str, answer: str, closed: bool, has: bool) -> None:
    split = split_thinking(text)
    assert (split.thinking, split.answer, split.closed, split.has_thinking) == (thinking, answer, closed, has)


def test_strip_keeps_text_without_thinking_as_it_is() -> None:
    assert strip_thinking("  spaced answer\n") == "  spaced answer\n"
    assert strip_thinking("<think>x</think>\n\ny") == "y"
    assert strip_thinking("<think>stopped while thinking") == ""


def test_the_router_streams_thinking_apart_from_the_answer() -> None:
    router = ThinkingRouter()
    assert router.feed("<th") == ""
    assert router.feed("ink>\nstep one") == "" and router.thinking == "step one" and not router.closed
    assert router.feed(", step two</thi") == ""
    assert router.feed("nk>\n\nHel") is None  # closed: the answer is rendered afresh from router.answer
    assert router.closed and router.thinking == "step one, step two" and router.answer == "Hel"
    assert router.feed("lo") == "lo"


def test_the_router_passes_plain_answers_through_and_releases_held_text() -> None:
    router = ThinkingRouter()
    assert router.feed("<") == ""  # might be <think>
    assert router.feed("b>bold</b> text") == "<b>bold</b> text"
    assert router.feed(" more") == " more" and not router.has_thinking


def test_an_r1_reply_turns_shown_text_into_thinking() -> None:
    router = ThinkingRouter()
    assert router.feed("Let me think") == "Let me think"
    assert router.feed(" about it.</think>\n\nAnswer") is None
    assert router.thinking == "Let me think about it." and router.answer == "Answer"


def test_supports_thinking_switch() -> None:
    assert supports_thinking_switch(THINKING_TEMPLATE)
    assert not supports_thinking_switch("{{ messages }}") and not supports_thinking_switch(None)


@pytest.fixture(scope="module")
def thinking_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = community_model.copy_of("qwen3-tiny", tmp_path_factory.mktemp("m") / "Qwen3-tiny-ONNX")
    config = json.loads((folder / "tokenizer_config.json").read_text(encoding="utf-8"))
    config["chat_template"] = THINKING_TEMPLATE
    (folder / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    return folder


@pytest.mark.slow
def test_old_thinking_never_reaches_the_prompt_and_the_switch_sets_enable_thinking(thinking_model: Path) -> None:
    engine = LocalEngine()
    info = engine.load(str(thinking_model), LoadOptions(device="cpu", variant="fp32", context_budget=512))
    assert info.thinking_switch
    history = [
        ChatMessage("user", "hi"),
        ChatMessage("assistant", "<think>\nsecret plan\n</think>\n\nHello!"),
        ChatMessage("user", "and now?"),
    ]
    _, prompt, _, _ = engine.fit_to_budget(history, GenerationOptions())
    assert "secret plan" not in prompt and "<|im_start|>assistant\nHello!<|im_end|>" in prompt
    assert prompt.endswith("<|im_start|>assistant\n")
    off = GenerationOptions(temperature=0, max_new_tokens=4, thinking=False)
    list(engine.generate(history, off))
    _, prompt_off, _, _ = engine.fit_to_budget(history, off)
    assert prompt_off.endswith("<|im_start|>assistant\n<think>\n\n</think>\n\n")
    on = GenerationOptions(temperature=0, max_new_tokens=4, thinking=True)
    list(engine.generate(history, on))
    assert engine.fit_to_budget(history, on)[1] == prompt


@pytest.mark.slow
def test_a_model_without_the_switch_says_so() -> None:
    engine = LocalEngine()
    info = engine.load(str(community_model.cached("smollm2-tiny")), LoadOptions(device="cpu", context_budget=256))
    assert not info.thinking_switch
