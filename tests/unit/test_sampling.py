from __future__ import annotations

import numpy as np

from localmind.engine.sampling import Sampler
from localmind.engine.types import GenerationOptions


def logits() -> np.ndarray:
    rng = np.random.default_rng(0)
    return rng.normal(0, 2, 1000).astype(np.float32)


def test_greedy_is_argmax() -> None:
    x = logits()
    assert Sampler(GenerationOptions(temperature=0)).choose(x) == int(np.argmax(x))
    assert Sampler(GenerationOptions(temperature=1.0, top_k=1)).choose(x) == int(np.argmax(x))


def test_seed_makes_sampling_reproducible() -> None:
    x = logits()
    opts = GenerationOptions(temperature=1.5, top_k=0, top_p=1.0, seed=42)
    a = [Sampler(opts).choose(x) for _ in range(3)]
    s = Sampler(opts)
    b = [s.choose(x) for _ in range(50)]
    assert len(set(a)) == 1  # same seed, same first draw
    assert len(set(b)) > 5  # and it really samples


def test_a_negative_seed_is_a_seed_too() -> None:
    """OpenAI's API takes any 64-bit seed; numpy refused negative ones (the server answered 500)."""
    x = logits()

    def draws(seed: int) -> list[int]:
        s = Sampler(GenerationOptions(temperature=1.5, top_k=0, top_p=1.0, seed=seed))
        return [s.choose(x) for _ in range(20)]

    assert draws(-5) == draws(-5) != draws(-6)
    assert draws(-(2**63)) == draws(-(2**63))


def test_top_k_limits_candidates() -> None:
    x = logits()
    top5 = set(np.argsort(x)[-5:].tolist())
    s = Sampler(GenerationOptions(temperature=2.0, top_k=5, top_p=1.0, seed=1))
    assert {s.choose(x) for _ in range(200)} <= top5


def test_top_p_keeps_the_nucleus() -> None:
    x = np.full(100, -20.0, dtype=np.float32)
    x[7], x[8] = 10.0, 9.0  # ~73% / 27%
    s = Sampler(GenerationOptions(temperature=1.0, top_k=0, top_p=0.5, seed=3))
    assert {s.choose(x) for _ in range(100)} == {7}
    s = Sampler(GenerationOptions(temperature=1.0, top_k=0, top_p=0.99, seed=3))
    assert {s.choose(x) for _ in range(200)} == {7, 8}


def test_repetition_penalty_lowers_seen_tokens() -> None:
    x = np.array([2.0, -2.0, 1.0], dtype=np.float32)
    Sampler(GenerationOptions(repetition_penalty=2.0)).apply_repetition_penalty(x, [0, 1, 99])
    assert x.tolist() == [1.0, -4.0, 1.0]


def test_a_tiny_positive_temperature_is_greedy_not_nan() -> None:
    """5e-324 (the smallest float) divided the logits into inf, and inf - inf gave "Probabilities contain NaN"."""
    x = logits()
    for temperature in (5e-324, 1e-300, 1e-8, 1e-5):
        options = GenerationOptions(temperature=temperature, top_k=0, top_p=1.0, seed=1)
        assert Sampler(options).choose(x) == int(np.argmax(x))
    # A small temperature above the floor still samples from the scaled distribution (here: still the argmax,
    # its lead over the next logit is thousands of times the temperature).
    assert Sampler(GenerationOptions(temperature=1e-3, seed=1)).choose(x) == int(np.argmax(x))
