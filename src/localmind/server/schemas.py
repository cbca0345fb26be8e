"""Request bodies, declared with ``fields.spec`` (checked by ``fields.parse``, described by ``fields.json_schema``).
Every OpenAI field is declared: honoured, or refused with a 400 naming it (``refusal``) — and a field no class declares
is refused too (``fields.parse``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from localmind.server.fields import spec

# ruff: noqa: RUF009 -- ``spec()`` is ``dataclasses.field()`` with the limits in its metadata: one field object per
# class body, never a shared mutable default.


_LATER = "is not supported by this server yet."


@dataclass(frozen=True, kw_only=True)
class ContentPart:
    type: Literal["text"] = spec(refusal="This model reads text only: every content part must be of type 'text'.")
    text: str
    # Parts of other types carry these; any of them is refused (the type already is).
    image_url: None = spec(None, refusal="This model reads text only.")
    input_audio: None = spec(None, refusal="This model reads text only.")
    file: None = spec(None, refusal="This model reads text only.")


@dataclass(frozen=True, kw_only=True)
class Message:
    role: Literal["system", "developer", "user", "assistant", "tool", "function"] = spec(
        refusal="Use the roles system, developer, user, assistant or tool (function: the older form of tool)."
    )
    content: str | list[ContentPart] | None = spec(None, description="Text, or text parts; null is empty text.")
    name: str | None = spec(None, description="Accepted; the model does not see participants' names.")
    refusal: str | None = spec(None, description="Accepted (an assistant's refusal, as OpenAI returns it).")
    annotations: list[Any] | None = spec(None, description="Accepted (as OpenAI returns them); not read.")
    tool_calls: list[dict[str, Any]] | None = spec(
        None, max_length=128, description="An assistant turn's calls (rendered through the model's template)."
    )
    tool_call_id: str | None = spec(None, description="A tool turn: the call it answers.")
    function_call: dict[str, Any] | None = spec(None, description="The older form of one assistant call.")
    audio: None = spec(None, refusal="Audio is not supported.")


@dataclass(frozen=True, kw_only=True)
class StreamOptions:
    include_usage: bool = spec(False, description="Send a last chunk with the usage.")
    include_obfuscation: bool = spec(False, description="Accepted; this server never pads its chunks.")


@dataclass(frozen=True, kw_only=True)
class JsonSchemaFormat:
    schema: dict[str, Any] = spec(
        description="The JSON schema the reply follows (a schema the engine cannot follow: 400)."
    )
    name: str | None = spec(None, description="Accepted; not used.")
    description: str | None = spec(None, description="Accepted; not shown to the model.")
    strict: bool | None = spec(None, description="Accepted: the schema is always enforced.")


@dataclass(frozen=True, kw_only=True)
class ResponseFormat:
    type: Literal["text", "json_object", "json_schema"]
    json_schema: JsonSchemaFormat | None = spec(None, description="Required with type json_schema.")


@dataclass(frozen=True, kw_only=True)
class SamplingFields:
    temperature: float | None = spec(None, ge=0, le=2, description="Below 1e-5 it picks the most likely token.")
    top_p: float | None = spec(None, gt=0, le=1)
    seed: int | None = spec(None, description="Seed for sampling.")
    stop: str | list[str] | None = spec(None, max_length=4, description="Up to 4 sequences; the reply ends before one.")
    n: int | None = spec(None, ge=1, le=8, description="Choices, 1-8: generated one after another on the same prompt.")
    stream: bool = spec(False, description="Send the reply as Server-Sent Events while it is generated.")
    stream_options: StreamOptions | None = spec(None, description="Only with stream=true.")
    frequency_penalty: float | None = spec(
        None, only=(0,), refusal="'frequency_penalty' is not supported: leave it out or send 0."
    )
    presence_penalty: float | None = spec(
        None, only=(0,), refusal="'presence_penalty' is not supported: leave it out or send 0."
    )
    logit_bias: dict[str, Any] | None = spec(
        None, max_length=1024, description="Token id → -100..100 added to its logit before sampling."
    )
    user: str | None = spec(None, description="Accepted; not stored.")
    # Extension (vLLM has the same): no end of turn before this many tokens. Benchmarks use it for fixed lengths.
    min_tokens: int | None = spec(None, ge=0, description="No end of the reply before this many tokens.")
    # JSON output, enforced by constrained decoding (OpenAI's chat field; /v1/completions takes it too, as vLLM does).
    response_format: ResponseFormat | None = spec(
        None,
        description='`{"type": "json_object"}`, or `json_schema` with `{"schema": {...}}`: the reply is JSON '
        "that follows it (enforced while generating).",
    )
    # Extension: a conversation longer than the context gets 400 context_length_exceeded unless this asks for the
    # window's policy (the server's --drop-oldest makes it the default).
    drop_oldest_messages: bool | None = spec(
        None,
        description="LocalMind: when the conversation does not fit the context, leave out its oldest turns (never "
        "the system prompt) instead of answering 400 context_length_exceeded; the response's `dropped_messages` "
        "says how many. Default: false (or the server's --drop-oldest).",
    )
    store: bool | None = spec(None, only=(False,), refusal="This server stores nothing: 'store' must be false.")
    metadata: dict[str, str] | None = spec(None, description="Accepted; not stored.")
    service_tier: Literal["auto", "default"] | None = spec(
        None, refusal="This server has one service tier: use 'auto' or 'default'."
    )


@dataclass(frozen=True, kw_only=True)
class ChatCompletionRequest(SamplingFields):
    model: str = spec(description="The served model's id (GET /v1/models).")
    messages: list[Message] = spec(min_length=1, description="The conversation: system, user and assistant turns.")
    max_tokens: int | None = spec(None, ge=1, description="At most this many new tokens.")
    max_completion_tokens: int | None = spec(None, ge=1, description="The same as max_tokens.")
    logprobs: bool | None = spec(None, description="Each token's log-probability (docs/api.md says of which).")
    top_logprobs: int | None = spec(None, ge=0, le=20, description="With logprobs: this many likeliest alternatives.")
    tools: list[dict[str, Any]] | None = spec(None, max_length=128, description="Functions the model may call.")
    tool_choice: str | dict[str, Any] | None = spec(
        None, description="auto, none, required (a call, by constrained decoding), or a named function."
    )
    parallel_tool_calls: bool | None = spec(
        None, description="Accepted: a required call is one call; with auto every call the model writes is given."
    )
    functions: list[dict[str, Any]] | None = spec(None, max_length=128, description="The older form of tools.")
    function_call: str | dict[str, Any] | None = spec(None, description="The older form of tool_choice.")
    reasoning_effort: None = spec(None, refusal=f"'reasoning_effort' {_LATER}")
    verbosity: None = spec(None, refusal=f"'verbosity' {_LATER}")
    modalities: list[Literal["text"]] | None = spec(None, refusal="This model writes text only.")
    audio: None = spec(None, refusal="Audio is not supported.")
    prediction: None = spec(None, refusal=f"'prediction' {_LATER}")
    web_search_options: None = spec(None, refusal="Web search is not supported: nothing leaves this computer.")
    prompt_cache_key: str | None = spec(None, description="Accepted; the cache is reused automatically.")
    safety_identifier: str | None = spec(None, description="Accepted; not stored.")


@dataclass(frozen=True, kw_only=True)
class CompletionRequest(SamplingFields):
    model: str = spec(description="The served model's id (GET /v1/models).")
    prompt: str | list[Any] = spec(
        max_length=16384,
        description="One prompt: text (read as a user message through the chat template), a list of one text, or "
        "token ids (a list of integers, or a list of one such list), read as they are.",
    )
    max_tokens: int | None = spec(None, ge=1, description="At most this many new tokens (default 16).")
    echo: bool = spec(False, description="Put the prompt before the completion.")
    suffix: str | None = spec(
        None,
        description="Fill-in-the-middle: the text after the completion (the prompt is the text before; read without "
        "the chat template). Only models whose tokenizer has FIM tokens; otherwise 400 naming suffix.",
    )
    best_of: int | None = spec(None, ge=1, le=1, refusal="'best_of' must be 1.")
    logprobs: int | None = spec(
        None, ge=0, le=5, description="Each token's log-probability and this many alternatives."
    )


@dataclass(frozen=True, kw_only=True)
class GenerateRequest:
    """The reference article's request: one prompt in, the generated text out (its defaults and ranges)."""

    prompt: str = spec(description="The user's message (formatted with the model's chat template); may be empty.")
    max_new_tokens: int = spec(
        50,
        ge=1,
        description="At most this many new tokens (the reference allows up to 500; here the context is the limit).",
    )
    temperature: float = spec(
        0.7, ge=0, le=2, description="0 (or anything below 1e-5) always picks the most likely token."
    )
    top_p: float = spec(0.9, ge=0, le=1, description="0 keeps only the most likely token (as temperature 0).")


@dataclass(frozen=True, kw_only=True)
class GenerateResponse:
    generated_text: str
    tokens_generated: int
    finish_reason: Literal["stop", "length"]
