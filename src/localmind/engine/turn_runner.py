"""One assistant turn: fit and read the prompt, the decode loop (sampled or grammar-guided), and its stats.

The runner owns no model state: the prompt builder renders and fits, the KV cache holds og's Generator and
its record. A device that loaded but fails on its first forward pass is handed to ``fall_back`` (the engine
reloads on the CPU and answers from there).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from localmind.engine.kv_cache import KVCache, Pieces
from localmind.engine.prompt_builder import PromptBuilder
from localmind.engine.sampling import GREEDY_BELOW, Sampler
from localmind.engine.types import (
    ChatMessage,
    FinishReason,
    GenerationOptions,
    GrammarError,
    StreamEvent,
    TextDelta,
    TurnFinished,
    TurnStats,
)

FallBack = Callable[[list[ChatMessage], GenerationOptions, Exception], Iterator[StreamEvent]]


class CancelFlag(Protocol):
    def set(self) -> None: ...
    def clear(self) -> None: ...
    def is_set(self) -> bool: ...


@dataclass
class _Turn:
    """What one turn read and made, and when: its stats come from here."""

    prompt: str
    reused: int
    pieces: Pieces
    dropped: int
    started: float
    waited: float  # from the user's send (Enter) to this process starting the turn
    first_token_at: float | None = None
    generated: list[int] = field(default_factory=list)
    streamed: list[str] = field(default_factory=list)

    @property
    def new_count(self) -> int:
        return sum(len(tokens) for _, tokens in self.pieces)

    def stats(self, kv: KVCache) -> TurnStats:
        first, generated = self.first_token_at, len(self.generated)
        decode_s = time.perf_counter() - first if first else 0.0
        return TurnStats(
            prompt_tokens=self.new_count + self.reused,
            reused_tokens=self.reused,
            generated_tokens=generated,
            time_to_first_token_s=(first - self.started + self.waited) if first else 0.0,
            tokens_per_second=((generated - 1) / decode_s) if generated > 1 and decode_s > 0 else 0.0,
            total_s=time.perf_counter() - self.started + self.waited,
            context_tokens=len(kv.record.tokens),
            context_budget=kv.window.budget,
            dropped_messages=self.dropped,
        )


class TurnRunner:
    def __init__(self, prompts: PromptBuilder, kv: KVCache, cancel: CancelFlag) -> None:
        self.prompts = prompts
        self.kv = kv
        self.cancel = cancel
        self.eos: set[int] = set()

    def run(
        self, messages: list[ChatMessage], options: GenerationOptions, fall_back: FallBack | None = None
    ) -> Iterator[StreamEvent]:
        """Stream one turn; a turn with ``options.json_schema`` runs on a grammar Generator of its own."""
        if options.json_schema is None:
            return self._generate(messages, options, fall_back)
        return self._constrained(messages, options, fall_back)

    def _constrained(
        self, messages: list[ChatMessage], options: GenerationOptions, fall_back: FallBack | None
    ) -> Iterator[StreamEvent]:
        """A turn whose reply must be JSON valid against ``options.json_schema``.

        og enforces it (constrained decoding: the schema's grammar masks the logits, then og samples with the
        turn's settings), but takes the grammar only when a Generator is made. So the turn runs on a generator
        of its own, sized for it and read from scratch; the conversation's generator and cache wait aside and
        come back afterwards: the next turn reuses them as before (a grammar must never reach a plain turn).
        """
        model = self.kv.model
        with self.kv.aside(lambda: self.kv.model is model):
            yield from self._generate(messages, options, fall_back)

    def grammar_generator(self, options: GenerationOptions, prompt_tokens: int) -> Any:
        """A Generator whose tokens follow ``options.json_schema``, sampling as ``options`` say."""
        sampled = options.temperature >= GREEDY_BELOW and options.top_k != 1
        search: dict[str, Any] = {
            "max_length": min(self.kv.window.budget, prompt_tokens + options.max_new_tokens + 1),
            "do_sample": sampled,
            "repetition_penalty": options.repetition_penalty,
        }
        if sampled:
            search.update(temperature=options.temperature, top_p=options.top_p, top_k=options.top_k)
            if options.seed is not None:
                search["random_seed"] = options.seed % 2**31
        params = self.kv.og.GeneratorParams(self.kv.model)
        params.set_search_options(**search)
        try:
            params.set_guidance("json_schema", options.json_schema)
            return self.kv.og.Generator(self.kv.model, params)  # the grammar is built here
        except Exception as exc:
            detail = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:300].rstrip(".") + "."
            raise GrammarError.say(
                "The JSON schema cannot be enforced: {detail}",
                "Fix the schema, or leave out the parts LocalMind's constrained decoding does not support.",
                detail=detail.removeprefix("Error creating grammar: "),
            ) from exc

    # -- the turn ------------------------------------------------------------------------------------------------
    def _prepare(self, messages: list[ChatMessage], options: GenerationOptions) -> _Turn:
        """Fit the prompt, keep what the cache shares with it, and size og's buffer: what is left to read."""
        started = time.perf_counter()
        self.prompts.thinking = options.thinking
        # Times count from the user's send (Enter) when the caller says when that was: the hand-over to this
        # process and a speculative chunk still finishing are part of what the user waits for.
        waited = max(0.0, time.time() - options.submitted_at) if options.submitted_at else 0.0
        fitted = self.prompts.fit(messages, options)
        prompt, kv = fitted.text, self.kv
        ends = self.prompts.message_ends(fitted.messages, prompt)
        reused, pieces = kv.plan(prompt, ends, self.prompts.encode_piece, speculative=False)
        turn = _Turn(prompt, reused, pieces, fitted.dropped, started, waited)
        fits = kv.size_for(reused + turn.new_count + options.max_new_tokens + 1)
        if (reused + turn.new_count + kv.window.min_reply_reserve > kv.window.budget and reused) or not fits:
            # Encoding piece by piece came out longer than the budget allows, or a single turn's buffer is too
            # small for this one: start from scratch.
            kv.drop()
            turn.reused, turn.pieces = 0, [(len(prompt), self.prompts.encode(prompt))]
            kv.size_for(turn.new_count + options.max_new_tokens + 1)
        if options.json_schema is not None:  # the cache is empty (aside): the whole prompt goes to this generator
            kv.generator = self.grammar_generator(options, turn.reused + turn.new_count)
        return turn

    def _read_prompt(self, turn: _Turn) -> bool:
        """Read what is left of the prompt in chunks: a cancel point every chunk, and bounded logits memory.
        Each finished piece is marked, so a cancel keeps what was already read. False if cancelled."""
        kv = self.kv
        for end, tokens in turn.pieces:
            for start in range(0, len(tokens), kv.chunk):
                if self.cancel.is_set():
                    kv.rewind_to_mark()
                    return False
                kv.append(tokens[start : start + kv.chunk])
            kv.record.text = turn.prompt[:end]
            kv.record.mark()
        return True

    def _generate(
        self, messages: list[ChatMessage], options: GenerationOptions, fall_back: FallBack | None
    ) -> Iterator[StreamEvent]:
        turn = self._prepare(messages, options)
        try:
            if not self._read_prompt(turn):
                yield TurnFinished(FinishReason.CANCELLED, turn.stats(self.kv))
                return
        except Exception as exc:
            self.kv.drop()
            if fall_back is not None:
                yield from fall_back(messages, options, exc)
                return
            failed = f"The model failed while reading the prompt: {exc}"
            yield TurnFinished(FinishReason.ERROR, turn.stats(self.kv), error=failed)
            return
        error: str | None = None
        reason = FinishReason.LENGTH
        try:
            reason = yield from self._decode(turn, options)
        except Exception as exc:
            if not turn.generated and fall_back is not None:
                self.kv.drop()
                yield from fall_back(messages, options, exc)
                return
            reason, error = FinishReason.ERROR, f"The model failed while answering: {exc}"
        self._settle(turn, reason)
        yield TurnFinished(reason, turn.stats(self.kv), error=error)

    def _decode(self, turn: _Turn, options: GenerationOptions) -> Generator[StreamEvent, None, FinishReason]:
        """The decode loop: yields text as it comes; returns why it stopped."""
        kv, guided = self.kv, options.json_schema is not None
        sampler = Sampler(options)
        stream = self.prompts.tokenizer.create_stream()
        seen = set(kv.record.tokens) if options.repetition_penalty != 1.0 else set()
        generated = turn.generated
        while True:
            if self.cancel.is_set():
                return FinishReason.CANCELLED
            if len(generated) >= options.max_new_tokens or len(kv.record.tokens) >= kv.limit:
                return FinishReason.LENGTH
            if guided:
                # og masks what the schema does not allow, then samples; the token is in its sequence now.
                kv.generator.generate_next_token()
                token = int(kv.generator.get_next_tokens()[0])
            else:
                logits = kv.next_logits()
                if len(generated) < options.min_new_tokens:
                    logits[[t for t in self.eos if t < logits.shape[0]]] = -np.inf
                if seen:
                    sampler.apply_repetition_penalty(logits, seen)
                token = sampler.choose(logits)
            if turn.first_token_at is None:
                turn.first_token_at = time.perf_counter()
            if token in self.eos:
                return FinishReason.END_OF_TURN
            generated.append(token)
            if seen:
                seen.add(token)
            piece = stream.decode(token)
            if piece:
                turn.streamed.append(piece)
                yield TextDelta(piece)
            # Append even the last token: the cache then matches the reply the user sees.
            if guided:
                kv.record.tokens.append(token)  # og appended it already
            else:
                kv.append([token])

    def _settle(self, turn: _Turn, reason: FinishReason) -> None:
        """Mark the reply in the record where its text and tokens line up; forget what cannot be trusted."""
        kv = self.kv
        # The cache now holds the prompt plus every generated token that was appended.
        appended = turn.generated[: len(kv.record.tokens) - kv.record.token_marks[-1]]
        if reason is not FinishReason.ERROR:
            reply = "".join(turn.streamed)
            tokenizer = self.prompts.tokenizer
            full = str(tokenizer.decode(np.asarray(appended, dtype=np.int32))) if appended else ""
            if appended and len(appended) == len(turn.generated) and full == reply:
                kv.record.text = turn.prompt + reply
                kv.record.mark()
            elif appended:
                # Text and tokens do not line up at the end (a character split across tokens): forget the reply.
                kv.rewind(len(turn.prompt), kv.record.token_marks[-1])
        else:
            kv.drop()
        if not kv.in_step():
            kv.drop()


__all__ = ["CancelFlag", "TurnRunner"]
