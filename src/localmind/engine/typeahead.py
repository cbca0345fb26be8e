"""Type-ahead: reading a message into the KV cache while it is still being typed."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from localmind.engine.kv_cache import KVCache
from localmind.engine.prompt_builder import PromptBuilder
from localmind.engine.types import ChatMessage

SPECULATIVE_CHUNK = 16  # tokens per type-ahead forward pass: a send waits for at most one of these
# More than this left to read ahead (a paste, a reopened chat): full-size chunks until this much is left. Small chunks
# re-read the weights per 16 tokens, and a send would have to read those tokens anyway (on a busy CPU the Qwen3 shape
# read 772 of a 2,000-token paste in 53 s of typing in 16-token chunks: issue 12).
SPECULATIVE_BACKLOG = 256


def read_ahead(
    prompts: PromptBuilder,
    kv: KVCache,
    messages: Sequence[ChatMessage],
    draft: str,
    still_wanted: Callable[[], bool],
    on_chunk: Callable[[], None] | None = None,
    whole: bool = False,
) -> int:
    """Read ``messages`` plus the start of ``draft`` into ``kv`` (``LocalEngine.prefill`` says how and why);
    stops at the next chunk once ``still_wanted()`` is False. Returns the tokens now cached."""
    planned_text = prompts.draft_prompt(list(messages), draft, whole)
    if planned_text is None:
        return len(kv.record.tokens)
    text, ends = planned_text
    reused, pieces = kv.plan(text, ends, prompts.encode_piece, speculative=True)
    planned = reused + sum(len(tokens) for _, tokens in pieces)
    if planned + kv.window.min_reply_reserve > kv.window.budget:
        return len(kv.record.tokens)  # would not fit with a reply: the send will drop old turns anyway
    small, left = max(1, min(kv.chunk, SPECULATIVE_CHUNK)), planned - reused
    for index, (end, tokens) in enumerate(pieces):
        start = 0
        while start < len(tokens):
            if on_chunk is not None:
                on_chunk()
            if not still_wanted():
                return len(kv.record.tokens)
            size = min(kv.chunk, left - SPECULATIVE_BACKLOG) if left > SPECULATIVE_BACKLOG + small else small
            piece = tokens[start : start + size]
            kv.append(piece)
            start += len(piece)
            left -= len(piece)
        if index < len(pieces) - 1:  # the draft's piece stays unmarked: its text is not final
            kv.record.text = text[:end]
            kv.record.mark()
    if not kv.in_step():
        kv.drop()
    elif whole and draft.strip() and pieces:
        # The whole prompt a send now would read is in: keep what the model predicts after it, so that send
        # gives its first token without a forward pass.
        kv.keep_logits()
    return len(kv.record.tokens)


__all__ = ["SPECULATIVE_BACKLOG", "SPECULATIVE_CHUNK", "read_ahead"]
