"""Request bodies, declared with ``fields.spec`` (checked by ``fields.parse``, described by ``fields.json_schema``).
Unknown fields are ignored (OpenAI clients send many); values we cannot honour are refused."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from localmind.server.fields import spec

# ruff: noqa: RUF009 -- ``spec()`` is ``dataclasses.field()`` with the limits in its metadata: one field object per
# class body, never a shared mutable default.


@dataclass(frozen=True, kw_only=True)
class ContentPart:
    type: str
    text: str | None = None


@dataclass(frozen=True, kw_only=True)
class Message:
    role: str
    content: str | list[ContentPart] | None = None
    name: str | None = None


@dataclass(frozen=True, kw_only=True)
class StreamOptions:
    include_usage: bool = False


@dataclass(frozen=True, kw_only=True)
class ResponseFormat:
    type: Literal["text", "json_object", "json_schema"]
    json_schema: dict[str, Any] | None = None


@dataclass(frozen=True, kw_only=True)
class SamplingFields:
    temperature: float | None = spec(None, ge=0, le=2)
    top_p: float | None = spec(None, gt=0, le=1)
    seed: int | None = spec(None, description="Seed for sampling.")
    stop: str | list[str] | None = spec(None, description="Up to 4 sequences; the reply ends before one.")
    n: int | None = spec(None, ge=1, description="Only 1 is supported.")
    stream: bool = spec(False, description="Send the reply as Server-Sent Events while it is generated.")
    stream_options: StreamOptions | None = None
    frequency_penalty: float | None = spec(None, description="Not supported: leave it out or send 0.")
    presence_penalty: float | None = spec(None, description="Not supported: leave it out or send 0.")
    logprobs: bool | None = spec(None, description="Not supported.")
    user: str | None = None
    # Extension (vLLM has the same): no end of turn before this many tokens. Benchmarks use it for fixed lengths.
    min_tokens: int | None = spec(None, ge=0, description="No end of the reply before this many tokens.")
    # JSON output, enforced by constrained decoding (OpenAI's chat field; /v1/completions takes it too, as vLLM does).
    response_format: ResponseFormat | None = spec(
        None,
        description='`{"type": "json_object"}`, or `json_schema` with `{"schema": {...}}`: the reply is JSON '
        "that follows it (enforced while generating).",
    )


@dataclass(frozen=True, kw_only=True)
class ChatCompletionRequest(SamplingFields):
    model: str = spec(description="The served model's id (GET /v1/models).")
    messages: list[Message] = spec(min_length=1, description="The conversation: system, user and assistant turns.")
    max_tokens: int | None = spec(None, ge=1, description="At most this many new tokens.")
    max_completion_tokens: int | None = spec(None, ge=1, description="The same as max_tokens.")
    tools: list[dict[str, Any]] | None = spec(None, description="Not supported (function calling).")
    tool_choice: Any = None


@dataclass(frozen=True, kw_only=True)
class CompletionRequest(SamplingFields):
    model: str = spec(description="The served model's id (GET /v1/models).")
    prompt: str | list[str] = spec(description="One prompt (a list of one is accepted).")
    max_tokens: int | None = spec(None, ge=1, description="At most this many new tokens (default 16).")
    echo: bool = spec(False, description="Put the prompt before the completion.")
    suffix: str | None = spec(None, description="Not supported.")
    best_of: int | None = spec(None, description="Only 1 is supported.")


@dataclass(frozen=True, kw_only=True)
class GenerateRequest:
    """The reference article's request: one prompt in, the generated text out."""

    prompt: str = spec(min_length=1, description="The user's message (formatted with the model's chat template).")
    max_new_tokens: int = spec(256, ge=1, description="At most this many new tokens.")
    temperature: float = spec(0.7, ge=0, le=2, description="0 always picks the most likely token.")
    top_p: float = spec(0.9, gt=0, le=1)


@dataclass(frozen=True, kw_only=True)
class GenerateResponse:
    generated_text: str
    tokens_generated: int
    finish_reason: Literal["stop", "length"]
