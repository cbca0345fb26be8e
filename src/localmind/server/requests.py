"""OpenAI request fields → the engine's messages and options, refusing what LocalMind cannot honour."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from localmind.engine.types import ChatMessage, GenerationOptions, Role
from localmind.server import abilities
from localmind.server.context import ServedModel, ServerContext
from localmind.server.errors import APIError, bad_request, unsupported
from localmind.server.schemas import ChatCompletionRequest, CompletionRequest, Message, ResponseFormat, SamplingFields

_ROLES: dict[str, Role] = {"system": "system", "developer": "system", "user": "user", "assistant": "assistant"}


def require_model(ctx: ServerContext, requested: str) -> ServedModel:
    served = ctx.served()
    if served is None:
        raise APIError(
            503,
            "No model is loaded. Load one in LocalMind, then try again.",
            type="server_error",
            code="model_not_loaded",
        )
    if requested != served.id:
        raise APIError(
            404,
            f"The model '{requested}' does not exist here. This server serves '{served.id}' (GET /v1/models lists it).",
            param="model",
            code="model_not_found",
        )
    return served


def _text_of(message: Message) -> str:
    content = message.content
    if content is None:
        return ""  # an assistant turn that had only tool calls, in OpenAI's shape: no text
    if isinstance(content, str):
        return content
    return "".join(part.text for part in content)  # every part is text (schemas refuses the rest)


def chat_messages(ctx: ServerContext, body: ChatCompletionRequest) -> list[ChatMessage]:
    messages = [_chat_message(m, i) for i, m in enumerate(body.messages)]
    check_prompt_size(ctx, sum(len(m.content) for m in messages), "messages")
    return messages


def _chat_message(message: Message, index: int) -> ChatMessage:
    if message.role not in ("tool", "function") and not message.tool_calls and not message.function_call:
        return ChatMessage(_ROLES[message.role], _text_of(message))
    fields = {
        "role": message.role,
        "content": _text_of(message),
        "name": message.name,
        "tool_call_id": message.tool_call_id,
        "tool_calls": message.tool_calls,
        "function_call": message.function_call,
    }
    try:
        return abilities.chat_message(fields, index)
    except abilities.FieldError as exc:
        raise bad_request(exc.message, param=exc.param, code="invalid_value") from None


def chat_options(ctx: ServerContext, body: ChatCompletionRequest) -> tuple[GenerationOptions, abilities.ToolRequest]:
    """The chat request's options with its tools, logprobs and logit_bias (each refused with a 400 naming it)."""
    options = generation_options(ctx, body, body.max_completion_tokens or body.max_tokens)
    try:
        tools = abilities.tool_request(body.tools, body.tool_choice, body.functions, body.function_call)
        bias = abilities.logit_bias(body.logit_bias)
    except abilities.FieldError as exc:
        raise bad_request(exc.message, param=exc.param, code="invalid_value") from None
    if tools.tools is not None and tools.tool_choice in ("required", "function") and options.json_schema is not None:
        raise bad_request(
            "A required tool call cannot be combined with a JSON response_format.", "tool_choice", "invalid_value"
        )
    if bias and (options.json_schema is not None or tools.tool_choice in ("required", "function")):
        raise bad_request("'logit_bias' cannot be combined with constrained decoding.", "logit_bias", "invalid_value")
    if body.top_logprobs and not body.logprobs:
        raise bad_request("'top_logprobs' needs 'logprobs': true.", "top_logprobs", "invalid_value")
    return replace(
        options,
        tools=tools.tools,
        tool_choice=tools.tool_choice,  # type: ignore[arg-type]
        tool_name=tools.tool_name,
        logprobs=bool(body.logprobs),
        top_logprobs=body.top_logprobs or 0,
        logit_bias=bias,
    ), tools


def completion_request(ctx: ServerContext, body: CompletionRequest) -> tuple[list[ChatMessage], GenerationOptions]:
    """The completion's messages and options. A text prompt is read as one user message through the model's chat
    template; token ids are read as they are; with ``suffix`` the text is the prefix of a fill-in-the-middle prompt
    (read without the template; only models whose tokenizer has FIM tokens)."""
    options = generation_options(ctx, body, body.max_tokens or 16)
    try:
        bias = abilities.logit_bias(body.logit_bias)
    except abilities.FieldError as exc:
        raise bad_request(exc.message, param=exc.param, code="invalid_value") from None
    if bias and options.json_schema is not None:
        raise bad_request("'logit_bias' cannot be combined with constrained decoding.", "logit_bias", "invalid_value")
    options = replace(options, logit_bias=bias, logprobs=body.logprobs is not None, top_logprobs=body.logprobs or 0)
    prompt = body.prompt
    if isinstance(prompt, list):
        ids = prompt[0] if len(prompt) == 1 and isinstance(prompt[0], list) else prompt
        if all(isinstance(t, int) and not isinstance(t, bool) for t in ids) and ids:
            if body.echo or body.suffix is not None:
                raise bad_request(
                    "A token-id prompt cannot be combined with echo or suffix: send the prompt as text.",
                    "prompt",
                    "invalid_value",
                )
            check_prompt_size(ctx, len(ids), "prompt")
            return [], replace(options, prompt_token_ids=tuple(ids))
        if len(prompt) != 1 or not isinstance(prompt[0], str):
            raise bad_request(
                "'prompt' must be a text, a list of one text, or a list of token ids (one prompt per request).",
                "prompt",
                "invalid_value",
            )
        prompt = prompt[0]
    check_prompt_size(ctx, len(prompt) + len(body.suffix or ""), "prompt")
    if body.suffix is not None:
        return [ChatMessage("user", prompt)], replace(options, raw_prompt=prompt, suffix=body.suffix)
    # LocalMind runs chat models: the prompt is read as one user message through the model's chat template.
    return [ChatMessage("user", prompt)], options


def check_prompt_size(ctx: ServerContext, chars: int, param: str) -> None:
    limit = ctx.config.max_prompt_chars
    if chars > limit:
        raise APIError(
            400,
            f"The prompt is too long: {chars:,} characters; this server accepts at most {limit:,}.",
            param=param,
            code="prompt_too_long",
        )


# JSON on one line, spaced as Python's json.dumps writes it. Whitespace between tokens is then not the model's to
# choose: small models otherwise loop on spaces and newlines inside an object until max_tokens. (llguidance's
# "x-guidance" options, read by og's constrained decoding; a schema that sets its own keeps them.)
_JSON_LAYOUT = {"whitespace_flexible": False, "key_separator": ": ", "item_separator": ", "}


def response_schema(response_format: ResponseFormat | None, min_tokens: int | None) -> str | None:
    """The JSON schema (as text) a reply must follow for ``response_format``; None for plain text."""
    if response_format is None or response_format.type == "text":
        return None
    if min_tokens:
        raise unsupported("min_tokens", "'min_tokens' cannot be combined with a JSON response_format.")
    schema: Any = {"type": "object"}
    if response_format.type == "json_schema":
        schema = response_format.json_schema.schema if response_format.json_schema is not None else None
        if schema is None:
            raise bad_request(
                "response_format.json_schema.schema is missing: give the JSON schema the reply must follow "
                "(or use response_format {'type': 'json_object'} for any JSON object).",
                param="response_format.json_schema.schema",
            )
    layout = schema.get("x-guidance")
    layout = {**_JSON_LAYOUT, **layout} if isinstance(layout, dict) else _JSON_LAYOUT
    return json.dumps({**schema, "x-guidance": layout}, ensure_ascii=False)


GREEDY_BELOW = 1e-5


def greedy_floor(temperature: float) -> float:
    """Temperatures too small to divide by (5e-324 made every probability NaN) pick the most likely token."""
    return 0.0 if temperature < GREEDY_BELOW else temperature


def generation_options(ctx: ServerContext, body: SamplingFields, max_tokens: int | None) -> GenerationOptions:
    if body.stream_options is not None and not body.stream:
        # OpenAI's own answer to the same request.
        raise bad_request(
            "The 'stream_options' parameter is only allowed when 'stream' is enabled.", param="stream_options"
        )
    defaults = ctx.config.defaults
    drop = ctx.config.drop_oldest if body.drop_oldest_messages is None else body.drop_oldest_messages
    return replace(
        defaults,
        temperature=defaults.temperature if body.temperature is None else greedy_floor(body.temperature),
        top_p=defaults.top_p if body.top_p is None else body.top_p,
        max_new_tokens=max_tokens or defaults.max_new_tokens,
        seed=body.seed,
        min_new_tokens=min(body.min_tokens or 0, max_tokens or defaults.max_new_tokens),
        json_schema=response_schema(body.response_format, body.min_tokens),
        drop_oldest=drop,
    )


def stop_sequences(body: SamplingFields) -> list[str]:
    return [body.stop] if isinstance(body.stop, str) else list(body.stop or [])  # at most 4 (schemas)
