"""/v1/completions' abilities on ``localmind serve`` (the tiny model) through the official ``openai`` client: integer
logprobs, token-id prompts read as they are, suffix refused (the tiny tokenizer has no FIM tokens) naming it, n and
logit_bias."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import openai
import pytest
from tokenizers import Tokenizer

from localmind.engine.types import ChatMessage
from tests.helpers.tiny_model import REPLIES, expected_reply
from tests.server.serving import Server
from tests.unit.test_engine_generate import chatml

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def client(tiny_server: Server) -> Iterator[openai.OpenAI]:
    with openai.OpenAI(base_url=tiny_server.v1, api_key="unused", max_retries=0, timeout=60) as client:
        yield client


def test_integer_logprobs(client: openai.OpenAI) -> None:
    reply = client.completions.create(model="tiny", prompt="hi", max_tokens=64, temperature=0, logprobs=2)
    logprobs = reply.choices[0].logprobs
    assert logprobs is not None and logprobs.tokens and logprobs.token_logprobs and logprobs.top_logprobs
    assert reply.usage is not None and len(logprobs.tokens) == reply.usage.completion_tokens
    assert all(len(top) <= 2 for top in logprobs.top_logprobs) and all(v <= 0 for v in logprobs.token_logprobs)
    assert logprobs.text_offset is not None and logprobs.text_offset[0] == 0


def test_a_token_id_prompt_is_read_as_it_is(client: openai.OpenAI, tiny_model: Path) -> None:
    tok = Tokenizer.from_file(str(tiny_model / "tokenizer.json"))
    ids = tok.encode(chatml([ChatMessage("user", "Tell me a story about a cat.")])).ids
    reply = client.completions.create(model="tiny", prompt=ids, max_tokens=64, temperature=0)
    assert reply.choices[0].text == expected_reply(ids)
    assert reply.usage is not None and reply.usage.prompt_tokens == len(ids)
    with pytest.raises(openai.BadRequestError) as caught:
        client.completions.create(model="tiny", prompt=[10**7], max_tokens=4)
    assert isinstance(caught.value.body, dict) and caught.value.body.get("param") == "prompt"


def test_suffix_needs_fill_in_the_middle_tokens(client: openai.OpenAI) -> None:
    with pytest.raises(openai.BadRequestError, match="suffix is not supported by this model") as caught:
        client.completions.create(model="tiny", prompt="def f(", suffix="    return x", max_tokens=8)
    assert isinstance(caught.value.body, dict) and caught.value.body.get("param") == "suffix"


def test_n_and_logit_bias(client: openai.OpenAI, tiny_model: Path) -> None:
    two = client.completions.create(model="tiny", prompt="hi", max_tokens=64, n=2, temperature=0.9, seed=1)
    assert [c.index for c in two.choices] == [0, 1] and all(c.text in REPLIES for c in two.choices)
    tok = Tokenizer.from_file(str(tiny_model / "tokenizer.json"))
    cat = tok.token_to_id("cat")
    forced = client.completions.create(
        model="tiny", prompt="hi", max_tokens=1, temperature=0, logit_bias={str(cat): 100}
    )
    assert forced.choices[0].text == "cat"
