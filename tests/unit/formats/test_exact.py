"""Token-exact: LocalMind's greedy reply on an onnx-community export equals a plain onnxruntime greedy loop.

LocalMind runs the graph it prepared (fp32 and q4: attention rewritten to GroupQueryAttention with a shared
KV buffer); the reference runs the export's ORIGINAL graph (q4: with accuracy_level=4 and nothing else), with
the same prompt tokens, for fp32, q4 and fp16, on the SmolLM2 and Qwen3 shapes; and after KV reuse,
regenerate (rewind), cancel and edit, where the reference is a fresh onnxruntime run over the whole history:
any token og's cache lost or duplicated changes it.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest

from localmind.engine.formats import genai_config, optimize
from localmind.engine.local import LocalEngine
from localmind.engine.types import ChatMessage, FinishReason, GenerationOptions, LoadOptions, TurnFinished
from tests.helpers import community_model, ort_reference
from tests.helpers.engine_turns import run_turn

pytestmark = pytest.mark.slow
GREEDY = GenerationOptions(temperature=0, repetition_penalty=1.0, max_new_tokens=20, min_new_tokens=6)


@pytest.fixture(scope="session", params=["smollm2-tiny", "qwen3-tiny"])
def community(request: pytest.FixtureRequest) -> Path:
    return community_model.cached(request.param)


def load(folder: Path, variant: str | None = None, chunk: int = 128) -> LocalEngine:
    engine = LocalEngine()
    engine.load(str(folder), LoadOptions(device="cpu", variant=variant, context_budget=512, prefill_chunk=chunk))
    return engine


def turn(engine: LocalEngine, messages: list[ChatMessage], cancel_after: int | None = None) -> tuple[str, TurnFinished]:
    return run_turn(engine, messages, GREEDY, cancel_after)


_REFERENCES: dict[Path, Path] = {}


def original_graph(engine: LocalEngine) -> Path:
    """The graph as the export ships it (unfused attention, concatenated KV), for the variant the engine loaded.

    For 4-bit graphs: with accuracy_level=4 set and nothing else, since that attribute alone changes the
    numbers (int8 activations) and the engine's graph has it too; what is compared is the attention rewrite.
    """
    assert engine.folder is not None
    record = json.loads((engine.folder.path / "localmind-generated.json").read_text(encoding="utf-8"))
    source = Path(record["source"]) / record["decoder"]
    if source not in _REFERENCES:
        out = Path(tempfile.mkdtemp(prefix="lm-reference-")) / source.name
        written = optimize.rewrite_graph(source, out).written  # no config: attributes only, never attention
        _REFERENCES[source] = out if written else source
    return _REFERENCES[source]


def expected(engine: LocalEngine, finished: TurnFinished, graph: Path | None = None) -> tuple[str, list[int]]:
    """What onnxruntime alone generates from the prompt tokens this turn ran on (a fresh run, no cache),
    on the export's ORIGINAL graph (unfused attention, concatenated KV) unless ``graph`` says otherwise."""
    assert engine.info is not None and engine.folder is not None
    prompt = engine.kv.record.tokens[: finished.stats.prompt_tokens]
    assert len(prompt) == finished.stats.prompt_tokens
    tokens = ort_reference.greedy(
        graph or original_graph(engine), prompt, GREEDY.max_new_tokens, engine.runner.eos, GREEDY.min_new_tokens
    )
    # Decoded as the engine streams it (random tokens are often partial UTF-8, which a whole decode treats apart).
    stream = engine.prompts.tokenizer.create_stream()
    return "".join(stream.decode(t) for t in tokens), tokens


@pytest.mark.parametrize("variant", ["fp32", "q4", "fp16"])
def test_first_turn_matches_onnxruntime(community: Path, variant: str) -> None:
    engine = load(community, variant)
    assert engine.info is not None and engine.info.model_name.endswith(f"({variant})")
    assert engine.folder is not None
    fused = "GroupQueryAttention" in genai_config.read_graph_io(engine.folder.onnx_file).op_types
    assert fused is (variant != "fp16")  # fp16 KV: the attention stays as exported
    reply, finished = turn(engine, [ChatMessage("user", "Hello there! How are you today?")])
    assert finished.reason in (FinishReason.END_OF_TURN, FinishReason.LENGTH)
    text, tokens = expected(engine, finished)
    assert reply == text
    assert finished.stats.generated_tokens == len(tokens) > 3
    assert len(set(tokens)) > 2, "random weights too small: the reply repeats one token"


@pytest.mark.parametrize("variant", ["fp32", "q4"])
def test_reuse_regenerate_cancel_and_edit_match_a_fresh_onnxruntime_run(community: Path, variant: str) -> None:
    engine = load(community, variant, chunk=8)
    assert engine.folder is not None
    assert "GroupQueryAttention" in genai_config.read_graph_io(engine.folder.onnx_file).op_types
    history = [ChatMessage("system", "You are terse."), ChatMessage("user", "hello there")]
    reply, finished = turn(engine, history)
    assert reply == expected(engine, finished)[0]

    # Next turn: only the new message is read; the rest comes from og's cache.
    history += [ChatMessage("assistant", reply), ChatMessage("user", "tell me about the weather today")]
    reply, finished = turn(engine, history)
    assert finished.stats.reused_tokens > 0
    assert reply == expected(engine, finished)[0]

    # Regenerate: the same history again rewinds to the end of the prompt.
    again, finished = turn(engine, history)
    assert finished.stats.reused_tokens > 0
    assert again == reply == expected(engine, finished)[0]

    # Cancel mid-reply, keep the partial reply, and go on: the cache must hold exactly what was shown.
    partial, finished = turn(engine, history, cancel_after=1)
    assert finished.reason is FinishReason.CANCELLED
    history += [ChatMessage("assistant", partial), ChatMessage("user", "and tomorrow?")]
    reply, finished = turn(engine, history)
    assert finished.stats.reused_tokens > 0
    assert reply == expected(engine, finished)[0]

    # Edit an earlier message: the cache rewinds to before it.
    edited = [history[0], ChatMessage("user", "hello there, friend"), *history[2:]]
    reply, finished = turn(engine, edited)
    assert 0 < finished.stats.reused_tokens < finished.stats.prompt_tokens
    assert reply == expected(engine, finished)[0]
