"""The remote engine against a server that is not LocalMind's: llama-cpp-python's OpenAI-compatible server, on a
tiny random-weight Llama written as GGUF (tests/helpers/tiny_gguf.py). Lists its models, streams a chat the
official ``openai`` client reads the same way, stops mid-stream, and keeps the text of a stream cut mid-way.

PyPI has no wheel of llama-cpp-python, only its source (a C++ build of several minutes): the test runs where it is
installed with its server extra (``scripts/llama-cpp-wheel.sh`` builds and installs it) and says so where not.
"""

from __future__ import annotations

import contextlib
import importlib.util
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator

import httpx2 as httpx
import openai
import pytest

from localmind.engine.remote import RemoteEngine
from localmind.engine.types import ChatMessage, FinishReason, GenerationOptions, TextDelta, TurnFinished
from tests.helpers.engine_turns import run_pieces
from tests.helpers.processes import end
from tests.server.serving import free_port

pytestmark = pytest.mark.slow

if importlib.util.find_spec("llama_cpp") is None or importlib.util.find_spec("sse_starlette") is None:
    pytest.skip(
        "llama-cpp-python[server] is not installed (PyPI has no wheel for it; scripts/llama-cpp-wheel.sh builds one)",
        allow_module_level=True,
    )
pytest.importorskip("gguf", reason="the gguf package writes the test model")

ALIAS = "tiny-gguf"
GREEDY = GenerationOptions(temperature=0, max_new_tokens=40, repetition_penalty=1.0)


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    from tests.helpers.tiny_gguf import write_tiny_gguf

    folder = tmp_path_factory.mktemp("llama")
    model = write_tiny_gguf(folder / "tiny.gguf")
    port = free_port()
    log = (folder / "server.log").open("wb")
    proc = subprocess.Popen(
        [
            *(sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--model_alias", ALIAS),
            *("--host", "127.0.0.1", "--port", str(port), "--n_ctx", "2048", "--n_threads", "1", "--verbose", "False"),
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                if httpx.get(url + "/v1/models", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                raise AssertionError("llama-cpp-python's server did not start:\n" + (folder / "server.log").read_text())
            time.sleep(0.2)
        yield url
    finally:
        end(proc)
        log.close()


@pytest.fixture
def engine(llama_server: str) -> Iterator[RemoteEngine]:
    e = RemoteEngine(llama_server)
    yield e
    e.close()


def run(
    engine: RemoteEngine, messages: list[ChatMessage], options: GenerationOptions
) -> tuple[list[str], TurnFinished]:
    return run_pieces(engine, messages, options)


def test_lists_the_models_and_loads_one(engine: RemoteEngine, llama_server: str) -> None:
    assert engine.list_models() == [ALIAS]
    info = engine.load(ALIAS)
    assert info.device == "remote: " + llama_server.removeprefix("http://")


def test_a_streamed_chat_reads_as_the_openai_client_reads_it(engine: RemoteEngine, llama_server: str) -> None:
    engine.load(ALIAS)
    chat = [ChatMessage("user", "Hello from LocalMind")]
    pieces, finished = run(engine, chat, GREEDY)
    assert len(pieces) > 3 and finished.reason in (FinishReason.END_OF_TURN, FinishReason.LENGTH)
    assert finished.stats.generated_tokens >= len(pieces) > 0
    client = openai.OpenAI(base_url=llama_server + "/v1", api_key="unused", max_retries=0)
    stream = client.chat.completions.create(
        model=ALIAS,
        messages=[{"role": "user", "content": "Hello from LocalMind"}],
        temperature=0,
        max_tokens=40,
        stream=True,
    )
    assert "".join(pieces) == "".join(c.choices[0].delta.content or "" for c in stream if c.choices)


def test_stop_mid_stream_ends_the_turn_and_the_server_answers_next(engine: RemoteEngine) -> None:
    engine.load(ALIAS)
    long = GenerationOptions(temperature=0.8, seed=7, max_new_tokens=1500, repetition_penalty=1.0)
    pieces: list[str] = []
    finished = None
    for event in engine.generate([ChatMessage("user", "Go on forever")], long):
        if isinstance(event, TextDelta):
            pieces.append(event.text)
            if len(pieces) == 3:
                threading.Thread(target=engine.cancel).start()  # Stop, from another thread as the window does
        else:
            finished = event
    assert finished is not None and finished.reason is FinishReason.CANCELLED, finished
    assert 3 <= len(pieces) < 1500
    after, done = run(engine, [ChatMessage("user", "again")], GREEDY)
    assert after and done.reason in (FinishReason.END_OF_TURN, FinishReason.LENGTH)


class CuttingProxy:
    """Forwards 127.0.0.1:port to the server; drops a response after ``events`` SSE events have gone through."""

    def __init__(self, target: int, events: int) -> None:
        self.target, self.events = target, events
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.target))
            threading.Thread(target=self._pump, args=(client, upstream, None), daemon=True).start()
            threading.Thread(target=self._pump, args=(upstream, client, self.events), daemon=True).start()

    @staticmethod
    def _pump(src: socket.socket, dst: socket.socket, events: int | None) -> None:
        seen = 0
        with contextlib.suppress(OSError):
            while data := src.recv(4096):
                at = 0
                while events is not None and (at := data.find(b"data: ", at)) >= 0:
                    seen += 1
                    if seen > events:  # mid-body: this event and the rest never come
                        data = data[:at]
                        break
                    at += 6
                dst.sendall(data)
                if events is not None and seen > events:
                    break
        for s in (src, dst):
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
            s.close()

    def close(self) -> None:
        self.listener.close()


def test_a_stream_cut_mid_way_keeps_its_text_and_says_so(llama_server: str) -> None:
    proxy = CuttingProxy(int(llama_server.rsplit(":", 1)[1]), events=4)
    engine = RemoteEngine(f"http://127.0.0.1:{proxy.port}")
    try:
        engine.load(ALIAS)
        long = GenerationOptions(temperature=0.8, seed=7, max_new_tokens=1500, repetition_penalty=1.0)
        pieces, finished = run(engine, [ChatMessage("user", "Go on forever")], long)
        assert finished.reason is FinishReason.ERROR and "lost mid-reply" in (finished.error or "")
        assert pieces and len(pieces) <= 4  # what came before the cut is kept
    finally:
        engine.close()
        proxy.close()
