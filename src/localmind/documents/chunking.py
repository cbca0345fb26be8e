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

from localmind.documents.extract import Page

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
            return lambda text: len(tokenizer.encode(text, add_special_tokens=False).ids)
    return approximate_tokens


@dataclass(frozen=True)
class Chunk:
    page: int | None
    text: str
    tokens: int


def chunk_pages(
    pages: list[Page],
    count: TokenCounter = approximate_tokens,
    max_tokens: int = CHUNK_TOKENS,
    overlap_tokens: int = OVERLAP_TOKENS,
) -> list[Chunk]:
    chunks: list[Chunk] = []
    for page in pages:
        units = [(u, count(u)) for u in _units(page.text, count, max_tokens)]
        chunks.extend(Chunk(page.number, text, n) for text, n in _pack(units, max_tokens, overlap_tokens))
    return chunks


def _units(text: str, count: TokenCounter, max_tokens: int) -> Iterator[str]:
    """Paragraphs; a paragraph too long for one passage becomes sentences; a sentence too long, slices."""
    for paragraph in _PARAGRAPHS.split(text):
        paragraph = " ".join(paragraph.split()) if not _CJK.search(paragraph) else paragraph.replace("\n", "")
        if not paragraph:
            continue
        if count(paragraph) <= max_tokens:
            yield paragraph
            continue
        for sentence in _SENTENCE_END.split(paragraph):
            sentence = sentence.strip()
            if not sentence:
                continue
            if count(sentence) <= max_tokens:
                yield sentence
            else:
                yield from _slices(sentence, count, max_tokens)


def _slices(text: str, count: TokenCounter, max_tokens: int) -> Iterator[str]:
    """A run-on "sentence" (a table, a list without stops) cut at spaces near the size limit."""
    while text:
        if count(text) <= max_tokens:
            yield text
            return
        # Binary search the longest prefix that fits, then back off to a space if there is one near it.
        lo, hi = 1, len(text)
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if count(text[:mid]) <= max_tokens:
                lo = mid
            else:
                hi = mid - 1
        cut = lo
        space = text.rfind(" ", int(cut * 0.7), cut)
        if space > 0:
            cut = space
        yield text[:cut].strip()
        text = text[cut:].strip()


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
