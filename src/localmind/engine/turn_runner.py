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
from localmind.engine.prompt_builder import RAW_END, RAW_MARK, PromptBuilder, context_exceeded
from localmind.engine.sampling import GREEDY_BELOW, Sampler, token_logprob
from localmind.engine.tools import ToolSpec, auto_call_events, parse_tools, required_call_events, tool_turn_options
from localmind.engine.types import (
    ChatMessage,
    EngineError,
    FinishReason,
    GenerationOptions,
    GrammarError,
    StreamEvent,
    TextDelta,
    TokenLogprob,
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
    # Log-probabilities of tokens whose text is not whole yet (a character split across tokens).
    pending_logprobs: list[TokenLogprob] = field(default_factory=list)

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
        self.vocab_size = 0  # the model's (genai_config), to check token-id prompts; 0: unknown

    def run(
        self, messages: list[ChatMessage], options: GenerationOptions, fall_back: FallBack | None = None
    ) -> Iterator[StreamEvent]:
        """Stream one turn; a turn with ``options.json_schema`` (or a tool call it must make) runs on a grammar
        Generator of its own. A turn with tools gives the calls the model made with its TurnFinished."""
        specs = parse_tools(options.tools) if options.tools and options.tool_choice != "none" else None
        forced = specs is not None and options.tool_choice in ("required", "function")
        if specs is not None and forced:
            options = tool_turn_options(options, specs)  # the call's schema (an unknown name raises here)
        if options.logit_bias and options.json_schema is not None:
            raise EngineError.say(
                "logit_bias cannot be combined with a JSON schema or a required tool call.",
                "Leave out logit_bias for constrained turns.",
            )
        self.prompts.raw_tokens(options)  # a suffix the model cannot fill in is refused before the turn starts
        if options.json_schema is None:
            events = self._generate(messages, options, fall_back, specs)
        else:
            events = self._constrained(messages, options, fall_back, specs)
        if specs is None:
            return events
        return required_call_events(events) if forced else auto_call_events(events)

    def _constrained(
        self,
        messages: list[ChatMessage],
        options: GenerationOptions,
        fall_back: FallBack | None,
        specs: list[ToolSpec] | None = None,
    ) -> Iterator[StreamEvent]:
        """A turn whose reply must be JSON valid against ``options.json_schema``.

        og enforces it (constrained decoding: the schema's grammar masks the logits, then og samples with the
        turn's settings), but takes the grammar only when a Generator is made. So the turn runs on a generator
        of its own, sized for it and read from scratch; the conversation's generator and cache wait aside and
        come back afterwards: the next turn reuses them as before (a grammar must never reach a plain turn).
        """
        model = self.kv.model
        with self.kv.aside(lambda: self.kv.model is model):
            yield from self._generate(messages, options, fall_back, specs)

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
    def _raw_prompt(self, raw: list[int], options: GenerationOptions) -> str:
        """The record's text for a prompt read without the template (its ids behind a private mark), once its
        ids are checked: within the vocabulary and the context."""
        vocab = self.vocab_size
        bad = next((t for t in raw if t < 0 or (vocab and t >= vocab)), None)
        if bad is not None or not raw:
            raise EngineError.say(
                "The prompt's token ids must be between 0 and {most} (got {value}).",
                "Send token ids of this model's tokenizer.",
                most=max(0, vocab - 1),
                value=bad if bad is not None else "none",
            )
        window = self.kv.window
        reserve = window.reply_reserve(options.max_new_tokens)
        if len(raw) + reserve > window.budget:
            raise context_exceeded(len(raw), window.budget, options.max_new_tokens, reserve)
        return RAW_MARK + " ".join(map(str, raw)) + RAW_END

    def _prepare(
        self, messages: list[ChatMessage], options: GenerationOptions, specs: list[ToolSpec] | None = None
    ) -> _Turn:
        """Fit the prompt, keep what the cache shares with it, and size og's buffer: what is left to read."""
        started = time.perf_counter()
        self.prompts.thinking = options.thinking
        # Times count from the user's send (Enter) when the caller says when that was: the hand-over to this
        # process and a speculative chunk still finishing are part of what the user waits for.
        waited = max(0.0, time.time() - options.submitted_at) if options.submitted_at else 0.0
        kv = self.kv
        raw = self.prompts.raw_tokens(options)
        if raw is None:
            self.prompts.tools = specs  # rendered with the messages (fit and message_ends render)
            try:
                fitted = self.prompts.fit(messages, options)
                prompt, dropped = fitted.text, fitted.dropped
                ends = self.prompts.message_ends(fitted.messages, prompt)
            finally:
                self.prompts.tools = None
            encode: Callable[[str, bool], list[int]] = self.prompts.encode_piece
        else:
            prompt, dropped = self._raw_prompt(raw, options), 0
            ends = [len(prompt)]

            def encode(text: str, at_start: bool) -> list[int]:
                return raw  # the cache aligns a raw prompt only at its start and end: the whole is asked for

        reused, pieces = kv.plan(prompt, ends, encode, speculative=False)
        turn = _Turn(prompt, reused, pieces, dropped, started, waited)
        fits = kv.size_for(reused + turn.new_count + options.max_new_tokens + 1)
        if (reused + turn.new_count + kv.window.min_reply_reserve > kv.window.budget and reused) or not fits:
            # Encoding piece by piece came out longer than the budget allows, or a single turn's buffer is too
            # small for this one: start from scratch.
            kv.drop()
            turn.reused, turn.pieces = 0, [(len(prompt), encode(prompt, True))]
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
        self,
        messages: list[ChatMessage],
        options: GenerationOptions,
        fall_back: FallBack | None,
        specs: list[ToolSpec] | None = None,
    ) -> Iterator[StreamEvent]:
        turn = self._prepare(messages, options, specs)
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
        if turn.pending_logprobs:  # the turn ended inside a character: the tokens still count
            yield TextDelta("", tuple(turn.pending_logprobs))
        self._settle(turn, reason)
        yield TurnFinished(reason, turn.stats(self.kv), error=error)

    def _decode(self, turn: _Turn, options: GenerationOptions) -> Generator[StreamEvent, None, FinishReason]:
        """The decode loop: yields text as it comes; returns why it stopped."""
        kv, guided = self.kv, options.json_schema is not None
        sampler = Sampler(options)
        stream = self.prompts.tokenizer.create_stream()
        seen = set(kv.record.tokens) if options.repetition_penalty != 1.0 else set()
        generated = turn.generated
        pending = turn.pending_logprobs
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
                sampler.apply_logit_bias(logits)
                token = sampler.choose(logits)
            if turn.first_token_at is None:
                turn.first_token_at = time.perf_counter()
            if token in self.eos:
                return FinishReason.END_OF_TURN
            if options.logprobs and not guided:  # og samples a guided token itself, from logits it keeps
                pending.append(token_logprob(logits, token, options.top_logprobs, self._token_text))
            generated.append(token)
            if seen:
                seen.add(token)
            piece = stream.decode(token)
            if piece:
                turn.streamed.append(piece)
                yield TextDelta(piece, tuple(pending))
                pending.clear()
            # Append even the last token: the cache then matches the reply the user sees.
            if guided:
                kv.record.tokens.append(token)  # og appended it already
            else:
                kv.append([token])

    def _token_text(self, token: int) -> str:
        return str(self.prompts.tokenizer.decode(np.asarray([token], dtype=np.int32)))

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
