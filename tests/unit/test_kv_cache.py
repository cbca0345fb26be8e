"""The KV cache alone: the record, and og's Generator kept in step with it (the tiny model, no prompt builder)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from localmind.engine.kv_cache import CacheRecord, KVCache, common_prefix_length
from localmind.engine.prompt_builder import ContextWindow


@pytest.fixture(scope="module")
def og_model(tiny_model: Path) -> tuple[Any, Any, Any]:
    import onnxruntime_genai as og

    model = og.Model(str(tiny_model))
    return og, model, og.Tokenizer(model)


def cache(og_model: tuple[Any, Any, Any], budget: int = 256, chunk: int = 8) -> KVCache:
    og, model, _ = og_model
    kv = KVCache(ContextWindow(budget=budget))
    kv.attach(og, model, chunk=chunk, turn_sized=False, kv_after_first_turn=False)
    return kv


def fresh_logits(og_model: tuple[Any, Any, Any], tokens: list[int]) -> np.ndarray:
    og, model, _ = og_model
    params = og.GeneratorParams(model)
    params.set_search_options(max_length=256, do_sample=False)
    generator = og.Generator(model, params)
    generator.append_tokens(np.asarray(tokens, dtype=np.int32))
    logits: np.ndarray = generator.get_logits()
    return logits.reshape(-1, logits.shape[-1])[-1].copy()


def encoder(og_model: tuple[Any, Any, Any]) -> Any:
    tokenizer = og_model[2]
    return lambda text, at_start: [int(t) for t in tokenizer.encode(text)] if text else []


def test_the_record_rewinds_to_aligned_points() -> None:
    record = CacheRecord()
    record.tokens, record.text = [1, 2, 3], "abc"
    record.mark()
    record.tokens += [4, 5]
    record.text = "abcde"
    record.mark()
    assert record.reusable_prefix("abcdX") == (3, 3)  # the last aligned point inside the common prefix
    assert record.reusable_prefix("abcde and more") == (5, 5)
    assert record.reusable_prefix("X") == (0, 0)
    record.next_logits = np.zeros(3, dtype=np.float32)
    record.truncate(3, 3, keep=1)
    assert record.tokens == [1, 2, 3, 4] and record.text == "abc" and record.next_logits is None
    assert record.text_marks == [0, 3] and record.token_marks == [0, 3]


def test_common_prefix_length_across_blocks() -> None:
    a = "x" * 5000 + "yz"
    assert common_prefix_length(a, "x" * 5000 + "yq") == 5001
    assert common_prefix_length(a, a) == len(a)
    assert common_prefix_length("", a) == 0


def test_appends_and_rewinds_give_the_logits_of_a_fresh_read(og_model: tuple[Any, Any, Any]) -> None:
    kv = cache(og_model)
    first, second = [5, 6, 7, 8, 9, 10], [20, 21, 22]
    kv.append(first)
    kv.record.text = "six"
    kv.record.mark()
    assert kv.in_step() and np.array_equal(kv.next_logits(), fresh_logits(og_model, first))
    kv.append(second)
    kv.rewind(3, 6, keep=0)  # back to the mark: og's rewind waits for the next append
    assert kv.pending_rewind == 6 and kv.og_length() == 6 and kv.in_step()
    kv.append([30])
    assert kv.pending_rewind is None and int(kv.generator.token_count()) == 7
    assert np.array_equal(kv.next_logits(), fresh_logits(og_model, [*first, 30]))
    assert [int(t) for t in kv.generator.get_sequence(0)] == kv.record.tokens == [*first, 30]


def test_plan_keeps_what_the_prompt_shares_and_reads_only_the_rest(og_model: tuple[Any, Any, Any]) -> None:
    kv, encode = cache(og_model), encoder(og_model)
    head = "<|im_start|>user\nhello<|im_end|>\n"
    prompt = head + "<|im_start|>assistant\n"
    reused, pieces = kv.plan(prompt, [len(head), len(prompt)], encode, speculative=False)
    assert reused == 0 and [end for end, _ in pieces] == [len(head), len(prompt)]
    for end, tokens in pieces:
        kv.append(tokens)
        kv.record.text = prompt[:end]
        kv.record.mark()
    longer = prompt + "Hi!<|im_end|>\n<|im_start|>user\nmore<|im_end|>\n<|im_start|>assistant\n"
    reused, pieces = kv.plan(longer, [len(prompt), len(longer)], encode, speculative=False)
    assert reused == len(encode(prompt, True)) and [end for end, _ in pieces] == [len(longer)]
    # The same prompt again keeps one token back: appending it gives the logits to sample from.
    reused, pieces = kv.plan(prompt, [len(head), len(prompt)], encode, speculative=False)
    assert reused + sum(len(t) for _, t in pieces) == len(encode(prompt, True)) and len(pieces) == 1
    assert reused == len(kv.record.tokens) and kv.in_step()


def test_the_kept_prediction_is_used_once_and_forgotten_on_change(og_model: tuple[Any, Any, Any]) -> None:
    kv = cache(og_model)
    kv.append([5, 6, 7])
    kv.keep_logits()
    kept = kv.kept_logits()
    assert kept is not None and np.array_equal(kept, fresh_logits(og_model, [5, 6, 7]))
    assert kv.next_logits() is kept and kv.kept_logits() is None  # used once
    kv.keep_logits()
    kv.append([8])
    assert kv.kept_logits() is None


def test_og_out_of_step_is_noticed_and_a_drop_starts_over(og_model: tuple[Any, Any, Any]) -> None:
    kv = cache(og_model)
    kv.append([5, 6, 7])
    kv.generator.append_tokens(np.asarray([8], dtype=np.int32))  # behind the record's back (an interrupt)
    assert not kv.in_step()
    kv.drop()
    assert kv.generator is None and kv.record.tokens == [] and kv.in_step()


def test_a_turn_sized_buffer_grows_into_the_budget_with_what_it_holds(og_model: tuple[Any, Any, Any]) -> None:
    og, model, _ = og_model
    kv = KVCache(ContextWindow(budget=200))
    kv.attach(og, model, chunk=4, turn_sized=True, kv_after_first_turn=True)
    assert kv.size_for(20) and kv.capacity == 20
    kv.append(list(range(5, 15)))
    assert kv.kv_pending
    chunks: list[int] = []
    assert kv.reserve(on_chunk=lambda: chunks.append(1))
    assert kv.capacity == 200 and not kv.kv_pending and len(chunks) == 3  # 10 tokens in chunks of 4
    assert [int(t) for t in kv.generator.get_sequence(0)] == list(range(5, 15))
