"""A deliberately broken OpenAI-compatible server on 127.0.0.1, to check how the remote engine takes faults.

It lists one model ("m"); what ``/v1/chat/completions`` does depends on ``mode``: "ok" streams a short reply,
"500" answers an OpenAI error with status 500, "cut" sends two pieces and then drops the connection mid-body, "stall" sends two pieces and then nothing
until ``stalled`` is set.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class FaultServer:
    def __init__(self, mode: str = "ok", port: int = 0) -> None:
        self.mode = mode
        self.stalled = threading.Event()  # set: a "stall" response goes on (and ends)
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:
                pass

            def _json(self, status: int, body: object) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                if self.path == "/v1/models":
                    self._json(200, {"object": "list", "data": [{"id": "m", "object": "model"}]})
                else:
                    self._json(404, {"error": {"message": "nothing here"}})

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                if owner.mode == "500":
                    self._json(500, {"error": {"message": "GPU fell over", "type": "server_error"}})
                    return
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                pieces = ["Hello", " there", "!"]
                for text in pieces[:2] if owner.mode in ("cut", "stall") else pieces:
                    self._chunk({"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}]})
                if owner.mode == "stall":  # a long prefill on a busy GPU box: nothing comes for a long while
                    owner.stalled.wait(60)
                    return
                if owner.mode == "cut":
                    self.wfile.write(b'40\r\ndata: {"cho')  # half a chunk, then the connection drops
                    self.wfile.flush()
                    self.close_connection = True
                    return
                self._chunk({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
                self._chunk({"choices": [], "usage": {"prompt_tokens": 5, "completion_tokens": 3, "total_tokens": 8}})
                self._raw(b"data: [DONE]\n\n")
                self.wfile.write(b"0\r\n\r\n")

            def _chunk(self, body: object) -> None:
                self._raw(f"data: {json.dumps(body)}\n\n".encode())

            def _raw(self, data: bytes) -> None:
                self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
                self.wfile.flush()

        self._server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.port = self._server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self.stalled.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(5)
