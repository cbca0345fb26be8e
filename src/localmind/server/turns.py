"""One API request as one engine turn: queueing, stop sequences, finish reasons, usage, cancel on hang-up."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import anyio
from starlette.requests import Request

from localmind.engine.types import (
    ChatMessage,
    ContextLengthExceededError,
    EngineError,
    FinishReason,
    GenerationOptions,
    GrammarError,
    ModelLoadError,
    PromptTooLongError,
    TextDelta,
    TokenLogprob,
    ToolCall,
    TurnFinished,
    TurnStats,
)
from localmind.errors import UserFacingError
from localmind.server.abilities import engine_field
from localmind.server.errors import APIError
from localmind.server.scheduler import Job, QueueFull, Scheduler
from localmind.server.stops import StopFilter

T = TypeVar("T")


@dataclass(frozen=True)
class Outcome:
    finish_reason: str  # "stop" | "length" | "tool_calls"
    stats: TurnStats

    def usage(self) -> dict[str, Any]:
        s = self.stats
        return {
            "prompt_tokens": s.prompt_tokens,
            "completion_tokens": s.generated_tokens,
            "total_tokens": s.prompt_tokens + s.generated_tokens,
            "prompt_tokens_details": {"cached_tokens": s.reused_tokens},
        }

    def timings(self, job: Job) -> dict[str, float]:
        """Server-side times in ms (llama.cpp's server has a "timings" object too): where a request's time went."""
        queued = ((job.started_at or job.queued_at) - job.queued_at) * 1000
        return {
            "queued_ms": round(queued, 2),
            "ttft_ms": round(self.stats.time_to_first_token_s * 1000, 2),
            "engine_ms": round(self.stats.total_s * 1000, 2),
        }


def engine_error(exc: BaseException) -> APIError:
    if isinstance(exc, APIError):
        return exc
    if isinstance(exc, GrammarError):
        return APIError(400, str(exc), param="response_format", code="invalid_json_schema")
    if isinstance(exc, ContextLengthExceededError):
        return APIError(400, context_length_message(exc), param="messages", code="context_length_exceeded")
    if isinstance(exc, PromptTooLongError):
        return APIError(400, str(exc), param="messages", code="context_length_exceeded")
    if isinstance(exc, ModelLoadError):
        return APIError(503, str(exc), type="server_error", code="model_not_loaded")
    param = engine_field(str(exc)) if isinstance(exc, EngineError) else None
    if param is not None:
        return APIError(400, str(exc), param=param, code="invalid_value")
    if isinstance(exc, (EngineError, UserFacingError)):
        return APIError(500, str(exc), type="server_error", code="engine_error")
    return APIError(500, f"The engine failed: {type(exc).__name__}: {exc}", type="server_error")


def context_length_message(exc: ContextLengthExceededError) -> str:
    """OpenAI's words for a conversation that does not fit, in English whatever the user's language (API clients
    and their users know them). The counts are the error's, or its message's values once it crossed the engine's
    process (only the texts do)."""

    def count(attribute: str, value: str) -> int:
        number = getattr(exc, attribute, 0)
        return number or int(exc.values.get(value, "0").replace(",", "") or 0)

    prompt, reserve, budget = (
        count("prompt_tokens", "count"),
        count("reply_reserve", "reserve"),
        count("max_context", "budget"),
    )
    return (
        f"This model's maximum context length is {budget} tokens. However, you requested {prompt + reserve} tokens "
        f"({prompt} in the messages, {reserve} in the completion). Please reduce the length of the messages or "
        "completion, or send drop_oldest_messages: true to leave out the oldest turns."
    )


class Turn:
    """Runs a job and turns its events into reply text plus an :class:`Outcome`."""

    def __init__(
        self,
        scheduler: Scheduler,
        messages: Sequence[ChatMessage],
        options: GenerationOptions,
        stops: Sequence[str],
        client: str,
    ) -> None:
        try:
            self.job: Job = scheduler.submit(messages, options, client)
        except QueueFull as exc:
            raise APIError(
                429,
                f"The server is busy: {exc.waiting} requests are already waiting for the model. "
                f"Try again in {exc.retry_after_s} s.",
                type="rate_limit_error",
                code="rate_limit_exceeded",
                headers={"Retry-After": str(exc.retry_after_s)},
            ) from exc
        self._stops = StopFilter(stops)
        self.outcome: Outcome | None = None
        self.text_parts: list[str] = []
        self.cancelled_stats: TurnStats | None = None  # how far the engine got when a hang-up stopped it
        self.logprobs: list[TokenLogprob] = []  # with GenerationOptions.logprobs
        self.tool_calls: tuple[ToolCall, ...] = ()  # the calls the model made (a turn with tools)

    def cancel(self) -> None:
        self.job.cancel()

    async def settle(self, timeout: float = 10.0) -> None:
        """After a cancel: wait until the engine has stopped, so the log can say how far it got."""
        if self.outcome is not None or self.job.started_at is None:
            return

        # Shielded: this runs while the response is being torn down (its task cancelled by the hang-up).
        with anyio.CancelScope(shield=True), contextlib.suppress(asyncio.TimeoutError):
            finished = await asyncio.wait_for(self.job.drain(), timeout)
            self.cancelled_stats = finished.stats if finished is not None else None

    async def pieces(self) -> AsyncIterator[str]:
        """Reply text as it comes (never empty strings); ``outcome`` is set when it ends. Raises APIError."""
        finished: TurnFinished | None = None
        try:
            async for event in self.job.events():
                if isinstance(event, TextDelta):
                    self.logprobs.extend(event.logprobs)
                    text = self._stops.feed(event.text)
                    if self._stops.stopped:
                        self.job.cancel()  # the engine stops within one step; keep reading for its stats
                    if text:
                        self.text_parts.append(text)
                        yield text
                else:
                    finished = event
        except Exception as exc:
            raise engine_error(exc) from exc
        if finished is None:
            raise APIError(
                503, "The request was cancelled before it ran (the server is stopping).", type="server_error"
            )
        if finished.reason is FinishReason.ERROR:
            raise APIError(500, finished.error or "Generation failed.", type="server_error", code="engine_error")
        tail = self._stops.flush()
        if tail:
            self.text_parts.append(tail)
            yield tail
        reason = "length" if finished.reason is FinishReason.LENGTH and not self._stops.stopped else "stop"
        self.tool_calls = finished.tool_calls
        if finished.tool_calls:
            reason = "tool_calls"
        self.outcome = Outcome(reason, finished.stats)

    @property
    def text(self) -> str:
        return "".join(self.text_parts)


async def until_disconnected(request: Request) -> None:
    """Returns when the client hangs up (the request body has been read by then)."""
    while True:
        message = await request.receive()
        if message["type"] == "http.disconnect":
            return


async def unless_disconnected(request: Request, work: Awaitable[T], turn: Turn) -> T:
    """Await ``work``; if the client hangs up first, cancel the turn and raise a 499 APIError."""
    task = asyncio.ensure_future(work)
    watcher = asyncio.ensure_future(until_disconnected(request))
    try:
        done, _ = await asyncio.wait({task, watcher}, return_when=asyncio.FIRST_COMPLETED)
        if task in done:
            return task.result()
        turn.cancel()
        task.cancel()
        await turn.settle()
        # Nobody will read this; the status (nginx's "client closed request") is for the log line.
        raise APIError(499, "The client closed the connection.", code="client_closed_request")
    finally:
        watcher.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await watcher
