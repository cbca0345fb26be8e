"""Searching the store."""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence

from localmind.core.conversations import (
    SearchHit,
)
from localmind.core.store_core import StoreCore

log = logging.getLogger(__name__)

# Trigram search cannot match fewer than three characters; shorter terms (common in Chinese: 你好) use LIKE.
TRIGRAM_MIN_CHARS = 3
SNIPPET_BEFORE = 40
SNIPPET_LENGTH = 160


class SearchMixin(StoreCore):
    """Search over titles and messages."""

    has_search_index: bool

    def search(self, query: str, limit: int = 50) -> list[SearchHit]:
        """Conversations whose title or messages contain every word of ``query`` (any case), one hit each, best
        first.

        Titles come first: a conversation named after what you look for is the likeliest target. Each hit carries the
        best-matching message of its conversation (its snippet, and its id to scroll to); a conversation found by its
        title alone has the title as its snippet. Conversations in the trash are left out.
        """
        terms = query.split()
        if not terms or limit <= 0:
            return []

        def run() -> list[SearchHit]:
            titles = self._search_titles(terms, limit)
            messages = self._search_messages(terms, limit + len(titles))
            best = {hit.conversation_id: hit for hit in messages}
            hits = [best.pop(hit.conversation_id, hit) for hit in titles]  # the title's rank, the message's snippet
            return (hits + [hit for hit in messages if hit.conversation_id in best])[:limit]

        return self._reading(run)

    def _split_terms(self, terms: list[str]) -> tuple[str | None, list[str]]:
        """An FTS5 expression for the terms trigrams can find, and LIKE patterns for the rest."""
        if not self.has_search_index:
            return None, [_like_pattern(t) for t in terms]
        long_terms = [t for t in terms if len(t) >= TRIGRAM_MIN_CHARS]
        match = " AND ".join('"' + t.replace('"', '""') + '"' for t in long_terms) or None
        return match, [_like_pattern(t) for t in terms if len(t) < TRIGRAM_MIN_CHARS]

    def _search_titles(self, terms: list[str], limit: int) -> list[SearchHit]:
        match, likes = self._split_terms(terms)
        where = ["c.deleted_at IS NULL", *(["c.title LIKE ? ESCAPE '\\'"] * len(likes))]
        if match is not None:
            sql = (
                "SELECT c.id, c.title, bm25(title_search) FROM title_search s JOIN conversations c ON c.num = s.rowid"
                f" WHERE title_search MATCH ? AND {' AND '.join(where)} ORDER BY bm25(title_search) LIMIT ?"
            )
            rows = self._db.execute(sql, (match, *likes, limit)).fetchall()
        else:
            sql = f"SELECT c.id, c.title, 0.0 FROM conversations c WHERE {' AND '.join(where)} ORDER BY c.updated_at DESC LIMIT ?"
            rows = self._db.execute(sql, (*likes, limit)).fetchall()
        return [_hit(id, title, None, title, rank, terms) for id, title, rank in rows]

    def _search_messages(self, terms: list[str], limit: int) -> list[SearchHit]:
        if limit <= 0:
            return []
        match, likes = self._split_terms(terms)
        where = ["c.deleted_at IS NULL", *(["m.content LIKE ? ESCAPE '\\'"] * len(likes))]
        if match is not None:
            # The best message of each conversation (SQLite's MIN() gives the bare columns of that row), conversations
            # by that message's rank; the texts are read for the hits only, not carried through the grouping.
            sql = (
                "SELECT m.conversation_id, m.id, MIN(s.rank) AS r FROM message_search s JOIN messages m ON m.id = s.rowid"
                f" JOIN conversations c ON c.id = m.conversation_id WHERE message_search MATCH ? AND {' AND '.join(where)}"
                " GROUP BY m.conversation_id ORDER BY r LIMIT ?"
            )
            best = self._db.execute(sql, (match, *likes, limit)).fetchall()
            texts = {
                row[0]: row[1:]
                for row in self._db.execute(
                    "SELECT m.id, c.title, m.content FROM messages m JOIN conversations c ON c.id = m.conversation_id"
                    f" WHERE m.id IN ({', '.join('?' * len(best))})",
                    [mid for _, mid, _ in best],
                )
            }
            rows = [(cid, texts[mid][0], mid, texts[mid][1], rank) for cid, mid, rank in best if mid in texts]
        else:
            # Newest first, each conversation once: read until ``limit`` conversations are found (LIKE scans anyway).
            cursor = self._db.execute(
                "SELECT c.id, c.title, m.id, m.content, 0.0 FROM messages m JOIN conversations c ON c.id = m.conversation_id"
                f" WHERE {' AND '.join(where)} ORDER BY m.id DESC",
                likes,
            )
            rows, seen = [], set()
            for row in cursor:
                if row[0] not in seen:
                    seen.add(row[0])
                    rows.append(row)
                    if len(rows) == limit:
                        break
        return [_hit(cid, title, mid, content, rank, terms) for cid, title, mid, content, rank in rows]


def _like_pattern(term: str) -> str:
    escaped = term.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def _hit(
    conversation_id: str, title: str, message_id: int | None, text: str, rank: float, terms: list[str]
) -> SearchHit:
    snippet, spans = make_snippet(text, terms)
    return SearchHit(conversation_id, title, message_id, snippet, float(rank), spans)


def make_snippet(text: str, terms: Sequence[str]) -> tuple[str, tuple[tuple[int, int], ...]]:
    """One line of ``text`` around the first match of any term, and where the terms are in it."""
    pattern = re.compile("|".join(re.escape(t) for t in sorted(terms, key=len, reverse=True)), re.IGNORECASE)
    first = pattern.search(text)
    start = max(0, first.start() - SNIPPET_BEFORE) if first else 0
    end = start + SNIPPET_LENGTH
    snippet = " ".join(text[start:end].split())
    if start > 0:
        snippet = "…" + snippet
    if end < len(text):
        snippet += "…"
    return snippet, tuple(m.span() for m in pattern.finditer(snippet))
