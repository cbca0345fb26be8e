"""LocalMind's own fake Hugging Face Hub on 127.0.0.1, for the real huggingface_hub client.

It answers what the client asks (see shared/notes/huggingface-hub.md):
``/api/models/{repo}/revision/{rev}``, ``/api/models/{repo}/tree/{rev}``
(recursive, paged with ``Link``), ``HEAD``/``GET /{repo}/resolve/{rev}/{path}``
with ``X-Repo-Commit``, ``ETag``/``X-Linked-Etag`` and ``X-Linked-Size``; LFS
files are a 302 to a second origin (a "CDN") that serves ``Range``.

Faults are injected per file through :class:`Faults` and can be changed while
a download runs. Every request is logged (method, origin, path, Range, whether
an Authorization header came along) so tests can assert what the client did.

Run ``python -m tests.helpers.fake_hub MODEL_DIR`` to serve a model folder by hand
(prints the endpoint; used by the kill-and-resume test and the bench).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import socket
import sys
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, unquote, urlsplit

DEVICE_FOLDER = "cpu_and_mobile/cpu-int4-rtn-block-32-acc-level-4"
LFS_SUFFIXES = (".onnx", ".data", ".bin", ".onnx_data")


def git_blob_sha1(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


@dataclass
class FakeRepo:
    repo_id: str
    files: dict[str, bytes]
    commit: str = ""
    token: str | None = None  # set: gated, requests need "Authorization: Bearer <token>"
    lfs_suffixes: tuple[str, ...] = LFS_SUFFIXES
    # What /api/models says about the repo besides its id (downloads, likes, lastModified, tags, config...).
    info: dict[str, Any] = field(default_factory=dict)
    _digests: dict[str, tuple[bytes, str, str]] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not self.commit:
            digest = hashlib.sha1(self.repo_id.encode() + "".join(sorted(self.files)).encode(), usedforsecurity=False)
            self.commit = digest.hexdigest()

    def digests(self, path: str) -> tuple[str, str]:
        """(git blob sha1, sha256) of a file, computed once per content (tests may swap a file's bytes)."""
        data = self.files[path]
        cached = self._digests.get(path)
        if cached is None or cached[0] is not data:
            cached = (data, git_blob_sha1(data), hashlib.sha256(data).hexdigest())
            self._digests[path] = cached
        return cached[1], cached[2]

    def search_entry(self) -> dict[str, Any]:
        """The repo as ``/api/models`` lists it (the Hub's JSON keys)."""
        entry: dict[str, Any] = {
            "id": self.repo_id,
            "modelId": self.repo_id,
            "sha": self.commit,
            "downloads": 0,
            "likes": 0,
            "lastModified": "2025-01-01T00:00:00.000Z",
            "private": False,
            "tags": ["onnx"],
        }
        entry.update(self.info)
        return entry

    def is_lfs(self, path: str) -> bool:
        return path.endswith(self.lfs_suffixes)

    def tree(self) -> list[dict[str, Any]]:
        entries: list[dict[str, Any]] = []
        folders = sorted({"/".join(p.split("/")[:i]) for p in self.files for i in range(1, p.count("/") + 1)})
        for folder in folders:
            entries.append(
                {
                    "type": "directory",
                    "oid": hashlib.sha1(folder.encode(), usedforsecurity=False).hexdigest(),
                    "path": folder,
                }
            )
        for path, data in sorted(self.files.items()):
            sha1, sha256 = self.digests(path)
            entry: dict[str, Any] = {"type": "file", "oid": sha1, "size": len(data), "path": path}
            if self.is_lfs(path):
                entry["lfs"] = {"oid": sha256, "size": len(data), "pointerSize": 134}
            entries.append(entry)
        return entries


@dataclass
class Faults:
    """What goes wrong, per file path in the repo. Lists are consumed one entry per GET of the file's bytes."""

    drop_after: dict[str, list[int]] = field(default_factory=dict)  # close the connection after N bytes
    corrupt: dict[str, int] = field(default_factory=dict)  # serve flipped bytes this many times
    stall_after: dict[str, list[int]] = field(default_factory=dict)  # go silent after N bytes (until stop)
    status: dict[str, list[int]] = field(default_factory=dict)  # answer these statuses first
    throttle_bps: int | None = None  # for every file body
    ignore_range: bool = False
    missing: set[str] = field(default_factory=set)  # resolve says 404 EntryNotFound
    # A repo's info and file listing wait until its event is set (or the hub stops): a lookup that hangs.
    hold_info: dict[str, threading.Event] = field(default_factory=dict)

    def take(self, table: dict[str, list[int]], path: str) -> int | None:
        values = table.get(path)
        return values.pop(0) if values else None


@dataclass
class LoggedRequest:
    origin: str  # "hub" or "cdn"
    method: str
    path: str
    range: str | None
    authorized: bool
    status: int = 0


class FakeHub:
    """Two HTTP servers (the Hub and its CDN) on loopback ports. Use as a context manager."""

    def __init__(self, *, page_size: int = 1000) -> None:
        self.repos: dict[str, FakeRepo] = {}
        self.faults = Faults()
        self.page_size = page_size
        self.search_page_size = 50  # the real Hub pages /api/models too
        self.search_fails = False
        self.log: list[LoggedRequest] = []
        self.bytes_served: dict[str, int] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._connections: set[socket.socket] = set()
        self._hub = self._server("hub")
        self._cdn = self._server("cdn")
        self._threads: list[threading.Thread] = []

    # -- set-up ------------------------------------------------------------------------------------------------
    def add_repo(self, repo: FakeRepo) -> FakeRepo:
        self.repos[repo.repo_id] = repo
        return repo

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self._hub.server_address[1]}"

    @property
    def cdn_endpoint(self) -> str:
        return f"http://127.0.0.1:{self._cdn.server_address[1]}"

    def start(self) -> FakeHub:
        for server in (self._hub, self._cdn):
            thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
            thread.start()
            self._threads.append(thread)
        return self

    def stop(self) -> None:
        self._stop.set()
        with self._lock:
            for conn in list(self._connections):
                with contextlib.suppress(OSError):
                    conn.shutdown(socket.SHUT_RDWR)
        for server in (self._hub, self._cdn):
            server.shutdown()
            server.server_close()
        for thread in self._threads:
            thread.join(timeout=5)

    def __enter__(self) -> FakeHub:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- queries for tests -------------------------------------------------------------------------------------
    def requests(
        self, *, origin: str | None = None, method: str | None = None, path_contains: str = ""
    ) -> list[LoggedRequest]:
        with self._lock:
            return [
                r
                for r in self.log
                if (origin is None or r.origin == origin)
                and (method is None or r.method == method)
                and path_contains in r.path
            ]

    def body_requests(self, file_path: str) -> list[LoggedRequest]:
        """GETs that fetched the bytes of ``file_path`` (from the CDN for LFS files, the Hub for the others)."""
        return [r for r in self.requests(method="GET") if r.path.endswith("/" + file_path) and "/api/" not in r.path]

    # -- internals ---------------------------------------------------------------------------------------------
    def _server(self, origin: str) -> ThreadingHTTPServer:
        hub = self

        class Handler(_Handler):
            pass

        Handler.hub = hub
        Handler.origin = origin
        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        server.daemon_threads = True
        return server

    def _track(self, conn: socket.socket, add: bool) -> None:
        with self._lock:
            (self._connections.add if add else self._connections.discard)(conn)

    def _record(self, entry: LoggedRequest) -> None:
        with self._lock:
            self.log.append(entry)


_RANGE = re.compile(r"bytes=(\d+)-(\d*)$")


class _Handler(BaseHTTPRequestHandler):
    hub: FakeHub
    origin: str
    protocol_version = "HTTP/1.1"

    def setup(self) -> None:
        super().setup()
        # Headers and body go out in separate writes: without this, Nagle plus delayed ACKs add 40 ms per small file.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.hub._track(self.connection, True)

    def finish(self) -> None:
        with contextlib.suppress(OSError):
            super().finish()
        self.hub._track(self.connection, False)

    def log_message(self, format: str, *args: Any) -> None:
        pass  # quiet: tests read hub.log instead

    def handle_one_request(self) -> None:
        try:
            super().handle_one_request()
        except (ConnectionError, TimeoutError, OSError):
            self.close_connection = True

    def do_HEAD(self) -> None:
        self._dispatch(head=True)

    def do_GET(self) -> None:
        self._dispatch(head=False)

    # -- responses -------------------------------------------------------------------------------------------------
    def _send(
        self, status: int, body: bytes = b"", headers: dict[str, str] | None = None, *, head: bool = False
    ) -> None:
        self.send_response(status)
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if not head and body:
            self.wfile.write(body)
        self._entry.status = status

    def _error(self, status: int, code: str, message: str, *, head: bool) -> None:
        body = json.dumps({"error": message}).encode()
        self._send(
            status,
            body,
            {"X-Error-Code": code, "X-Error-Message": message, "Content-Type": "application/json"},
            head=head,
        )

    def _json(self, data: Any, headers: dict[str, str] | None = None) -> None:
        self._send(200, json.dumps(data).encode(), {"Content-Type": "application/json", **(headers or {})})

    def _dispatch(self, *, head: bool) -> None:
        url = urlsplit(self.path)
        path = unquote(url.path)
        auth = self.headers.get("Authorization")
        self._entry = LoggedRequest(self.origin, self.command, path, self.headers.get("Range"), auth is not None)
        self.hub._record(self._entry)
        if self.origin == "cdn":
            self._cdn(path, head=head)
            return
        if url.path.rstrip("/") == "/api/models":
            self._search(url.query)
            return
        match = re.match(r"^/api/models/(.+?)/(revision|tree)/([^/]+)(/.*)?$", url.path)
        if match:
            held = self.hub.faults.hold_info.get(unquote(match.group(1)))
            while held is not None and not held.wait(0.05) and not self.hub._stop.is_set():
                pass
            repo = self._repo(unquote(match.group(1)), auth, head=head)
            if repo is None:
                return
            revision = unquote(match.group(3))
            if revision not in ("main", repo.commit):
                self._error(404, "RevisionNotFound", f"Invalid rev id: {revision}", head=head)
                return
            if match.group(2) == "revision":
                self._json(
                    {
                        "id": repo.repo_id,
                        "sha": repo.commit,
                        "siblings": [{"rfilename": p} for p in sorted(repo.files)],
                        "private": False,
                    }
                )
            else:
                self._tree(repo, url.query, url.path)
            return
        match = re.match(r"^/(.+?)/resolve/([^/]+)/(.+)$", path)
        if match:
            repo = self._repo(match.group(1), auth, head=head)
            if repo is not None:
                self._resolve(repo, match.group(2), match.group(3), head=head)
            return
        self._error(404, "NotFound", "no such route", head=head)

    def _repo(self, repo_id: str, auth: str | None, *, head: bool) -> FakeRepo | None:
        repo = self.hub.repos.get(repo_id)
        if repo is None:
            self._error(401 if auth is None else 404, "RepoNotFound", "Repository not found", head=head)
            return None
        if repo.token is not None and auth != f"Bearer {repo.token}":
            self._error(
                401,
                "GatedRepo",
                f"Access to model {repo_id} is restricted. You must have access to it and be authenticated to access it. Please log in.",
                head=head,
            )
            return None
        return repo

    def _search(self, query: str) -> None:
        """``/api/models?search=&filter=&sort=&limit=``: public repos whose id contains the text, most downloaded first."""
        params = parse_qs(query)
        text = params.get("search", [""])[0].lower()
        tags = params.get("filter", [])
        hub = self.hub
        if hub.search_fails:
            self._error(503, "ServiceUnavailable", "search is down", head=False)
            return
        found = [
            repo.search_entry() for repo in hub.repos.values() if repo.token is None and text in repo.repo_id.lower()
        ]
        found = [e for e in found if all(t in e.get("tags", []) for t in tags)]
        found.sort(key=lambda e: (-int(e.get("downloads", 0)), e["id"]))
        start = int(params.get("cursor", ["0"])[0])
        size = min(int(params.get("limit", [str(hub.search_page_size)])[0]), hub.search_page_size)
        headers = {}
        if start + size < len(found):
            rest = "&".join(f"{k}={quote(v)}" for k, values in params.items() if k != "cursor" for v in values)
            headers["Link"] = f'<{hub.endpoint}/api/models?{rest}&cursor={start + size}>; rel="next"'
        self._json(found[start : start + size], headers)

    def _tree(self, repo: FakeRepo, query: str, path: str) -> None:
        entries = repo.tree()
        params = parse_qs(query)
        start = int(params.get("cursor", ["0"])[0])
        page = entries[start : start + self.hub.page_size]
        headers = {}
        if start + self.hub.page_size < len(entries):
            next_url = f"{self.hub.endpoint}{path}?recursive=true&expand=false&cursor={start + self.hub.page_size}"
            headers["Link"] = f'<{next_url}>; rel="next"'
        self._json(page, headers)

    def _resolve(self, repo: FakeRepo, revision: str, file_path: str, *, head: bool) -> None:
        faults = self.hub.faults
        if revision not in ("main", repo.commit):
            self._error(404, "RevisionNotFound", f"Invalid rev id: {revision}", head=head)
            return
        data = repo.files.get(file_path)
        if data is None or file_path in faults.missing:
            self._error(404, "EntryNotFound", f"{file_path} does not exist", head=head)
            return
        common = {"X-Repo-Commit": repo.commit, "Accept-Ranges": "bytes"}
        if repo.is_lfs(file_path):
            location = f"{self.hub.cdn_endpoint}/{quote(repo.repo_id)}/{repo.commit}/{quote(file_path)}?sig=fake"
            headers = {
                **common,
                "Location": location,
                "ETag": f'"{repo.digests(file_path)[0]}"',
                "X-Linked-Etag": f'"{repo.digests(file_path)[1]}"',
                "X-Linked-Size": str(len(data)),
            }
            self._send(302, b"", headers, head=head)
            return
        self._serve_bytes(file_path, data, {**common, "ETag": f'"{repo.digests(file_path)[0]}"'}, head=head)

    def _cdn(self, path: str, *, head: bool) -> None:
        parts = path.lstrip("/").split("/")
        for split in range(1, len(parts)):
            repo = self.hub.repos.get("/".join(parts[:split]))
            if repo is not None and len(parts) > split + 1 and parts[split] == repo.commit:
                file_path = "/".join(parts[split + 1 :])
                if file_path in repo.files:
                    data = repo.files[file_path]
                    self._serve_bytes(file_path, data, {"ETag": f'"{repo.digests(file_path)[1]}"'}, head=head)
                    return
        self._send(404, b"not found", head=head)

    def _serve_bytes(self, file_path: str, data: bytes, headers: dict[str, str], *, head: bool) -> None:
        faults = self.hub.faults
        if not head:
            status = faults.take(faults.status, file_path)
            if status is not None:
                self._send(status, b"injected", {"Retry-After": "0"})
                return
        start, end = 0, len(data) - 1
        range_header = self.headers.get("Range")
        status = 200
        match = _RANGE.match(range_header or "")
        if match and not faults.ignore_range:
            start = int(match.group(1))
            end = int(match.group(2)) if match.group(2) else len(data) - 1
            if start >= len(data):
                self._send(416, b"", {"Content-Range": f"bytes */{len(data)}"}, head=head)
                return
            status = 206
            headers = {**headers, "Content-Range": f"bytes {start}-{end}/{len(data)}"}
        body = data[start : end + 1]
        if head:
            self._head(status, len(body), headers)
            return
        if faults.corrupt.get(file_path, 0) > 0:
            faults.corrupt[file_path] -= 1
            flipped = bytearray(body)
            if flipped:
                flipped[len(flipped) // 2] ^= 0xFF
            body = bytes(flipped)
        drop = faults.take(faults.drop_after, file_path)
        stall = faults.take(faults.stall_after, file_path)
        self.send_response(status)
        for key, value in headers.items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self._entry.status = status
        self._write_body(file_path, body, drop, stall, faults.throttle_bps)

    def _head(self, status: int, length: int, headers: dict[str, str]) -> None:
        self.send_response(status)
        for key, value in headers.items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(length))
        self.end_headers()
        self._entry.status = status

    def _write_body(
        self, file_path: str, body: bytes, drop: int | None, stall: int | None, throttle: int | None
    ) -> None:
        view = memoryview(body)
        chunk = 16 * 1024 if throttle else 1024 * 1024
        sent = 0
        started = time.monotonic()
        hub = self.hub
        try:
            while sent < len(view):
                limit = len(view)
                for cut in (drop, stall):
                    if cut is not None:
                        limit = min(limit, cut)
                if sent >= limit:
                    if stall is not None and sent >= stall:
                        hub._stop.wait(3600)  # silent until the client gives up or the hub stops
                    self.wfile.flush()
                    self.connection.shutdown(socket.SHUT_RDWR)
                    self.close_connection = True
                    return
                piece = view[sent : min(limit, sent + chunk)]
                self.wfile.write(piece)
                sent += len(piece)
                with hub._lock:
                    hub.bytes_served[file_path] = hub.bytes_served.get(file_path, 0) + len(piece)
                if throttle:
                    ahead = sent / throttle - (time.monotonic() - started)
                    if ahead > 0 and hub._stop.wait(ahead):
                        return
        except OSError:
            self.close_connection = True


def model_repo_files(
    model_dir: Path, folder: str = DEVICE_FOLDER, extra: dict[str, bytes] | None = None
) -> dict[str, bytes]:
    """The files of a repo holding ``model_dir`` in a device subfolder, the way real og repos are laid out."""
    files = {
        f"{folder}/{p.relative_to(model_dir).as_posix()}"
        if folder
        else p.relative_to(model_dir).as_posix(): p.read_bytes()
        for p in sorted(model_dir.rglob("*"))
        if p.is_file()
    }
    files["README.md"] = b"# A tiny test model\n"
    files[".gitattributes"] = b"*.onnx filter=lfs diff=lfs merge=lfs -text\n"
    for name, data in (extra or {}).items():
        files[f"{folder}/{name}" if folder else name] = data
    return files


COMMUNITY_VARIANTS = ("", "_fp16", "_q4", "_q4f16", "_int8", "_quantized", "_bnb4", "_uint8")


def community_repo_files(
    model_dir: Path | None = None,
    *,
    variants: tuple[str, ...] = COMMUNITY_VARIANTS,
    config: dict[str, Any] | None = None,
    filler_bytes: int = 200_000,
    data_suffix: str = "_data",  # onnx/model.onnx_data, as Optimum names it
) -> dict[str, bytes]:
    """An onnx-community (Transformers.js / Optimum) repo: root files, and ``onnx/model{variant}.onnx`` for each variant.

    With ``model_dir`` (a folder in that layout, e.g. from tests.helpers.community_model), its real files are
    served and the variants it lacks are filled with distinct filler bytes (so a test can tell them apart and
    prove they were never fetched). Without it, every file is filler around ``config``.
    """
    files: dict[str, bytes] = {}
    if model_dir is not None:
        for p in sorted(model_dir.rglob("*")):
            if p.is_file() and p.name != "genai_config.json":
                files[p.relative_to(model_dir).as_posix()] = p.read_bytes()
    files.setdefault(
        "config.json",
        json.dumps(config or {"model_type": "llama", "architectures": ["LlamaForCausalLM"]}).encode(),
    )
    if config is not None:
        files["config.json"] = json.dumps(config).encode()
    for name, data in (
        ("generation_config.json", b'{"bos_token_id": 1, "eos_token_id": 2}'),
        ("tokenizer.json", b'{"model": {"type": "BPE", "vocab": {}, "merges": []}}'),
        ("tokenizer_config.json", b'{"chat_template": "{{ messages }}"}'),
        ("special_tokens_map.json", b"{}"),
    ):
        files.setdefault(name, data)
    for i, variant in enumerate(variants):
        onnx = f"onnx/model{variant}.onnx"
        if onnx not in files:
            files[onnx] = pseudo_random_bytes(filler_bytes // 10, seed=100 + i)
            if variant in ("", "_fp16"):  # the big ones keep their weights outside the graph
                files[onnx + data_suffix] = pseudo_random_bytes(filler_bytes, seed=200 + i)
    files["README.md"] = b"# An onnx-community style test repo\n"
    files[".gitattributes"] = b"*.onnx filter=lfs diff=lfs merge=lfs -text\n"
    return files


def pseudo_random_bytes(size: int, seed: int = 1) -> bytes:
    """Deterministic incompressible-looking bytes (fast: sha256 in counter mode)."""
    out = bytearray()
    counter = 0
    block = hashlib.sha256(seed.to_bytes(8, "little")).digest()
    while len(out) < size:
        out += hashlib.sha256(block + counter.to_bytes(8, "little")).digest() * 64
        counter += 1
    return bytes(out[:size])


def main(argv: list[str]) -> int:  # pragma: no cover - manual use and subprocess helpers
    import argparse

    parser = argparse.ArgumentParser(description="Serve a model folder as a fake Hugging Face repo on 127.0.0.1.")
    parser.add_argument("model_dir", type=Path)
    parser.add_argument("--repo", default="localmind-tests/tiny-onnx")
    parser.add_argument("--pad-mb", type=int, default=0, help="add an LFS file of this many MB (for throughput)")
    parser.add_argument("--throttle-kbps", type=int, default=0)
    args = parser.parse_args(argv)
    extra = {"weights.bin": pseudo_random_bytes(args.pad_mb * 1_000_000)} if args.pad_mb else None
    hub = FakeHub()
    hub.add_repo(FakeRepo(args.repo, model_repo_files(args.model_dir, extra=extra)))
    if args.throttle_kbps:
        hub.faults.throttle_bps = args.throttle_kbps * 1000
    with hub:
        print(hub.endpoint, flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
