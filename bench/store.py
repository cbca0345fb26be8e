"""How fast the conversation store answers the window: prints JSON.

    .venv/bin/python bench/store.py [--messages 10000] [--long 2000]

Builds a throwaway database with ``--messages`` messages in all, one conversation
of ``--long`` of them and the rest in conversations of 100, with English and
Chinese text, then times what the GUI thread does: open a conversation, search,
append a message (fsynced), save a streaming reply (no fsync) and finish it.
Goals (issue 3): open 2,000 messages <= 300 ms, search 10,000 messages <= 100 ms.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from localmind.core import backup
from localmind.core.conversations import Conversation, Message
from localmind.core.store import ConversationStore

WORDS = [
    "the",
    "model",
    "answer",
    "question",
    "python",
    "code",
    "function",
    "data",
    "file",
    "window",
    "token",
    "context",
    "memory",
    "search",
    "message",
    "about",
    "with",
    "from",
    "into",
    "when",
    "where",
    "which",
    "because",
    "should",
    "would",
    "could",
    "small",
    "large",
    "quick",
    "slow",
    "light",
    "dark",
    "river",
    "mountain",
    "city",
    "history",
    "music",
    "science",
    "travel",
    "recipe",
    "garden",
    "language",
    "number",
    "system",
    "network",
]
CHINESE = "我们今天学习人工智能模型的使用方法请解释一下这个问题长城故宫北京上海天气很好谢谢你的帮助"


def sentence(rng: random.Random) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(6, 18))]
    if rng.random() < 0.25:
        start = rng.randrange(len(CHINESE) - 12)
        words.append(CHINESE[start : start + rng.randint(4, 12)])
    return " ".join(words).capitalize() + "."


def text(rng: random.Random, sentences: int) -> str:
    return " ".join(sentence(rng) for _ in range(sentences))


def conversation(rng: random.Random, n: int, index: int) -> tuple[Conversation, list[Message]]:
    now = time.time() - 86400 + index
    c = Conversation(
        id="", title=f"Chat {index}: {rng.choice(WORDS)} {rng.choice(WORDS)}", created_at=now, updated_at=now
    )
    messages = []
    for i in range(n):
        user = i % 2 == 0
        content = text(rng, rng.randint(1, 2) if user else rng.randint(3, 8))
        if rng.random() < 0.002:
            content += " zanzibar"  # a rare word
        messages.append(
            Message(
                0, "", i, "user" if user else "assistant", content, now + i, "complete", None if user else {"tps": 9.0}
            )
        )
    return c, messages


def timed(fn: Callable[[], Any], repeat: int) -> dict[str, float]:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return {"median_ms": round(statistics.median(times), 2), "max_ms": round(max(times), 2)}


def finish_times(store: ConversationStore, conversation_id: str, content: str, repeat: int) -> dict[str, float]:
    """The save that ends a reply: an fsync, and the reply goes into the search index."""
    times = []
    for _ in range(repeat):
        reply = store.append_message(conversation_id, "assistant", content, status="streaming")
        start = time.perf_counter()
        store.update_message(reply.id, status="complete")
        times.append((time.perf_counter() - start) * 1000)
    return {"median_ms": round(statistics.median(times), 2), "max_ms": round(max(times), 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=10_000)
    parser.add_argument("--long", type=int, default=2_000)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    rng = random.Random(42)

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.sqlite3"
        items = [conversation(rng, args.long, 0)]
        rest = args.messages - args.long
        items += [conversation(rng, min(100, rest - k), i + 1) for i, k in enumerate(range(0, rest, 100))]
        start = time.perf_counter()
        with ConversationStore(path) as store:
            long_id = store.import_conversations(items[:1])[0].id
            store.import_conversations(items[1:])
        fill_s = time.perf_counter() - start

        cold_start = time.perf_counter()
        store = ConversationStore(path)
        store.get_conversation(long_id)
        assert len(store.messages(long_id)) == args.long
        cold_ms = (time.perf_counter() - cold_start) * 1000
        try:
            total = store._db.execute("SELECT COUNT(*) FROM messages").fetchone()[0]
            queries = {
                "common word": "the",
                "two words": "mountain river",
                "rare word": "zanzibar",
                "prefix": "pyth",
                "chinese 4 chars": "人工智能",
                "chinese 2 chars (LIKE)": "长城",
                "no match": "xylophone",
                "2 chars, no match (LIKE scans all)": "qz",
            }
            search = {
                label: {**timed(lambda q=q: store.search(q), args.repeat), "hits": len(store.search(q))}
                for label, q in queries.items()
            }
            conv = store.create_conversation("bench writes")
            reply_text = text(rng, 60)  # ~ a 2,000-token answer
            reply = store.append_message(conv.id, "assistant", "", status="streaming")
            results = {
                "sqlite": sqlite3.sqlite_version,
                "python": platform.python_version(),
                "machine": f"{platform.system()} {platform.machine()}",
                "messages": total,
                "database_mb": round(sum(p.stat().st_size for p in Path(tmp).iterdir()) / 1e6, 1),
                "fill_s": round(fill_s, 2),
                "open_conversation_2000": {
                    **timed(lambda: (store.get_conversation(long_id), store.messages(long_id)), args.repeat),
                    "cold_ms_including_open": round(cold_ms, 2),
                    "goal_ms": 300,
                },
                "search_10000": {
                    "queries": search,
                    "worst_median_ms": max(s["median_ms"] for s in search.values()),
                    "goal_ms": 100,
                },
                "list_conversations": timed(store.list_conversations, args.repeat),
                "append_message_fsync": timed(
                    lambda: store.append_message(conv.id, "user", "hello there"), args.repeat
                ),
                "save_streaming_reply": timed(
                    lambda: store.update_message(reply.id, content=reply_text + str(rng.random())), args.repeat
                ),
                "finish_reply_fsync_and_index": finish_times(store, conv.id, reply_text, args.repeat),
                "reply_chars": len(reply_text),
                # What the window adds at start-up (issue 10): SQLite's quick_check over the whole file, and the
                # daily backup (made on a background thread).
                "open_plain": timed(lambda: ConversationStore(path, recover_interrupted=False).close(), args.repeat),
                "open_with_quick_check": timed(
                    lambda: ConversationStore(path, recover_interrupted=False, check=True).close(), args.repeat
                ),
                "backup_online_api": timed(lambda: backup.make_backup(store, "daily"), 3),
            }
        finally:
            store.close()
    print(json.dumps(results, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
