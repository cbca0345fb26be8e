"""KV reuse is exact on a real transformer built by og's model builder (random weights, llama shape).

The tiny test model proves the bookkeeping; this proves og's cache really holds what LocalEngine thinks:
turn N with reuse, after cancel, after regenerate and after edit gives the same greedy reply as a fresh
prefill of the same history.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from localmind.engine.local import LocalEngine
from localmind.engine.types import ChatMessage, FinishReason, GenerationOptions, LoadOptions, TurnFinished
from tests.helpers.engine_turns import run_turn

pytest.importorskip("torch")
pytest.importorskip("transformers")

pytestmark = pytest.mark.slow
OPTS = GenerationOptions(temperature=0, max_new_tokens=24, repetition_penalty=1.0)


@pytest.fixture(scope="session")
def builder_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from bench.make_models import build

    result = build("micro-llama", tmp_path_factory.mktemp("builder"))
    return Path(result["dir"])


def load(path: Path, **kw: int) -> LocalEngine:
    engine = LocalEngine()
    engine.load(str(path), LoadOptions(device="cpu", context_budget=1024, **kw))
    return engine


def reply(engine: LocalEngine, msgs: list[ChatMessage], cancel_after: int | None = None) -> tuple[str, TurnFinished]:
    return run_turn(engine, msgs, OPTS, cancel_after)


def fresh(path: Path, msgs: list[ChatMessage]) -> str:
    return reply(load(path), msgs)[0]


def test_reuse_cancel_regenerate_and_edit_match_a_fresh_prefill(builder_model: Path) -> None:
    engine = load(builder_model, prefill_chunk=16)
    msgs = [ChatMessage("system", "You are a test.")]
    texts = ["hello there", "tell me about the weather today", "and tomorrow?", "thanks, bye", "one more"]
    reused_any = False
    for i, text in enumerate(texts):
        msgs.append(ChatMessage("user", text))
        out, fin = reply(engine, msgs, cancel_after=4 if i == 2 else None)
        if i == 2:  # stopped after 4 pieces of text: a prefix of the full answer
            assert fin.reason is FinishReason.CANCELLED
            assert fresh(builder_model, msgs).startswith(out) and out
        else:
            assert out == fresh(builder_model, msgs), f"turn {i} differs from a fresh prefill"
        reused_any |= fin.stats.reused_tokens > 0
        msgs.append(ChatMessage("assistant", out))
    assert reused_any
    # Regenerate the last answer.
    again, fin = reply(engine, msgs[:-1])
    assert again == msgs[-1].content and fin.stats.reused_tokens > 0
    # Edit the second user message and resend.
    edited = [*msgs[:3], ChatMessage("user", "an edited question")]
    out, fin = reply(engine, edited)
    assert out == fresh(builder_model, edited)
    assert 0 < fin.stats.reused_tokens < fin.stats.prompt_tokens
