"""LocalMind as a Python library: open a model, generate or stream text, chat with the cache kept between turns.

    from localmind import TextGenerator

    with TextGenerator("qwen3-0.6b") as generator:             # an installed model's id, or a model folder
        result = generator.generate("Name three rivers.", max_new_tokens=64)
        print(result["generated_text"], result["tokens_generated"], result["finish_reason"])
        for chunk, metadata in generator.stream_generate("Tell me a story.", temperature=0.8):
            print(chunk, end="", flush=True)
        chat = generator.chat(system="Be brief.")
        print(chat.send("Hello!"))
        print(chat.send("And in French?"))                     # reads only the new message: the cache is reused

``generate`` and ``stream_generate`` take the reference project's arguments (``prompt``, ``max_new_tokens``,
``temperature``, ``top_p``) and return its shapes: ``{"generated_text", "tokens_generated", "finish_reason"}``, and
``(chunk, metadata)`` pairs whose last ``metadata`` carries the totals. The prompt is one user message, formatted
with the model's chat template, as LocalMind's ``/generate`` does. No Qt is imported; the model runs in this
process (one engine: use one generator from one thread at a time).
"""

from __future__ import annotations

import dataclasses
import os
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, Literal, TypedDict

from localmind.engine.local import LocalEngine
from localmind.engine.types import (
    ChatMessage,
    FinishReason,
    GenerationOptions,
    LoadInfo,
    LoadOptions,
    TextDelta,
    TurnFinished,
    TurnStats,
)

FinishName = Literal["stop", "length"]
ROLES = ("system", "user", "assistant")


class GenerateResult(TypedDict):
    generated_text: str
    tokens_generated: int
    finish_reason: FinishName


class StreamMetadata(TypedDict, total=False):
    finish_reason: FinishName | None  # None until the last pair
    tokens_generated: int  # on the last pair
    prompt_tokens: int  # on the last pair
    reused_tokens: int  # on the last pair: prompt tokens already in the model's cache
    time_to_first_token_s: float  # on the last pair
    tokens_per_second: float  # on the last pair


def _model_folder(model: str | os.PathLike[str]) -> Path:
    """A folder as given, or the folder of an installed model (its id, as `localmind models list` shows)."""
    path = Path(model).expanduser()
    if path.is_dir():
        return path.resolve()
    text = os.fspath(model)
    if os.sep in text or (os.altsep and os.altsep in text):
        raise FileNotFoundError(f"Model folder not found: {text}")
    from localmind.core.hub.installed import require_installed
    from localmind.errors import UserFacingError

    try:
        installed = require_installed(text)
    except UserFacingError as exc:
        raise LookupError(str(exc)) from exc
    if not installed.ok:
        raise LookupError(f"The model {text!r} cannot be used: {installed.problem}")
    return Path(installed.model_path)


def _finish_name(finished: TurnFinished) -> FinishName:
    if finished.reason is FinishReason.ERROR:
        raise RuntimeError(finished.error or "Generation failed.")
    return "length" if finished.reason is FinishReason.LENGTH else "stop"


def _message(item: ChatMessage | dict[str, Any]) -> ChatMessage:
    if isinstance(item, ChatMessage):
        return item
    role, content = item.get("role"), item.get("content")
    if role not in ROLES or not isinstance(content, str):
        raise ValueError(f"a message needs a role ({', '.join(ROLES)}) and text content, got {item!r}")
    return ChatMessage(role, content)


class TextGenerator:
    """One loaded model. ``model``: a folder (an onnxruntime-genai package or an onnx-community export) or the id
    of a model installed with LocalMind. ``device``: "auto", "cpu", "cuda", "dml" or "coreml"; ``context``: how
    many tokens of context to allocate (the model's own limit at most; default 4,096)."""

    def __init__(
        self,
        model: str | os.PathLike[str],
        *,
        device: str = "auto",
        context: int | None = None,
        threads: int | None = None,
    ) -> None:
        self._engine: LocalEngine | None = LocalEngine()
        self._lock = threading.Lock()
        self.info: LoadInfo = self._engine.load(
            str(_model_folder(model)), LoadOptions(device=device, context_budget=context, threads=threads)
        )

    @property
    def device(self) -> str:
        return self.info.device

    def _running(self) -> LocalEngine:
        if self._engine is None:
            raise RuntimeError("This TextGenerator is closed.")
        return self._engine

    def generate(
        self,
        prompt: str,
        max_new_tokens: int = 256,
        temperature: float = 0.7,
        top_p: float = 0.9,
        **options: Any,
    ) -> GenerateResult:
        """The whole reply to ``prompt``. ``options``: any other :class:`GenerationOptions` field (``top_k``,
        ``repetition_penalty``, ``seed``, ``json_schema`` …)."""
        text: list[str] = []
        totals: StreamMetadata = {}
        for chunk, metadata in self.stream_generate(prompt, max_new_tokens, temperature, top_p, **options):
            text.append(chunk)
            totals = metadata
        return {
            "generated_text": "".join(text),
            "tokens_generated": int(totals.get("tokens_generated", 0)),
            "finish_reason": totals.get("finish_reason") or "stop",
        }

    def stream_generate(
        self,
        prompt: str,
        max_new_tokens: int = 256,
        temperature: float = 0.7,
        top_p: float = 0.9,
        **options: Any,
    ) -> Iterator[tuple[str, StreamMetadata]]:
        """``(chunk, metadata)`` as the reply is written; the last pair has an empty chunk and the totals."""
        if not isinstance(prompt, str) or not prompt:
            raise ValueError("prompt must be a non-empty string")
        settings = GenerationOptions(temperature=temperature, top_p=top_p, max_new_tokens=max_new_tokens, **options)
        yield from self._stream([ChatMessage("user", prompt)], settings)

    def _stream(
        self, messages: Sequence[ChatMessage], settings: GenerationOptions
    ) -> Iterator[tuple[str, StreamMetadata]]:
        settings.validate()
        with self._lock:
            engine = self._running()
            for event in engine.generate(list(messages), settings):
                if isinstance(event, TextDelta):
                    yield event.text, {"finish_reason": None}
                elif isinstance(event, TurnFinished):
                    yield "", self._totals(event)

    def _totals(self, finished: TurnFinished) -> StreamMetadata:
        stats: TurnStats = finished.stats
        return {
            "tokens_generated": stats.generated_tokens,
            "finish_reason": _finish_name(finished),
            "prompt_tokens": stats.prompt_tokens,
            "reused_tokens": stats.reused_tokens,
            "time_to_first_token_s": stats.time_to_first_token_s,
            "tokens_per_second": stats.tokens_per_second,
        }

    def count_tokens(self, messages: Sequence[ChatMessage | dict[str, Any]]) -> int:
        """How many tokens ``messages`` take in the model's chat template."""
        return self._running().count_tokens([_message(m) for m in messages])

    def chat(self, system: str | None = None, **options: Any) -> Chat:
        """A conversation: each :meth:`Chat.send` reads only what is new (the model's cache is reused)."""
        return Chat(self, system, GenerationOptions(**options))

    def close(self) -> None:
        with self._lock:
            if self._engine is not None:
                self._engine.unload()
                self._engine = None

    def __enter__(self) -> TextGenerator:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()


class Chat:
    """A conversation with one :class:`TextGenerator`. ``messages`` holds it (system, user, assistant)."""

    def __init__(self, generator: TextGenerator, system: str | None, options: GenerationOptions) -> None:
        self._generator = generator
        self._options = options
        self.messages: list[ChatMessage] = [ChatMessage("system", system)] if system else []
        self.last: StreamMetadata = {}  # the last reply's totals (finish reason, tokens, reuse, speed)

    def stream(self, text: str, **options: Any) -> Iterator[str]:
        """The reply to ``text`` as it is written; it joins :attr:`messages` once complete."""
        settings = dataclasses.replace(self._options, **options)
        asked = [*self.messages, ChatMessage("user", text)]
        parts: list[str] = []
        for chunk, metadata in self._generator._stream(asked, settings):
            if chunk:
                parts.append(chunk)
                yield chunk
            if metadata.get("finish_reason"):
                self.last = metadata
        self.messages = [*asked, ChatMessage("assistant", "".join(parts))]

    def send(self, text: str, **options: Any) -> str:
        """The whole reply to ``text``."""
        return "".join(self.stream(text, **options))


__all__ = ["Chat", "GenerateResult", "StreamMetadata", "TextGenerator"]
