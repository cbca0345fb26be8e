"""The KV cache: og's Generator, the record of what it holds, reuse, rewind and the kept prediction.

KV reuse: the cache remembers the text it holds and where tokens and text line up (the end of each prompt and of
each reply). The next prompt is compared as text; the cache is rewound to the last aligned point inside the
common prefix and only the rest is encoded and read. So the next turn of a chat reads just the new message;
regenerate and edit rewind to the right place; another conversation shares at most its identical beginning.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from localmind.engine.prompt_builder import ContextWindow

Logits = np.ndarray[Any, np.dtype[np.float32]]
Pieces = list[tuple[int, list[int]]]  # (text offset where the piece ends, its tokens)


@dataclass
class CacheRecord:
    """What the KV cache holds: tokens, the text they stand for, and where the two line up."""

    tokens: list[int] = field(default_factory=list)
    text: str = ""
    # Parallel, strictly increasing: text offsets and token counts where text and tokens align.
    text_marks: list[int] = field(default_factory=lambda: [0])
    token_marks: list[int] = field(default_factory=lambda: [0])
    # The model's next-token logits after the last token, kept when type-ahead read a whole prompt (the user's
    # message and the reply header): a send of exactly that prompt samples its first token from them instead of
    # reading its last token again. Any change to the tokens forgets them.
    next_logits: Any = None

    def mark(self) -> None:
        if self.text_marks[-1] != len(self.text) or self.token_marks[-1] != len(self.tokens):
            self.text_marks.append(len(self.text))
            self.token_marks.append(len(self.tokens))

    def reusable_prefix(self, prompt: str) -> tuple[int, int]:
        """(text offset, token count) of the longest aligned prefix of ``prompt`` already cached."""
        common = common_prefix_length(self.text, prompt)
        i = bisect.bisect_right(self.text_marks, common) - 1
        return self.text_marks[i], self.token_marks[i]

    def truncate(self, text_len: int, token_count: int, keep: int = 0) -> None:
        """Keep the text and tokens up to an aligned point, plus ``keep`` unmarked tokens after it."""
        i = bisect.bisect_right(self.token_marks, token_count)
        del self.text_marks[i:], self.token_marks[i:]
        if token_count + keep < len(self.tokens):
            self.next_logits = None
        del self.tokens[token_count + keep :]
        self.text = self.text[:text_len]
        if self.text_marks[-1] != text_len or self.token_marks[-1] != token_count:
            self.text_marks.append(text_len)
            self.token_marks.append(token_count)

    def mark_at(self, text: str, token_count: int) -> None:
        """Text and tokens line up at (``text``, ``token_count``): a point later turns can rewind to."""
        self.text = text
        if self.text_marks[-1] != len(text) or self.token_marks[-1] != token_count:
            self.text_marks.append(len(text))
            self.token_marks.append(token_count)


def common_prefix_length(a: str, b: str) -> int:
    n = min(len(a), len(b))
    lo, step = 0, 4096
    # Compare in blocks first (C speed), then narrow down inside the first differing block.
    while lo < n and a[lo : lo + step] == b[lo : lo + step]:
        lo += step
    hi = min(lo + step, n)
    while lo < hi and a[lo] == b[lo]:
        lo += 1
    return min(lo, n)


class KVCache:
    """og's Generator for the conversation and the record of what it holds. One per loaded model."""

    def __init__(self, window: ContextWindow) -> None:
        self.window = window
        self.og: Any = None
        self.model: Any = None
        self.generator: Any = None
        self.pending_rewind: int | None = None
        self.record = CacheRecord()
        self.capacity = 0  # og's max_length for the Generator to come (its KV buffer is allocated up front)
        self.turn_sized = False  # og's buffer is sized to each turn until the budget's is reserved (reserve_kv)
        self.kv_after_first_turn = False
        self.chunk = 128

    def attach(self, og: Any, model: Any, *, chunk: int, turn_sized: bool, kv_after_first_turn: bool) -> None:
        self.og, self.model = og, model
        self.capacity = self.window.budget
        self.turn_sized, self.kv_after_first_turn = turn_sized, kv_after_first_turn
        self.chunk = max(1, chunk)
        self.generator, self.pending_rewind, self.record = None, None, CacheRecord()

    def detach(self) -> None:
        self.og = self.model = self.generator = None
        self.pending_rewind = None
        self.record = CacheRecord()

    # -- og's buffer ---------------------------------------------------------------------------------------------
    def new_generator(self) -> Any:
        params = self.og.GeneratorParams(self.model)
        params.set_search_options(max_length=self.capacity, do_sample=False)
        return self.og.Generator(self.model, params)

    def prepare(self) -> None:
        """Make og's KV buffer now (og does it when a Generator is made: ~0.1 s per 200 MB), unless it is sized
        per turn."""
        if self.model is not None and self.generator is None and not self.turn_sized:
            self.generator = self.new_generator()

    @property
    def kv_pending(self) -> bool:
        """Whether ``reserve`` has the context budget's KV buffer still to make."""
        return self.turn_sized and self.kv_after_first_turn and self.model is not None

    def reserve(self, on_chunk: Callable[[], None] | None = None) -> bool:
        """Reserve the context budget's KV buffer and read what the cache holds into it (``on_chunk`` after each
        chunk), so the next turn reuses it as before. True if it was reserved now."""
        if not self.kv_pending:
            return False
        self.turn_sized = False
        self.capacity = self.window.budget
        tokens = list(self.record.tokens) if self.generator is not None and self.in_step() else []
        self.generator = self.pending_rewind = None  # og frees the turn's buffer before the larger one is made
        try:
            generator = self.new_generator()
            for start in range(0, len(tokens), self.chunk):
                generator.append_tokens(np.asarray(tokens[start : start + self.chunk], dtype=np.int32))
                if on_chunk is not None:
                    on_chunk()
        except Exception:
            self.drop()  # the next turn reads its whole prompt (and makes the buffer) itself
            return False
        self.generator = generator
        if not tokens:
            self.record = CacheRecord()
        return True

    def size_for(self, tokens: int) -> bool:
        """While og's KV buffer is sized to each turn (a single turn; serve's first), size it for ``tokens``;
        False if the cache must be re-read into a larger one. Serve's next turn that does not fit (it came before
        the engine was idle) gets the budget's buffer now, with what the cache holds."""
        if not self.turn_sized:
            return True
        need = min(self.window.budget, tokens)
        if self.generator is None:
            self.capacity = need
            return True
        if need <= self.capacity:
            return True
        return self.reserve()

    @property
    def limit(self) -> int:
        """The most tokens this turn's cache may hold."""
        return min(self.window.budget, self.capacity)

    # -- the record and og in step -------------------------------------------------------------------------------
    def rewind(self, text_len: int, token_count: int, keep: int = 0) -> None:
        """Back to the aligned point (``text_len``, ``token_count``), keeping ``keep`` unmarked tokens after it."""
        target = token_count + keep
        if target == 0 and self.generator is not None and self.og_length() == 0:
            self.record = CacheRecord()  # og holds nothing yet (a reserved buffer): keep it, nothing to rewind
            return
        if self.generator is None or target == 0:
            self.drop()
            return
        if target > int(self.generator.token_count()):
            # og holds fewer tokens than the record says (they were never appended): nothing can be kept.
            self.generator = None
            self.pending_rewind = None
            self.record = CacheRecord()
            return
        if target < len(self.record.tokens) or target != self.og_length():
            # Applied at the next append: og leaves a wrong KV cache after two rewind_to calls in a row on
            # graphs that concatenate KV (onnx-community exports; tests/unit/formats/test_exact.py).
            self.pending_rewind = target
        self.record.truncate(text_len, token_count, keep)

    def rewind_to_mark(self) -> None:
        """Back to the last aligned point (a cancelled read keeps the pieces it finished)."""
        self.rewind(self.record.text_marks[-1], self.record.token_marks[-1])

    def drop(self) -> None:
        """Forget the cache and og's Generator (after an error og's state is not to be trusted, nor asked)."""
        self.generator = None
        self.pending_rewind = None
        self.record = CacheRecord()

    def append(self, tokens: list[int]) -> None:
        if self.generator is None:
            self.generator = self.new_generator()
        if self.pending_rewind is not None:
            self.generator.rewind_to(self.pending_rewind)
            self.pending_rewind = None
        self.record.next_logits = None
        self.generator.append_tokens(np.asarray(tokens, dtype=np.int32))
        self.record.tokens.extend(tokens)

    def og_length(self) -> int:
        """og's sequence length, counting a rewind that waits for the next append."""
        if self.generator is None:
            return 0
        if self.pending_rewind is not None:
            return self.pending_rewind
        return int(self.generator.token_count())

    def in_step(self) -> bool:
        """Whether og holds exactly the tokens the record says. An interrupt between og's call and ours
        (Ctrl+C in the terminal lands there) or an og surprise would otherwise mix two histories silently."""
        return self.og_length() == len(self.record.tokens)

    # -- the prediction after the last token ---------------------------------------------------------------------
    def kept_logits(self) -> Logits | None:
        """The logits type-ahead kept, if they still belong after the last cached token."""
        kept: Logits | None = self.record.next_logits
        if kept is None or self.generator is None or self.pending_rewind is not None or not self.in_step():
            return None
        return kept

    def keep_logits(self) -> None:
        """Keep what the model predicts after the last token (one row, a copy: og reuses its buffer)."""
        self.record.next_logits = np.array(self.next_logits(), copy=True)

    def next_logits(self) -> Logits:
        kept = self.kept_logits()
        if kept is not None:
            self.record.next_logits = None  # the caller may change them (sampling penalties): used once
            return kept
        # og hands back a fresh array each call, so a view of its last row is ours to modify (no copy per token).
        logits: Logits = self.generator.get_logits()
        last: Logits = logits.reshape(-1, logits.shape[-1])[-1]
        return last

    # -- reuse -------------------------------------------------------------------------------------------------
    def plan(
        self, prompt: str, ends: list[int], encode: Callable[[str, bool], list[int]], *, speculative: bool
    ) -> tuple[int, Pieces]:
        """Rewind the cache to what it shares with ``prompt``; returns (tokens kept, pieces left to append).

        First as text, to the last point where cached text and tokens line up; then token by token into
        what follows (a type-ahead read's tail): only identical tokens are kept. ``ends`` are the text
        offsets where pieces are encoded separately (message ends; ``encode(text, at_start)``). A prompt that is
        wholly cached keeps one token back, so appending it gives fresh logits (og cannot generate right after a
        rewind) — unless type-ahead kept the logits after exactly this prompt: then nothing is read.
        """
        text_len, token_count = self.record.reusable_prefix(prompt)
        kept = not speculative and self.kept_logits() is not None
        if text_len == len(prompt) and not speculative and not (kept and token_count == len(self.record.tokens)):
            text_len, token_count = self.record.reusable_prefix(prompt[:-1])
        pieces: Pieces = []
        position = text_len
        for end in ends:
            if end > position:
                pieces.append((end, encode(prompt[position:end], position == 0)))
                position = end
        new = [t for _, tokens in pieces for t in tokens]
        tail = self.record.tokens[token_count:]
        common = 0
        exact = kept and tail == new  # the kept logits follow exactly this prompt's last token
        limit = min(len(tail), len(new) if speculative or exact else len(new) - 1)
        while common < limit and tail[common] == new[common]:
            common += 1
        try:
            self.rewind(text_len, token_count, keep=common)
        except Exception:
            self.drop()
            return self.plan(prompt, ends, encode, speculative=speculative) if token_count else (0, pieces)
        if not self.in_step():
            self.drop()  # out of step: read the whole prompt again rather than trust either side
            return self.plan(prompt, ends, encode, speculative=speculative) if token_count else (0, pieces)
        return len(self.record.tokens), self._unread(prompt, ends, pieces, common, token_count, speculative)

    def _unread(
        self, prompt: str, ends: list[int], pieces: Pieces, common: int, position: int, speculative: bool
    ) -> Pieces:
        """Pieces wholly covered by the ``common`` kept tokens are marked as read; the rest is left to append."""
        left: Pieces = []
        skip = common
        for end, tokens in pieces:
            if skip >= len(tokens) and (speculative is False or end != ends[-1]):
                skip -= len(tokens)
                position += len(tokens)
                self.record.mark_at(prompt[:end], position)
                continue
            left.append((end, tokens[skip:]))
            skip = 0
        return [(end, tokens) for end, tokens in left if tokens]

    @contextmanager
    def aside(self, model_still: Callable[[], bool]) -> Iterator[None]:
        """Run something on a Generator of its own (a grammar turn): the conversation's generator and record wait
        aside and come back afterwards, unless the model was reloaded meanwhile (``model_still()`` is False)."""
        kept = (self.generator, self.pending_rewind, self.record)
        self.generator, self.pending_rewind, self.record = None, None, CacheRecord()
        try:
            yield
        finally:
            if model_still():
                self.generator, self.pending_rewind, self.record = kept
            else:  # reloaded meanwhile (a device that failed: answered on the CPU): nothing to come back to
                self.rewind(0, 0)


__all__ = ["CacheRecord", "KVCache", "common_prefix_length"]
