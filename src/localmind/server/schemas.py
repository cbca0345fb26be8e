"""Request bodies. Unknown fields are ignored (OpenAI clients send many); values we cannot honour are refused."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class _Lenient(BaseModel):
    model_config = ConfigDict(extra="ignore")


class ContentPart(_Lenient):
    type: str
    text: str | None = None


class Message(_Lenient):
    role: str
    content: str | list[ContentPart] | None = None
    name: str | None = None


class StreamOptions(_Lenient):
    include_usage: bool = False


class ResponseFormat(_Lenient):
    type: Literal["text", "json_object", "json_schema"]
    json_schema: dict[str, Any] | None = None


class SamplingFields(_Lenient):
    temperature: float | None = Field(default=None, ge=0.0, le=2.0)
    top_p: float | None = Field(default=None, gt=0.0, le=1.0)
    seed: int | None = Field(default=None, description="Seed for sampling.")
    stop: str | list[str] | None = Field(default=None, description="Up to 4 sequences; the reply ends before one.")
    n: int | None = Field(default=None, ge=1, description="Only 1 is supported.")
    stream: bool = Field(default=False, description="Send the reply as Server-Sent Events while it is generated.")
    stream_options: StreamOptions | None = None
    frequency_penalty: float | None = Field(default=None, description="Not supported: leave it out or send 0.")
    presence_penalty: float | None = Field(default=None, description="Not supported: leave it out or send 0.")
    logprobs: bool | None = Field(default=None, description="Not supported.")
    user: str | None = None
    # Extension (vLLM has the same): no end of turn before this many tokens. Benchmarks use it for fixed lengths.
    min_tokens: int | None = Field(default=None, ge=0, description="No end of the reply before this many tokens.")
    # JSON output, enforced by constrained decoding (OpenAI's chat field; /v1/completions takes it too, as vLLM does).
    response_format: ResponseFormat | None = Field(
        default=None,
        description='`{"type": "json_object"}`, or `json_schema` with `{"schema": {...}}`: the reply is JSON '
        "that follows it (enforced while generating).",
    )


class ChatCompletionRequest(SamplingFields):
    model: str = Field(description="The served model's id (GET /v1/models).")
    messages: list[Message] = Field(min_length=1, description="The conversation: system, user and assistant turns.")
    max_tokens: int | None = Field(default=None, ge=1, description="At most this many new tokens.")
    max_completion_tokens: int | None = Field(default=None, ge=1, description="The same as max_tokens.")
    tools: list[dict[str, Any]] | None = Field(default=None, description="Not supported (function calling).")
    tool_choice: Any = None


class CompletionRequest(SamplingFields):
    model: str = Field(description="The served model's id (GET /v1/models).")
    prompt: str | list[str] = Field(description="One prompt (a list of one is accepted).")
    max_tokens: int | None = Field(default=None, ge=1, description="At most this many new tokens (default 16).")
    echo: bool = Field(default=False, description="Put the prompt before the completion.")
    suffix: str | None = Field(default=None, description="Not supported.")
    best_of: int | None = Field(default=None, description="Only 1 is supported.")


class GenerateRequest(_Lenient):
    """The reference article's request: one prompt in, the generated text out."""

    prompt: str = Field(min_length=1, description="The user's message (formatted with the model's chat template).")
    max_new_tokens: int = Field(default=256, ge=1, description="At most this many new tokens.")
    temperature: float = Field(default=0.7, ge=0.0, le=2.0, description="0 always picks the most likely token.")
    top_p: float = Field(default=0.9, gt=0.0, le=1.0)


class GenerateResponse(BaseModel):
    generated_text: str
    tokens_generated: int
    finish_reason: Literal["stop", "length"]
