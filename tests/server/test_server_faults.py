"""``localmind serve`` under faults and hostile input (issue 21): slow and idle connections, the file-descriptor
limit, web pages posting without asking, Host and Origin headers, deep JSON, bad options and the key in ``ps``.
Everything here talks to 127.0.0.1 only, with a bounded number of connections and seconds."""

from __future__ import annotations

import json
import logging
import os
import re
import resource
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx2 as httpx
import pytest

from localmind.server.connections import RateLimitFilter
from tests.helpers.tiny_model import REPLIES
from tests.server.serving import Server, free_port, start_server

pytestmark = pytest.mark.slow

_PARTIAL_HEAD = b"POST /generate HTTP/1.1\r\nHost: 127.0.0.1\r\n"  # and never the blank line that ends it


def _open(server: Server, count: int, head: bytes = b"") -> list[socket.socket]:
    port = int(server.url.rsplit(":", 1)[1])
    sockets = []
    for _ in range(count):
        s = socket.create_connection(("127.0.0.1", port), timeout=10)
        if head:
            s.sendall(head)
        sockets.append(s)
    return sockets


def _closed_by_server(s: socket.socket, within: float) -> bytes | None:
    """What the server sent before closing ``s`` (b"" for nothing), or None if it is still open after ``within``."""
    s.settimeout(within)
    received = b""
    try:
        while chunk := s.recv(4096):
            received += chunk
    except TimeoutError:
        return None
    except ConnectionResetError:
        pass
    return received


def test_slow_headers_get_408_and_slow_clients_cannot_lock_others_out(tiny_model: Path, tmp_path: Path) -> None:
    server = start_server(tiny_model, tmp_path, "--header-timeout", "1.5", "--max-connections", "40")
    slow: list[socket.socket] = []
    try:
        slow = _open(server, 100, _PARTIAL_HEAD)  # more than the cap: the oldest waiting ones make room
        started = time.monotonic()
        r = httpx.post(server.url + "/generate", json={"prompt": "hi", "temperature": 0}, timeout=10)
        assert r.status_code == 200 and r.json()["generated_text"] in REPLIES
        assert time.monotonic() - started < 8
        answers = [_closed_by_server(s, within=6) for s in slow]
        assert all(a is not None for a in answers), "a connection that never sent its headers was kept open"
        assert all(a == b"" or a.startswith(b"HTTP/1.1 408") or a.startswith(b"HTTP/1.1 503") for a in answers)  # type: ignore[union-attr]
        assert sum(a.startswith(b"HTTP/1.1 408") for a in answers) >= 40  # type: ignore[union-attr]
        # A body that stalls half-way is cut too.
        with socket.create_connection(("127.0.0.1", int(server.url.rsplit(":", 1)[1])), timeout=10) as s:
            s.sendall(
                b"POST /generate HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-type: application/json\r\n"
                b'content-length: 100\r\n\r\n{"prompt": '
            )
            answer = _closed_by_server(s, within=6)
        assert answer is not None and answer.startswith(b"HTTP/1.1 408"), answer
    finally:
        for s in slow:
            s.close()
        server.stop()
    assert "Traceback" not in server.log()


def _low_fd_limit() -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (256, 1024))


def test_at_the_descriptor_limit_requests_are_answered_and_the_log_stays_small(
    tiny_model: Path, tmp_path: Path
) -> None:
    server = start_server(tiny_model, tmp_path, preexec_fn=_low_fd_limit)
    idle: list[socket.socket] = []
    try:
        limits = Path(f"/proc/{server.proc.pid}/limits").read_text()
        assert any(line.startswith("Max open files") and line.split()[3] == "1024" for line in limits.splitlines())
        idle = _open(server, 400)  # more than the soft limit the server was started with
        r = httpx.post(server.url + "/generate", json={"prompt": "hi", "temperature": 0}, timeout=10)
        assert r.status_code == 200
        time.sleep(1)
    finally:
        for s in idle:
            s.close()
        server.stop()
    log = server.log()
    assert "Traceback" not in log and len(log) < 20_000, log[-3000:]


def test_a_post_a_web_page_could_send_without_asking_is_refused(tiny_server: Server) -> None:
    url = tiny_server.url + "/generate"
    body = json.dumps({"prompt": "hi", "temperature": 0}).encode()
    for headers in ({}, {"content-type": "text/plain"}, {"content-type": "application/x-www-form-urlencoded"}):
        r = httpx.post(url, content=body, headers=headers)
        assert r.status_code == 400 and "application/json" in r.json()["error"]["message"], headers
    # A page on another origin that does send JSON (only possible after a CORS preflight it would fail) is refused
    # by its Origin; this server's own origin is not.
    r = httpx.post(url, content=body, headers={"content-type": "application/json", "origin": "https://evil.example"})
    assert r.status_code == 403 and r.json()["error"]["code"] == "origin_not_allowed"
    own = tiny_server.url
    r = httpx.post(url, content=body, headers={"content-type": "application/json", "origin": own})
    assert r.status_code == 200


@pytest.mark.parametrize("host", ["localhost:evil.example", "127.0.0.1:80:80", "[::1]x", "localhost:8x", "::1"])
def test_host_headers_with_a_bad_port_part_are_refused(tiny_server: Server, host: str) -> None:
    r = httpx.get(tiny_server.v1 + "/models", headers={"Host": host})
    assert r.status_code == 400 and r.json()["error"]["code"] == "invalid_host", host


def test_deep_json_is_a_400_without_a_traceback(tiny_server: Server) -> None:
    before = len(tiny_server.log())
    for depth in (100_000, 65):
        deep = b'{"model": "tiny", "messages": ' + b"[" * depth + b"]" * depth + b"}"
        r = httpx.post(tiny_server.v1 + "/chat/completions", content=deep, headers={"content-type": "application/json"})
        assert r.status_code == 400 and r.json()["error"]["code"] == "too_deep", depth
    assert "Traceback" not in tiny_server.log()[before:]


def _serve(*args: str, stdin: str | None = None, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "localmind", "serve", *args],
        capture_output=True,
        text=True,
        input=stdin,
        timeout=120,
        env={**os.environ, **(env or {})},
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--threads", "-3"], "localmind: --threads must be 1 or more (got -3)."),
        (["--max-body-bytes", "-1"], "localmind: --max-body-bytes must be 1 or more (got -1)."),
        (["--context", "-100"], "localmind: --context must be at least 64 tokens (got -100)."),
        (["--max-connections", "0"], "localmind: --max-connections must be 1 or more (got 0)."),
        (["--header-timeout", "0"], "localmind: --header-timeout must be a number of seconds above 0 (got 0.0)."),
        (["--api-key", "   "], "localmind: The API key from --api-key is empty (or only spaces)."),
    ],
)
def test_options_out_of_range_are_one_line_errors(tiny_model: Path, args: list[str], message: str) -> None:
    result = _serve("--model", str(tiny_model), "--port", str(free_port()), *args)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert result.stderr.startswith(message) and result.stderr.count("\n") == 1, result.stderr


def test_an_empty_key_from_stdin_or_the_environment_is_refused(tiny_model: Path) -> None:
    piped = _serve("--model", str(tiny_model), "--api-key-file", "-", stdin=" \n")
    assert piped.returncode == 1 and "from standard input is empty" in piped.stderr
    env = _serve("--model", str(tiny_model), env={"LOCALMIND_API_KEY": "\t"})
    assert env.returncode == 1 and "$LOCALMIND_API_KEY is empty" in env.stderr


def _command_lines(pid: int) -> list[str]:
    """The command lines of ``pid`` and of every process below it, as ``ps`` shows them to any user."""
    lines, todo = [], [pid]
    while todo:
        p = todo.pop()
        lines.append(Path(f"/proc/{p}/cmdline").read_bytes().replace(b"\0", b" ").decode())
        for task in Path(f"/proc/{p}/task").iterdir():
            todo += [int(c) for c in (task / "children").read_text().split()]
    return lines


def test_the_key_given_as_a_flag_leaves_the_command_line(tiny_model: Path, tmp_path: Path) -> None:
    server = start_server(tiny_model, tmp_path, "--api-key", "s3cret-in-argv")
    try:
        seen = _command_lines(server.proc.pid)
        assert len(seen) >= 2 and all("s3cret-in-argv" not in line for line in seen), seen
        assert "--api-key-file" in server.log() and "ps" in server.log()  # the warning says what to use instead
        headers = {"Authorization": "Bearer s3cret-in-argv"}
        assert httpx.get(server.v1 + "/models", headers=headers).status_code == 200
        assert httpx.get(server.v1 + "/models").status_code == 401
    finally:
        server.stop()


def test_the_key_can_come_from_a_file(tiny_model: Path, tmp_path: Path) -> None:
    key_file = tmp_path / "key"
    key_file.write_text("from-a-file\n")
    server = start_server(tiny_model, tmp_path, "--api-key-file", str(key_file))
    try:
        assert httpx.get(server.v1 + "/models", headers={"Authorization": "Bearer from-a-file"}).status_code == 200
        assert httpx.get(server.v1 + "/models").status_code == 401
        assert "note: --api-key" not in server.log()
    finally:
        server.stop()


def test_a_context_too_large_for_memory_is_refused_at_start(tiny_model: Path, tmp_path: Path) -> None:
    """The cache for the whole context is made after the first request; one that cannot be made left a server whose
    first answer worked and every later one failed. The model's files say how large each token's cache is."""
    big = tmp_path / "big-context"
    shutil.copytree(tiny_model, big)
    config = json.loads((big / "genai_config.json").read_text())
    config["model"]["context_length"] = config["search"]["max_length"] = 1_000_000_000
    config["model"]["decoder"]["head_size"] = 4096  # 32 KiB of cache per token: terabytes for the whole context
    (big / "genai_config.json").write_text(json.dumps(config))
    result = _serve("--model", str(big), "--port", str(free_port()), "--context", "500000000")
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    assert result.stderr.startswith("localmind: --context 500,000,000 needs ") and "GiB is free" in result.stderr
    assert re.search(r"Use --context [\d,]+ or less", result.stderr)


def test_repeated_log_records_are_held_back_and_counted() -> None:
    records: list[logging.LogRecord] = []
    logger = logging.getLogger("tests.flood")
    logger.propagate = False
    handler = logging.Handler()
    handler.emit = records.append  # type: ignore[method-assign]
    logger.addHandler(handler)
    flood = RateLimitFilter(interval=0.5)
    logger.addFilter(flood)
    try:
        for _ in range(1000):
            try:
                raise OSError(24, "Too many open files")
            except OSError:
                logger.exception("socket.accept() out of system resource\nsocket: <fd=6>")
        logger.warning("another kind")
        time.sleep(0.6)
        logger.error("socket.accept() out of system resource\nsocket: <fd=6>", exc_info=OSError(24, "again"))
    finally:
        logger.removeFilter(flood)
        logger.removeHandler(handler)
    assert len(records) == 3
    assert records[0].exc_info is not None and records[1].getMessage() == "another kind"
    assert "999 more like this" in records[2].getMessage() and records[2].exc_info is None  # one traceback a kind
