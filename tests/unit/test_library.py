"""The Python library: ``from localmind import TextGenerator`` generates, streams and chats, with the reference
project's signatures and result shapes, on the real engine with the tiny model."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from tokenizers import Tokenizer

from localmind.errors import UserFacingError
from tests.helpers.tiny_model import REPLIES, expected_reply

ROOT = Path(__file__).resolve().parents[2]


def chatml(*turns: tuple[str, str]) -> str:
    return "".join(f"<|im_start|>{r}\n{c}<|im_end|>\n" for r, c in turns) + "<|im_start|>assistant\n"


def reply_for(tiny_model: Path, *turns: tuple[str, str]) -> str:
    tok = Tokenizer.from_file(str(tiny_model / "tokenizer.json"))
    return expected_reply(tok.encode(chatml(*turns)).ids)


@pytest.fixture
def generator(tiny_model: Path):  # type: ignore[no-untyped-def]
    from localmind import TextGenerator

    with TextGenerator(tiny_model, device="cpu") as gen:
        yield gen


def test_generate_returns_the_references_shape_with_the_engines_reply(generator, tiny_model: Path) -> None:  # type: ignore[no-untyped-def]
    result = generator.generate("Hello there", max_new_tokens=64, temperature=0)
    assert set(result) == {"generated_text", "tokens_generated", "finish_reason"}
    assert result["generated_text"] == reply_for(tiny_model, ("user", "Hello there"))
    assert result["finish_reason"] == "stop" and result["tokens_generated"] > 0
    cut = generator.generate("Hello there", max_new_tokens=2, temperature=0)
    assert cut["finish_reason"] == "length" and cut["tokens_generated"] == 2
    assert result["generated_text"].startswith(cut["generated_text"]) and cut["generated_text"]


def test_stream_generate_yields_chunks_then_the_totals(generator, tiny_model: Path) -> None:  # type: ignore[no-untyped-def]
    pairs = list(generator.stream_generate("What is new?", max_new_tokens=64, temperature=0, top_p=0.5))
    chunks = [chunk for chunk, _ in pairs]
    assert len([c for c in chunks if c]) > 1  # it streams
    assert "".join(chunks) == reply_for(tiny_model, ("user", "What is new?"))
    assert all(meta["finish_reason"] is None for _, meta in pairs[:-1])
    last_chunk, totals = pairs[-1]
    assert last_chunk == "" and totals["finish_reason"] == "stop" and totals["prompt_tokens"] > 0
    assert totals["tokens_generated"] >= len([c for c in chunks if c])


def test_a_chat_keeps_the_conversation_and_reuses_the_cache(generator, tiny_model: Path) -> None:  # type: ignore[no-untyped-def]
    chat = generator.chat(system="Be brief.", temperature=0)
    first = chat.send("hi")
    assert first == reply_for(tiny_model, ("system", "Be brief."), ("user", "hi"))
    second = "".join(chat.stream("and again?"))
    assert second == reply_for(
        tiny_model, ("system", "Be brief."), ("user", "hi"), ("assistant", first), ("user", "and again?")
    )
    assert chat.last["reused_tokens"] > 0 and chat.last["reused_tokens"] < chat.last["prompt_tokens"]
    assert [m.role for m in chat.messages] == ["system", "user", "assistant", "user", "assistant"]
    assert generator.count_tokens([{"role": "user", "content": "hi"}]) > 1


def test_bad_arguments_and_a_closed_generator_say_what_is_wrong(tiny_model: Path, tmp_path: Path) -> None:
    from localmind import TextGenerator

    with pytest.raises(FileNotFoundError):
        TextGenerator(tmp_path / "nowhere" / "model")
    with pytest.raises(LookupError):
        TextGenerator("no-such-installed-model")
    gen = TextGenerator(tiny_model, device="cpu")
    with pytest.raises(ValueError, match="prompt"):
        gen.generate("")
    with pytest.raises(UserFacingError, match="Temperature"):
        gen.generate("hi", temperature=9)
    with pytest.raises(ValueError, match="role"):
        gen.count_tokens([{"role": "robot", "content": "x"}])
    gen.close()
    with pytest.raises(RuntimeError, match="closed"):
        gen.generate("hi")
    gen.close()  # twice is fine


def test_the_import_line_generates_and_streams_without_qt(tiny_model: Path) -> None:
    code = (
        "import json, sys\n"
        "from localmind import TextGenerator\n"
        "with TextGenerator(sys.argv[1], device='cpu') as g:\n"
        "    r = g.generate('Hello there', temperature=0)\n"
        "    s = ''.join(c for c, _ in g.stream_generate('Hello there', temperature=0))\n"
        "print(json.dumps({'r': r, 's': s, 'qt': any(m.startswith('PySide6') for m in sys.modules)}))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(tiny_model)], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["r"]["generated_text"] == got["s"] in REPLIES and got["qt"] is False
