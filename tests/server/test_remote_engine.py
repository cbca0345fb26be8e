"""The remote engine (engine/remote.py) against LocalMind's own server, and against faults."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from localmind.engine.local import LocalEngine
from localmind.engine.remote import RemoteEngine, normalise_base_url
from localmind.engine.types import (
    ChatMessage,
    EngineError,
    FinishReason,
    GenerationOptions,
    ModelLoadError,
    StreamEvent,
    TextDelta,
    TurnFinished,
)
from tests.helpers.tiny_model import REPLIES
from tests.server.fault_server import FaultServer
from tests.server.serving import Server, free_port, start_server

pytestmark = pytest.mark.slow

GREEDY = GenerationOptions(temperature=0)


@pytest.fixture
def remote() -> Iterator[type[RemoteEngine]]:
    """RemoteEngine, closed after the test (its connection pool holds sockets)."""
    made: list[RemoteEngine] = []

    class Closing(RemoteEngine):
        def __init__(self, *args: object, **kwargs: object) -> None:
            super().__init__(*args, **kwargs)  # type: ignore[arg-type]
            made.append(self)

    yield Closing
    for engine in made:
        engine.close()


def run(events: Iterator[StreamEvent]) -> tuple[str, TurnFinished]:
    parts, finished = [], None
    for event in events:
        if isinstance(event, TextDelta):
            parts.append(event.text)
        else:
            finished = event
    assert finished is not None
    return "".join(parts), finished


def test_addresses_are_normalised() -> None:
    assert normalise_base_url("http://h:8000") == "http://h:8000/v1"
    assert normalise_base_url(" http://h:8000/v1/ ") == "http://h:8000/v1"
    with pytest.raises(EngineError, match="not a server address"):
        normalise_base_url("h:8000")


def test_against_localminds_own_server(tiny_server: Server, tiny_model: Path, remote: type[RemoteEngine]) -> None:
    engine = remote(tiny_server.url)
    info = engine.load("tiny")
    assert info.device == "remote: " + tiny_server.url.removeprefix("http://")
    assert any("leave this computer" in w for w in info.warnings)
    history = [ChatMessage("user", "hello from afar")]
    text, finished = run(engine.generate(history, GREEDY))
    local = LocalEngine()
    local.load(str(tiny_model))
    assert text == run(local.generate(history, GREEDY))[0] and text in REPLIES
    assert finished.reason is FinishReason.END_OF_TURN
    assert finished.stats.generated_tokens > 3 and finished.stats.prompt_tokens > 0
    # Next turn: the server reuses its cache for the resent conversation.
    history += [ChatMessage("assistant", text), ChatMessage("user", "and again")]
    _, second = run(engine.generate(history, GREEDY))
    assert second.stats.reused_tokens >= finished.stats.prompt_tokens
    _, short = run(engine.generate(history, GenerationOptions(temperature=0, max_new_tokens=2)))
    assert short.reason is FinishReason.LENGTH and short.stats.generated_tokens == 2
    with pytest.raises(ModelLoadError, match=r"no model called 'gpt-9'.*tiny"):
        engine.load("gpt-9")
    engine.close()


def test_a_json_schema_is_passed_on_to_the_server(tiny_server: Server, remote: type[RemoteEngine]) -> None:
    schema = {
        "type": "object",
        "properties": {"n": {"type": "integer"}},
        "required": ["n"],
        "additionalProperties": False,
    }
    engine = remote(tiny_server.url)
    engine.load("tiny")
    text, finished = run(
        engine.generate([ChatMessage("user", "n?")], GenerationOptions(json_schema=json.dumps(schema)))
    )
    assert finished.reason is FinishReason.END_OF_TURN
    assert set(json.loads(text)) == {"n"} and isinstance(json.loads(text)["n"], int)


def test_stop_from_another_thread_ends_the_turn_and_the_servers_work(
    slow_model: Path, tmp_path: Path, remote: type[RemoteEngine]
) -> None:
    server = start_server(slow_model, tmp_path)
    try:
        engine = remote(server.url)
        engine.load("slow")
        seen = 0
        started = time.monotonic()
        events = engine.generate([ChatMessage("user", "go")], GenerationOptions(max_new_tokens=3000))
        for event in events:
            if isinstance(event, TextDelta):
                seen += 1
                if seen == 5:
                    threading.Thread(target=engine.cancel).start()
            else:
                finished = event
        assert finished.reason is FinishReason.CANCELLED and time.monotonic() - started < 20
        line = server.wait_for_log("cancelled: sent", timeout=15)
        assert "generated" in line
        # Stop leaves the engine usable: the next turn runs.
        text, again = run(engine.generate([ChatMessage("user", "x")], GenerationOptions(max_new_tokens=3)))
        assert again.reason is FinishReason.LENGTH and text
    finally:
        server.stop()


def test_refused_connection_says_so(remote: type[RemoteEngine]) -> None:
    engine = remote(f"http://127.0.0.1:{free_port()}")
    with pytest.raises(ModelLoadError, match="refused the connection") as info:
        engine.load("m")
    assert "running" in str(info.value)


def test_server_error_500_is_reported_with_its_message(remote: type[RemoteEngine]) -> None:
    server = FaultServer("500")
    try:
        engine = remote(server.url)
        engine.load("m")
        with pytest.raises(EngineError, match="answered 500: GPU fell over"):
            run(engine.generate([ChatMessage("user", "hi")]))
    finally:
        server.stop()


def test_stream_cut_midway_keeps_the_text_and_says_so(remote: type[RemoteEngine]) -> None:
    server = FaultServer("cut")
    try:
        engine = remote(server.url)
        engine.load("m")
        text, finished = run(engine.generate([ChatMessage("user", "hi")]))
        assert text == "Hello there"
        assert finished.reason is FinishReason.ERROR and "lost mid-reply" in (finished.error or "")
        # The server comes back as a healthy one: the next turn connects again.
        server.mode = "ok"
        text, finished = run(engine.generate([ChatMessage("user", "hi")]))
        assert text == "Hello there!" and finished.reason is FinishReason.END_OF_TURN
        assert finished.stats.generated_tokens == 3
    finally:
        server.stop()


def test_stop_while_the_server_sends_nothing_ends_the_turn(remote: type[RemoteEngine]) -> None:
    # A remote prefill on a busy server: the read blocks with nothing coming. Stop must still end the turn.
    server = FaultServer("stall")
    try:
        engine = remote(server.url)
        engine.load("m")
        events: list[StreamEvent] = []
        both_pieces = threading.Event()

        def consume() -> None:
            for event in engine.generate([ChatMessage("user", "hi")]):
                events.append(event)
                if len(events) == 2:
                    both_pieces.set()  # the next read waits for what the server never sends

        reader = threading.Thread(target=consume, daemon=True)
        reader.start()
        assert both_pieces.wait(20)
        engine.cancel()
        reader.join(20)
        assert not reader.is_alive(), "Stop did not end a turn whose server sent nothing"
        finished = events[-1]
        assert isinstance(finished, TurnFinished) and finished.reason is FinishReason.CANCELLED
        assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "Hello there"
    finally:
        server.stop()


def test_server_restarts_between_turns(remote: type[RemoteEngine]) -> None:
    server = FaultServer("ok")
    port = server.port
    engine = remote(server.url)
    engine.load("m")
    assert run(engine.generate([ChatMessage("user", "hi")]))[0] == "Hello there!"
    server.stop()
    with pytest.raises(EngineError, match="refused"):
        run(engine.generate([ChatMessage("user", "hi")]))
    server = FaultServer("ok", port=port)
    try:
        assert run(engine.generate([ChatMessage("user", "hi")]))[0] == "Hello there!"
    finally:
        server.stop()


def test_chat_command_with_remote(tiny_server: Server) -> None:
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "localmind",
            "chat",
            "--remote",
            tiny_server.url,
            "--model",
            "tiny",
            "--prompt",
            "hi",
            "--temperature",
            "0",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.rstrip("\n") in REPLIES
    assert "leave this computer" in proc.stderr
    bad = subprocess.run(
        [
            sys.executable,
            "-m",
            "localmind",
            "chat",
            "--remote",
            f"http://127.0.0.1:{free_port()}",
            "--model",
            "x",
            "--prompt",
            "hi",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode == 1 and "refused the connection" in bad.stderr and bad.stderr.count("\n") == 1
