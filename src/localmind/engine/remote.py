"""A model on another computer: any OpenAI-compatible server (vLLM, Ollama, llama.cpp, LocalMind's own).

The same :class:`~localmind.engine.types.ChatEngine` protocol as the local engine, so the window, the worker
and ``localmind chat`` drive it unchanged: text streams as ``TextDelta`` (SSE from ``/v1/chat/completions``),
a turn ends with ``TurnFinished`` and its stats, ``cancel()`` stops it from any thread (the connection is
closed, which makes a well-behaved server stop generating). Failures say which server and what to do: a
refused connection or an HTTP error raises :class:`EngineError` before any text; a stream cut mid-reply ends
the turn with ``FinishReason.ERROR`` and keeps the text so far. The next ``generate`` simply connects again;
a connection the server dropped while idle is retried once.

Messages sent to a remote engine leave this computer: the UI says so wherever one is offered.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from localmind.engine.model_ref import REMOTE_PREFIX, ModelRef
from localmind.engine.types import (
    ChatEngine,
    ChatMessage,
    EngineError,
    FinishReason,
    GenerationOptions,
    LoadInfo,
    LoadOptions,
    ModelLoadError,
    ReadsAhead,
    Recovers,
    StreamEvent,
    TextDelta,
    TurnFinished,
    TurnStats,
)
from localmind.errors import Phrase, translatable
from localmind.lazy import lazy_module

if TYPE_CHECKING:
    import httpx2 as httpx
else:
    # The window builds its engine router at start-up; only a remote model needs the HTTP client, whose import
    # took 70-350 ms of the first paint (issue 12).
    httpx = lazy_module("httpx2")

CONNECT_TIMEOUT_S = 10.0
READ_TIMEOUT_S = 300.0  # a big model on a busy server may think for minutes before its first token


def normalise_base_url(url: str) -> str:
    """``http://host:8000``, ``http://host:8000/`` and ``http://host:8000/v1`` all mean ``http://host:8000/v1``."""
    url = url.strip().rstrip("/")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise EngineError.say(
            "{url} is not a server address.",
            "Use the form http://HOST:PORT (for example http://gpu-box:8000).",
            url=repr(url),
        )
    return url if url.endswith("/v1") else url + "/v1"


def host_of(url: str) -> str:
    return urlsplit(url).netloc or url


def _error_detail(response: httpx.Response) -> str:
    try:
        body = json.loads(response.read())
    except (ValueError, httpx.HTTPError):
        return response.reason_phrase or f"HTTP {response.status_code}"
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return str(error["message"])
    if isinstance(error, str):
        return error
    if isinstance(body, dict) and isinstance(body.get("detail"), str):
        return str(body["detail"])
    return response.reason_phrase or f"HTTP {response.status_code}"


class RemoteEngine:
    """A :class:`~localmind.engine.types.ChatEngine` that talks to an OpenAI-compatible server."""

    def __init__(self, base_url: str, api_key: str | None = None, *, transport: httpx.BaseTransport | None = None):
        self.base_url = normalise_base_url(base_url)
        self.host = host_of(self.base_url)
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(
            base_url=self.base_url,
            headers=headers,
            timeout=httpx.Timeout(READ_TIMEOUT_S, connect=CONNECT_TIMEOUT_S),
            transport=transport,
        )
        self._model: str | None = None
        self._cancel = threading.Event()
        self._lock = threading.Lock()
        self._response: httpx.Response | None = None
        self.info: LoadInfo | None = None

    # -- talking to the server -----------------------------------------------------------------------------------
    def _unreachable(self, exc: Exception) -> EngineError:
        hint = "Check that it is running and that the address is right, then try again."
        if isinstance(exc, httpx.TimeoutException):
            return EngineError.say("The server at {host} did not answer in time.", hint, host=self.host)
        if isinstance(exc, httpx.ConnectError):
            return EngineError.say(
                "The server at {host} refused the connection or could not be found.", hint, host=self.host
            )
        return EngineError.say(
            "The server at {host} could not be reached ({kind}).", hint, host=self.host, kind=type(exc).__name__
        )

    def _http_error(self, response: httpx.Response) -> EngineError:
        detail = _error_detail(response)
        status = response.status_code
        if status in (401, 403):
            hint = translatable("Check the API key in Settings → Remote models.")
        elif status == 404:
            hint = translatable("Check the model name and the address (it should end in /v1 or nothing).")
        elif status == 429:
            hint = translatable("The server is busy; try again in a moment.")
        else:
            hint = translatable("The server reported a problem; try again, or check the server's log.")
        return EngineError.say(
            "The server at {host} answered {status}: {detail}", hint, host=self.host, status=status, detail=detail
        )

    def list_models(self) -> list[str]:
        """The model ids the server offers (also a connection test)."""
        try:
            response = self._client.get("/models")
        except httpx.HTTPError as exc:
            raise self._unreachable(exc) from exc
        if response.status_code != 200:
            raise self._http_error(response)
        try:
            data = response.json()["data"]
            return [str(item["id"]) for item in data]
        except (ValueError, KeyError, TypeError) as exc:
            raise EngineError.say(
                "The server at {host} did not answer like an OpenAI-compatible server.",
                "Check the address: it should be the server's API root (for example http://HOST:8000/v1).",
                host=self.host,
            ) from exc

    # -- ChatEngine ----------------------------------------------------------------------------------------------
    def load(self, model_dir: str, options: LoadOptions | None = None) -> LoadInfo:
        """``model_dir`` is the remote model's name. Checks the server has it."""
        started = time.perf_counter()
        try:
            names = self.list_models()
        except EngineError as exc:
            error = ModelLoadError(exc.message, hint=exc.hint)
            error.set_sources(exc.sources())  # the window still translates it
            raise error from exc
        if model_dir not in names:
            offered = ", ".join(names[:10]) or "none"
            raise ModelLoadError.say(
                "The server at {host} has no model called {model} (it offers: {offered}).",
                "Pick one of those.",
                host=self.host,
                model=repr(model_dir),
                offered=offered,
            )
        self._model = model_dir
        self.info = LoadInfo(
            model_dir=remote_model_dir(self.base_url, model_dir),
            model_name=model_dir,
            model_type="remote",
            device=f"remote: {self.host}",
            load_s=time.perf_counter() - started,
            warnings=(Phrase("This model runs on {host}: your messages leave this computer.", host=self.host),),
        )
        return self.info

    def unload(self) -> None:
        self._model = None
        self.info = None

    def close(self) -> None:
        self.cancel()
        self._client.close()

    def cancel(self) -> None:
        self._cancel.set()
        with self._lock:
            response = self._response
        if response is not None:
            # Shutting the socket down wakes the generating thread's read at once, even while the server sends
            # nothing (a long prefill): closing alone does not wake a read that is blocked. It also tells the
            # server its client is gone (LocalMind's server then stops within one decode step).
            stream = response.extensions.get("network_stream")
            sock = stream.get_extra_info("socket") if stream is not None else None
            with contextlib.suppress(Exception):  # already closed, or closing raced with the reader: it is over
                if isinstance(sock, socket.socket):
                    sock.shutdown(socket.SHUT_RDWR)
            with contextlib.suppress(Exception):
                response.close()

    def count_tokens(self, messages: Sequence[ChatMessage]) -> int:
        # No tokenizer here; about four characters a token is the usual estimate for display.
        return sum(len(m.content) for m in messages) // 4 + 4 * len(messages)

    def generate(
        self, messages: Sequence[ChatMessage], options: GenerationOptions | None = None
    ) -> Iterator[StreamEvent]:
        if self._model is None:
            raise EngineError.say("No model is loaded.", "Pick a model first.")
        options = options or GenerationOptions()
        options.validate()
        self._cancel.clear()
        body: dict[str, Any] = {
            "model": self._model,
            "messages": [{"role": m.role, "content": m.content} for m in messages],
            "stream": True,
            "stream_options": {"include_usage": True},
            "temperature": options.temperature,
            "top_p": options.top_p,
            "max_tokens": options.max_new_tokens,
        }
        if options.seed is not None:
            body["seed"] = options.seed
        if options.json_schema is not None:  # the server enforces it (LocalMind's layout options are its own)
            schema = {k: v for k, v in json.loads(options.json_schema).items() if k != "x-guidance"}
            body["response_format"] = {"type": "json_schema", "json_schema": {"name": "reply", "schema": schema}}
        return self._stream(body)

    def _open(self, body: dict[str, Any]) -> httpx.Response:
        for attempt in (1, 2):
            request = self._client.build_request("POST", "/chat/completions", json=body)
            try:
                response = self._client.send(request, stream=True)
            except (httpx.RemoteProtocolError, httpx.ReadError) as exc:
                # A kept-alive connection the server had closed: connect again, once.
                if attempt == 2 or self._cancel.is_set():
                    raise self._unreachable(exc) from exc
                continue
            except httpx.HTTPError as exc:
                raise self._unreachable(exc) from exc
            if response.status_code != 200:
                try:
                    raise self._http_error(response)
                finally:
                    response.close()
            return response
        raise AssertionError("unreachable")

    def _stream(self, body: dict[str, Any]) -> Iterator[StreamEvent]:
        started = time.perf_counter()
        response = self._open(body)
        with self._lock:
            self._response = response
        first: float | None = None
        pieces = 0
        finish: str | None = None
        usage: dict[str, Any] = {}
        error: str | None = None
        done = False
        try:
            for line in response.iter_lines():
                if not line.startswith("data:"):
                    continue
                payload = line[5:].strip()
                if payload == "[DONE]":
                    done = True
                    break
                try:
                    chunk = json.loads(payload)
                except ValueError:
                    error = f"The server at {self.host} sent something that is not JSON in its stream."
                    break
                if isinstance(chunk.get("error"), dict):
                    error = f"The server at {self.host} failed mid-reply: {chunk['error'].get('message', 'no reason')}"
                    break
                if isinstance(chunk.get("usage"), dict):
                    usage = chunk["usage"]
                for choice in chunk.get("choices") or []:
                    text = (choice.get("delta") or {}).get("content")
                    if text:
                        if first is None:
                            first = time.perf_counter()
                        pieces += 1
                        yield TextDelta(text)
                    finish = choice.get("finish_reason") or finish
        except httpx.HTTPError as exc:
            if not self._cancel.is_set():
                error = f"The connection to {self.host} was lost mid-reply ({type(exc).__name__})."
        finally:
            with self._lock:
                self._response = None
            response.close()
        if self._cancel.is_set():
            reason = FinishReason.CANCELLED
        elif error is not None:
            reason = FinishReason.ERROR
        elif not done and finish is None:
            reason, error = FinishReason.ERROR, f"The connection to {self.host} ended before the reply was complete."
        else:
            reason = FinishReason.LENGTH if finish == "length" else FinishReason.END_OF_TURN
        generated = int(usage.get("completion_tokens") or pieces)
        now = time.perf_counter()
        decode_s = now - first if first else 0.0
        details = usage.get("prompt_tokens_details") or {}
        stats = TurnStats(
            prompt_tokens=int(usage.get("prompt_tokens") or 0),
            reused_tokens=int(details.get("cached_tokens") or 0) if isinstance(details, dict) else 0,
            generated_tokens=generated,
            time_to_first_token_s=(first - started) if first else 0.0,
            tokens_per_second=(generated - 1) / decode_s if generated > 1 and decode_s > 0 else 0.0,
            total_s=now - started,
        )
        if reason is FinishReason.ERROR and error:
            error += " Try again; the text so far is kept."
        yield TurnFinished(reason, stats, error=error)


def list_remote_models(base_url: str, api_key: str | None) -> tuple[str, list[str]]:
    """The server's host name and the model ids it offers, over one short-lived connection (a connection test
    too). Raises EngineError saying what went wrong."""
    engine = RemoteEngine(base_url, api_key)
    try:
        return engine.host, engine.list_models()
    finally:
        engine.close()


def remote_model_ref(base_url: str, name: str) -> ModelRef:
    """The reference to model ``name`` on the server at ``base_url`` (normalised: one server, one key)."""
    return ModelRef.remote(normalise_base_url(base_url), name)


def remote_model_dir(base_url: str, name: str) -> str:
    """How the app stores a remote model where it stores model folders (LoadInfo, settings, conversations)."""
    return remote_model_ref(base_url, name).key


def parse_remote_model_dir(model_dir: str) -> tuple[str, str] | None:
    """(base URL, model name) of a :func:`remote_model_dir`, or None for a model folder."""
    ref = ModelRef.parse(model_dir)
    return (str(ref.url), str(ref.name)) if ref.is_remote else None


class RoutingEngine:
    """The app's engine: model folders go to the local engine, ``remote:URL#NAME`` to a :class:`RemoteEngine`.

    One of them is active at a time; loading a remote model unloads the local one (its memory is freed) and the
    other way round. ``api_key_for(url)`` supplies the key for a server (the app reads it from the keyring).
    """

    def __init__(self, local: ChatEngine, api_key_for: Callable[[str], str | None] = lambda _url: None) -> None:
        self._local = local
        self._api_key_for = api_key_for
        self._remote: RemoteEngine | None = None
        self._active: ChatEngine = local

    def load(self, model_dir: str, options: LoadOptions | None = None) -> LoadInfo:
        """``model_dir``: a :attr:`ModelRef.key` (the engine's load keeps taking the stored text)."""
        ref = ModelRef.parse(model_dir)
        if ref.url is None or ref.name is None:
            info = self._local.load(model_dir, options or LoadOptions())
            self._drop_remote()
            self._active = self._local
            return info
        url, name = ref.url, ref.name
        remote = RemoteEngine(url, self._api_key_for(url))
        try:
            info = remote.load(name, options)
        except BaseException:
            remote.close()
            raise
        self._drop_remote()
        self._local.unload()
        self._remote = remote
        self._active = remote
        return info

    def _drop_remote(self) -> None:
        if self._remote is not None:
            self._remote.close()
            self._remote = None

    def unload(self) -> None:
        self._active.unload()

    def generate(self, messages: Sequence[ChatMessage], options: GenerationOptions) -> Iterator[StreamEvent]:
        return self._active.generate(messages, options)

    def cancel(self) -> None:
        self._active.cancel()

    def count_tokens(self, messages: Sequence[ChatMessage]) -> int:
        return self._active.count_tokens(messages)

    def close(self) -> None:
        self._drop_remote()
        self._local.close()

    # Reading ahead (type-ahead, warm reopen) is the local engine's: a remote server is never asked to read ahead.
    def typeahead_epoch(self) -> int:
        return self._local.typeahead_epoch() if isinstance(self._local, ReadsAhead) else 0

    def preempt_prefill(self) -> None:
        if isinstance(self._local, ReadsAhead):
            self._local.preempt_prefill()

    def prefill(
        self, messages: Sequence[ChatMessage], draft: str = "", epoch: int | None = None, whole: bool = False
    ) -> int:
        if not isinstance(self._local, ReadsAhead) or self._active is not self._local:
            return 0
        return int(self._local.prefill(messages, draft, epoch, whole=whole))

    # Health and recovery are the engine child's too (a remote server answers for itself).
    def health(self) -> str | None:
        return self._local.health() if self._active is self._local and isinstance(self._local, Recovers) else None

    def reload_due(self) -> bool:
        return self._active is self._local and isinstance(self._local, Recovers) and self._local.reload_due()

    def heal(self) -> None:
        if isinstance(self._local, Recovers):
            self._local.heal()


__all__ = [
    "REMOTE_PREFIX",
    "RemoteEngine",
    "RoutingEngine",
    "host_of",
    "normalise_base_url",
    "parse_remote_model_dir",
    "remote_model_dir",
    "remote_model_ref",
]
