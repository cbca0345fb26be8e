"""Split a document's pages into passages on paragraph and sentence boundaries, with overlap.

Sizes are in the chat model's tokens: ``tokenizer_counter(model_dir)`` reads the model's own ``tokenizer.json``
where one is at hand; otherwise ``approximate_tokens`` stands in — one token per CJK character and one per four
other characters, which is close for the BPE tokenizers of the small chat models in the catalog (Latin text runs
3.5–4.5 characters a token, Chinese 0.7–1.5). A passage never spans two pages, so its page number is exact.
"""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from localmind.documents.extract import Cancelled, Check, Page

log = logging.getLogger(__name__)

TokenCounter = Callable[[str], int]

CHUNK_TOKENS = 220  # five passages of this size leave most of a 4,096-token context to the chat
OVERLAP_TOKENS = 40

_CJK = re.compile(r"[\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\u3040-\u30ff\U00020000-\U0002ffff]")
_PARAGRAPHS = re.compile(r"\n\s*\n")
# After ". ! ?" followed by a space, or after the full-width "。！？；" (Chinese puts no space after them).
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[。！？；])")


_CJK_RUN = re.compile(r"[\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\u3040-\u30ff\U00020000-\U0002ffff]+")


def search_text(text: str) -> str:
    """Text as the keyword index sees it: runs of CJK characters become overlapping two-character words.

    Chinese has no spaces, so a word tokenizer would see a whole sentence as one word. Bigrams (as Lucene's CJK
    analyser does) find two-character words, which a trigram index cannot, and keep the index word-based — 15x
    faster than trigram phrase queries at 100k passages (bench/docs.py, see the notes).
    """
    return _CJK_RUN.sub(lambda m: " " + _bigrams(m.group()) + " ", text)


def _bigrams(run: str) -> str:
    return run if len(run) < 2 else " ".join(run[i : i + 2] for i in range(len(run) - 1))


def approximate_tokens(text: str) -> int:
    cjk = len(_CJK.findall(text))
    return cjk + math.ceil((len(text) - cjk) / 4)


def tokenizer_counter(model_dir: str | Path | None) -> TokenCounter:
    """Count with the model's own tokenizer when its ``tokenizer.json`` can be read, else approximate."""
    if model_dir is not None:
        path = Path(model_dir) / "tokenizer.json"
        try:
            from tokenizers import Tokenizer

            tokenizer = Tokenizer.from_file(str(path))
        except Exception:  # no file, or a format this tokenizers version does not read
            log.info("no usable tokenizer at %s; approximating token counts", path)
        else:
            return ModelTokenCounter(tokenizer)
    return approximate_tokens


class ModelTokenCounter:
    """A model's tokenizer as a ``TokenCounter`` that can also say where a text's first N tokens end."""

    def __init__(self, tokenizer: Any) -> None:
        self.tokenizer = tokenizer

    def __call__(self, text: str) -> int:
        return len(self.tokenizer.encode(text, add_special_tokens=False).ids)

    def prefix_end(self, text: str, max_tokens: int) -> int:
        """The end of the first ``max_tokens`` tokens of ``text`` (one encoding instead of a binary search)."""
        offsets = self.tokenizer.encode(text, add_special_tokens=False).offsets
        return len(text) if len(offsets) <= max_tokens else int(offsets[max_tokens][0])


@dataclass(frozen=True)
class Chunk:
    page: int | None
    text: str
    tokens: int


# A passage is found by counting a window of text, never the rest of a long text: the window starts at
# WINDOW_CHARS_PER_TOKEN characters a token and doubles while the whole window still fits (runs that tokenize very
# densely), up to MAX_WINDOW_CHARS_PER_TOKEN. So each passage costs counts over a few times its own length, and
# splitting is linear in the file's size with any counter (the model's tokenizer included).
WINDOW_CHARS_PER_TOKEN = 6
MAX_WINDOW_CHARS_PER_TOKEN = 64


def chunk_pages(
    pages: list[Page],
    count: TokenCounter = approximate_tokens,
    max_tokens: int = CHUNK_TOKENS,
    overlap_tokens: int = OVERLAP_TOKENS,
    cancelled: Check | None = None,
) -> list[Chunk]:
    """Passages of at most ``max_tokens``; raises ``Cancelled`` within one passage's work of ``cancelled()``."""
    chunks: list[Chunk] = []
    for page in pages:
        units = []
        for unit in _units(page.text, count, max_tokens):
            if cancelled is not None and cancelled():
                raise Cancelled
            units.append(unit)
        chunks.extend(Chunk(page.number, text, n) for text, n in _pack(units, max_tokens, overlap_tokens))
    return chunks


def _fitting(text: str, count: TokenCounter, max_tokens: int) -> int | None:
    """``count(text)`` when it is at most ``max_tokens``, else None — without counting a text too long to fit even
    at the densest tokenization."""
    if len(text) > max_tokens * MAX_WINDOW_CHARS_PER_TOKEN:
        return None
    n = count(text)
    return n if n <= max_tokens else None


def _units(text: str, count: TokenCounter, max_tokens: int) -> Iterator[tuple[str, int]]:
    """Paragraphs; a paragraph too long for one passage becomes sentences; a sentence too long, slices. With their
    token counts."""
    for paragraph in _PARAGRAPHS.split(text):
        paragraph = " ".join(paragraph.split()) if not _CJK.search(paragraph) else paragraph.replace("\n", "")
        if not paragraph:
            continue
        if (n := _fitting(paragraph, count, max_tokens)) is not None:
            yield paragraph, n
            continue
        for sentence in _SENTENCE_END.split(paragraph):
            sentence = sentence.strip()
            if not sentence:
                continue
            if (n := _fitting(sentence, count, max_tokens)) is not None:
                yield sentence, n
            else:
                yield from _slices(sentence, count, max_tokens)


def _slices(text: str, count: TokenCounter, max_tokens: int) -> Iterator[tuple[str, int]]:
    """A run-on "sentence" (a table, a log, a list without stops) cut at spaces near the size limit.

    Only a window ahead is counted: about twice the last passage's length (at first WINDOW_CHARS_PER_TOKEN
    characters a token), doubled while all of it fits, so the work is linear in the text's length."""
    start, end = 0, len(text)
    window = max_tokens * WINDOW_CHARS_PER_TOKEN
    while start < end:
        piece = text[start : start + window]
        cut = _longest_fitting_prefix(piece, count, max_tokens)
        if cut == len(piece) and start + cut < end and window < max_tokens * MAX_WINDOW_CHARS_PER_TOKEN:
            window *= 2  # dense text: the whole window fits, look further
            continue
        if start + cut < end:  # back off to a space near the limit, if there is one
            space = piece.rfind(" ", int(cut * 0.7), cut)
            cut = space if space > 0 else cut
        passage = piece[:cut].strip()
        n = count(passage) if passage else 0
        if n > max_tokens:  # a tokenizer can count a prefix alone differently: search it exactly
            cut = _search_prefix(piece[:cut], count, max_tokens)
            passage = piece[:cut].strip()
            n = count(passage)
        if passage:
            yield passage, n
        start += cut
        window = max(2 * cut, max_tokens)


def _longest_fitting_prefix(piece: str, count: TokenCounter, max_tokens: int) -> int:
    """The length of the longest prefix of ``piece`` within ``max_tokens`` (at least one character): a model's
    tokenizer says it from one encoding; otherwise a binary search."""
    if isinstance(count, ModelTokenCounter):
        return max(1, count.prefix_end(piece, max_tokens))
    if count(piece) <= max_tokens:
        return len(piece)
    return _search_prefix(piece, count, max_tokens)


def _search_prefix(piece: str, count: TokenCounter, max_tokens: int) -> int:
    lo, hi = 1, len(piece)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if count(piece[:mid]) <= max_tokens:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _pack(units: list[tuple[str, int]], max_tokens: int, overlap_tokens: int) -> Iterator[tuple[str, int]]:
    current: list[tuple[str, int]] = []
    size = 0
    fresh = False  # the current passage holds a unit not yet emitted (not just the overlap)
    for unit, n in units:
        if current and size + n > max_tokens:
            yield _join(current), size
            # Carry the last units forward as overlap, so a fact split across the boundary is whole in one passage.
            carried: list[tuple[str, int]] = []
            carried_size = 0
            for prev in reversed(current):
                if carried_size + prev[1] > overlap_tokens or carried_size + prev[1] + n > max_tokens:
                    break
                carried.insert(0, prev)
                carried_size += prev[1]
            current, size = carried, carried_size
        current.append((unit, n))
        size += n
        fresh = True
    if current and fresh:
        yield _join(current), size


def _join(units: list[tuple[str, int]]) -> str:
    text = ""
    for unit, _ in units:
        if text and not (_CJK.match(unit[:1]) and _CJK.match(text[-1:])):
            text += "\n"
        text += unit
    return text
