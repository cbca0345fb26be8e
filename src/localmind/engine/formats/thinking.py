"""Reasoning models (Qwen3, DeepSeek-R1 distills) think in ``<think>…</think>`` before answering.

The window shows the thinking apart from the answer, and the engine leaves old thinking out of later prompts,
as these models' templates intend (og's template renderer does not apply the templates' own stripping:
``content.split('</think>')[-1]`` inside an ``if`` is ignored, so LocalMind strips before rendering).

DeepSeek-R1 templates open the block in the generation prompt, so the reply holds only the closing tag:
text before a ``</think>`` with no opening tag is thinking too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

OPEN, CLOSE = "<think>", "</think>"
# Qwen3's template switches thinking off this way; LocalMind sets the variable the same way when asked.
_ENABLE_THINKING = re.compile(r"\benable_thinking\b")


@dataclass(frozen=True)
class Split:
    thinking: str  # "" when the reply has no thinking
    answer: str
    closed: bool  # the thinking ended (False while a reply is still thinking, or was stopped while thinking)
    has_thinking: bool


def split_thinking(text: str) -> Split:
    """Separate a reply's leading thinking block from its answer."""
    stripped = text.lstrip()
    if stripped.startswith(OPEN):
        body = stripped[len(OPEN) :]
        end = body.find(CLOSE)
        if end < 0:
            return Split(body.strip(), "", closed=False, has_thinking=True)
        return Split(body[:end].strip(), body[end + len(CLOSE) :].lstrip(), closed=True, has_thinking=True)
    if OPEN.startswith(stripped) and stripped:
        return Split("", "", closed=False, has_thinking=True)  # "<thi": the tag is still arriving
    end = text.find(CLOSE)
    if end >= 0 and OPEN not in text[:end]:
        return Split(text[:end].strip(), text[end + len(CLOSE) :].lstrip(), closed=True, has_thinking=True)
    return Split("", text, closed=False, has_thinking=False)


def strip_thinking(text: str) -> str:
    """The answer alone: what goes back into the next prompt, and what Copy copies."""
    split = split_thinking(text)
    return split.answer if split.has_thinking else text


def supports_thinking_switch(template: str | None) -> bool:
    """True when the chat template reads ``enable_thinking`` (Qwen3 and its derivatives)."""
    return bool(template and _ENABLE_THINKING.search(template))


def with_thinking(template: str, enabled: bool) -> str:
    """``template`` with ``enable_thinking`` set, as transformers' ``apply_chat_template(enable_thinking=…)``
    passes it (og's ``apply_chat_template`` takes no template variables)."""
    return "{%- set enable_thinking = " + ("true" if enabled else "false") + " -%}" + template


class ThinkingRouter:
    """Streaming: decides, batch by batch, which text is thinking and which is answer.

    ``feed`` returns the answer text to append, or None when the answer must be rendered afresh from
    ``answer``: the thinking just closed (and with DeepSeek-R1, whose reply only closes the block, text
    already shown as answer turned out to be thinking). When the stream ends the message is rendered from
    its whole text anyway, so text held back here is never lost.
    """

    def __init__(self) -> None:
        self._seen = ""  # the reply so far, kept only until the thinking closes
        self._shown = 0  # how much of it was handed out as answer
        self.closed = False
        self.has_thinking = False
        self.thinking = ""
        self.answer = ""

    def feed(self, text: str) -> str | None:
        if self.closed:
            return text
        self._seen += text
        split = split_thinking(self._seen)
        self.has_thinking, self.thinking = split.has_thinking, split.thinking
        if split.closed:
            self.closed, self.answer, self._seen = True, split.answer, ""
            return None
        if split.has_thinking or _could_be_tag(self._seen):
            return ""
        out, self._shown = self._seen[self._shown :], len(self._seen)
        return out


def _could_be_tag(seen: str) -> bool:
    stripped = seen.lstrip()
    return bool(stripped) and len(stripped) < len(OPEN) and OPEN.startswith(stripped) and CLOSE not in seen


__all__ = [
    "CLOSE",
    "OPEN",
    "Split",
    "ThinkingRouter",
    "split_thinking",
    "strip_thinking",
    "supports_thinking_switch",
    "with_thinking",
]
