"""Tools on the real og with the tiny model: rendering through the template (one that takes tools, and the generic
instruction for one that does not), required and named calls by constrained decoding, "auto" and "none", a tool
result fed back, and the calls crossing the engine's process."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import onnxruntime_genai as og
import pytest
from tokenizers import Tokenizer

from localmind.engine.local import LocalEngine
from localmind.engine.process import EngineProcess
from localmind.engine.prompt_builder import ContextWindow, PromptBuilder
from localmind.engine.tools import parse_tools
from localmind.engine.types import (
    ChatMessage,
    EngineError,
    FinishReason,
    GenerationOptions,
    LoadOptions,
    ToolCall,
)
from tests.helpers.engine_turns import run_turn
from tests.helpers.tiny_model import REPLIES, expected_reply

WEATHER = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "maxLength": 20},
        "unit": {"enum": ["celsius", "fahrenheit"]},
        "days": {"type": "integer", "minimum": 1, "maximum": 7},
    },
    "required": ["city", "unit", "days"],
    "additionalProperties": False,
}
TOOLS = json.dumps(
    [
        {"type": "function", "function": {"name": "get_weather", "description": "Forecast.", "parameters": WEATHER}},
        {
            "type": "function",
            "function": {
                "name": "add",
                "parameters": {
                    "type": "object",
                    "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                    "required": ["a", "b"],
                    "additionalProperties": False,
                },
            },
        },
    ]
)
# A template written here in the style of tool-calling chat templates: tools in the system turn, calls as
# <tool_call> blocks, results as <tool_response> in a user turn. (og's renderer hands each tool to a template's loop
# as its function object: name, description, parameters.)
TOOL_TEMPLATE = (
    "{% if tools %}<|im_start|>system\nTools:\n{% for t in tools %}{{ t | tojson }}\n{% endfor %}<|im_end|>\n"
    "{% endif %}{% for m in messages %}{% if m.role == 'tool' %}<|im_start|>user\n<tool_response>\n{{ m.content }}\n"
    "</tool_response><|im_end|>\n{% else %}<|im_start|>{{ m.role }}\n{{ m.content }}{% if m.tool_calls %}"
    '{% for c in m.tool_calls %}<tool_call>\n{"name": "{{ c.function.name }}", "arguments": '
    "{{ c.function.arguments | tojson }}}\n</tool_call>{% endfor %}{% endif %}<|im_end|>\n{% endif %}{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


@pytest.fixture
def engine(tiny_model: Path) -> LocalEngine:
    e = LocalEngine()
    e.load(str(tiny_model), LoadOptions(device="cpu"))
    return e


def builder(tiny_model: Path, template: str | None) -> PromptBuilder:
    prompts = PromptBuilder(ContextWindow(2048))
    prompts.attach(og.Tokenizer(og.Model(str(tiny_model))), template)
    return prompts


HISTORY = [
    ChatMessage("system", "Be brief."),
    ChatMessage("user", "Weather in Paris?"),
    ChatMessage("assistant", "", tool_calls=(ToolCall("call_1", "get_weather", '{"city": "Paris"}'),)),
    ChatMessage("tool", "18 C, sunny", tool_call_id="call_1"),
]


def test_a_template_that_takes_tools_renders_them_and_the_calls(tiny_model: Path) -> None:
    prompts = builder(tiny_model, TOOL_TEMPLATE)
    prompts.tools = parse_tools(TOOLS)
    text = prompts.render(HISTORY)
    assert '{"name": "get_weather"' in text and '"parameters":' in text  # the tools, by the template
    assert '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>' in text
    assert "<tool_response>\n18 C, sunny\n</tool_response>" in text
    assert "You can call these tools" not in text  # no generic instruction where the template has its own
    prompts.tools = None
    assert "Tools:" not in prompts.render(HISTORY)  # tool_choice "none": no tools rendered


def test_a_template_without_tools_gets_the_generic_instruction(tiny_model: Path) -> None:
    prompts = builder(tiny_model, None)  # ChatML, which knows nothing of tools
    prompts.tools = parse_tools(TOOLS)
    text = prompts.render(HISTORY)
    assert text.startswith("<|im_start|>system\nBe brief.\n\nYou can call these tools")
    assert '"name": "add"' in text
    assert '<|im_start|>assistant\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}' in text
    assert "<|im_start|>user\n<tool_response>\n18 C, sunny\n</tool_response><|im_end|>" in text


@pytest.mark.parametrize(("temperature", "seed"), [(0.0, None), (0.9, 1), (1.3, 2)])
def test_a_required_call_is_valid_against_the_schema(engine: LocalEngine, temperature: float, seed: int | None) -> None:
    ask = [ChatMessage("user", "Weather in Paris?")]
    options = GenerationOptions(tools=TOOLS, tool_choice="required", temperature=temperature, seed=seed)
    text, finished = run_turn(engine, ask, options)
    assert text == ""  # a call is not content
    assert finished.reason is FinishReason.END_OF_TURN
    (call,) = finished.tool_calls
    assert call.name in ("get_weather", "add") and call.id.startswith("call_")
    schema = WEATHER if call.name == "get_weather" else json.loads(TOOLS)[1]["function"]["parameters"]
    jsonschema.validate(json.loads(call.arguments), schema)


def test_a_named_function_is_the_one_called(engine: LocalEngine) -> None:
    for name in ("add", "get_weather"):
        options = GenerationOptions(tools=TOOLS, tool_choice="function", tool_name=name, temperature=0.8, seed=3)
        _, finished = run_turn(engine, [ChatMessage("user", "Go")], options)
        assert [c.name for c in finished.tool_calls] == [name]
    with pytest.raises(EngineError, match="nowhere"):
        run_turn(
            engine,
            [ChatMessage("user", "Go")],
            GenerationOptions(tools=TOOLS, tool_choice="function", tool_name="nowhere"),
        )


def test_auto_streams_the_reply_when_the_model_calls_nothing(engine: LocalEngine, tiny_model: Path) -> None:
    tok = Tokenizer.from_file(str(tiny_model / "tokenizer.json"))
    ask = [ChatMessage("user", "Hi")]
    text, finished = run_turn(engine, ask, GenerationOptions(tools=TOOLS, temperature=0))
    assert finished.tool_calls == ()
    # The tiny model's reply depends on every prompt token: it answered the prompt with the tools instruction.
    prompts = builder(tiny_model, None)
    prompts.tools = parse_tools(TOOLS)
    assert text == expected_reply(tok.encode(prompts.render(ask)).ids)
    plain, _ = run_turn(engine, ask, GenerationOptions(tools=TOOLS, tool_choice="none", temperature=0))
    prompts.tools = None
    assert plain == expected_reply(tok.encode(prompts.render(ask)).ids)


def test_an_agent_round_trip(engine: LocalEngine, tiny_model: Path) -> None:
    """A call is made, its result fed back as a tool turn, and the model answers from the whole history."""
    tok = Tokenizer.from_file(str(tiny_model / "tokenizer.json"))
    chat = [ChatMessage("user", "Weather in Paris for 2 days?")]
    _, finished = run_turn(
        engine, chat, GenerationOptions(tools=TOOLS, tool_choice="function", tool_name="get_weather", temperature=0)
    )
    chat += [
        ChatMessage("assistant", "", tool_calls=finished.tool_calls),
        ChatMessage("tool", json.dumps({"forecast": ["sun", "rain"]}), tool_call_id=finished.tool_calls[0].id),
    ]
    answer, done = run_turn(engine, chat, GenerationOptions(tools=TOOLS, temperature=0))
    assert done.reason is FinishReason.END_OF_TURN and done.tool_calls == ()
    prompts = builder(tiny_model, None)
    prompts.tools = parse_tools(TOOLS)
    rendered = prompts.render(chat)
    assert '"arguments": ' + finished.tool_calls[0].arguments in rendered
    assert answer in REPLIES and answer == expected_reply(tok.encode(rendered).ids)


def test_tool_calls_cross_the_engine_process(tiny_model: Path) -> None:
    engine = EngineProcess()
    try:
        engine.load(str(tiny_model), LoadOptions(device="cpu"))
        options = GenerationOptions(tools=TOOLS, tool_choice="function", tool_name="add", temperature=0)
        _, finished = run_turn(engine, [ChatMessage("user", "1+2")], options)
        (call,) = finished.tool_calls
        assert call.name == "add" and set(json.loads(call.arguments)) == {"a", "b"}
        history = [
            ChatMessage("user", "1+2"),
            ChatMessage("assistant", "", tool_calls=finished.tool_calls),
            ChatMessage("tool", "3", tool_call_id=call.id),
        ]
        assert run_turn(engine, history, GenerationOptions(tools=TOOLS, temperature=0))[0] in REPLIES
    finally:
        engine.close()
