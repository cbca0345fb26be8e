"""Documents under hostile input: splitting time by file size, cancel latency inside one file, peak memory on bombs.

    .venv/bin/python bench/docs_hostile.py [--sizes 0.25,1,4] [--tokenizer DIR] [--skip-memory]

Splitting: a log of each size in MB (lines without blank lines or full stops: one run-on paragraph, the splitter's
worst case), extracted and split with the approximate counter and, with ``--tokenizer DIR`` (a chat model's folder,
e.g. bench/models/smollm2-135m), with that model's tokenizer as the window does. Prints seconds, MB/s, and characters
counted per character of text (linear work: constant across sizes). Cancel: seconds from cancel to ``add`` returning
while one 4 MB log is split. Memory: peak RSS of a fresh process extracting each hostile file (a .docx zip bomb, a
.docx with a 2 GB picture part, a 200 MB .txt, a text file just under the size limit). Issue 21's figures before the
fix: 1 MB 7 s, 4 MB 136 s; 200 KB with a tokenizer ~2 min; the bomb 4.3 GB / 207 s; the 200 MB .txt 2.8 GB.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.documents.hostile_files import write_docx_bomb, write_docx_with_big_part, write_log

from localmind.documents.chunking import (
    ModelTokenCounter,
    TokenCounter,
    approximate_tokens,
    chunk_pages,
    tokenizer_counter,
)
from localmind.documents.extract import MAX_TEXT_BYTES, Cancelled, extract
from localmind.documents.index import DocumentIndex


class CountingTokenizer(ModelTokenCounter):
    """The model's counter, adding up the characters it tokenizes."""

    counted = 0

    def __call__(self, text: str) -> int:
        self.counted += len(text)
        return super().__call__(text)

    def prefix_end(self, text: str, max_tokens: int) -> int:
        self.counted += len(text)
        return super().prefix_end(text, max_tokens)


def split_once(path: Path, count: TokenCounter) -> dict[str, float]:
    counted = [0]

    def approximate(text: str) -> int:
        counted[0] += len(text)
        return count(text)

    counting: TokenCounter = approximate
    if isinstance(count, ModelTokenCounter):
        counting = CountingTokenizer(count.tokenizer)

    start = time.perf_counter()
    pages = extract(path)
    chunks = chunk_pages(pages, counting)
    seconds = time.perf_counter() - start
    chars = sum(len(p.text) for p in pages)
    if isinstance(counting, CountingTokenizer):
        counted[0] = counting.counted
    return {
        "seconds": round(seconds, 3),
        "mb_per_s": round(path.stat().st_size / 2**20 / seconds, 2),
        "passages": len(chunks),
        "counted_per_char": round(counted[0] / chars, 2),
    }


def cancel_latency(folder: Path) -> float:
    log = write_log(folder / "cancel.log", 4 << 20)
    index = DocumentIndex(folder / "cancel.sqlite3")
    stop = threading.Event()
    asked = threading.Event()
    ended: list[float] = []

    def cancelled() -> bool:
        asked.set()
        return stop.is_set()

    def run() -> None:
        with contextlib.suppress(Cancelled):
            index.add([log], cancelled=cancelled)
        ended.append(time.perf_counter())

    worker = threading.Thread(target=run)
    worker.start()
    asked.wait()
    time.sleep(0.5)
    stop.set()
    since = time.perf_counter()
    worker.join()
    index.close()
    return round(ended[0] - since, 3)


def peak_rss(path: Path) -> dict[str, Any]:
    code = (
        "import resource, sys, time\n"
        "from pathlib import Path\n"
        "from localmind.documents.extract import ExtractionError, extract\n"
        "t = time.perf_counter()\n"
        "try:\n"
        "    outcome = f'{sum(len(p.text) for p in extract(Path(sys.argv[1])))} chars'\n"
        "except ExtractionError as exc:\n"
        "    outcome = f'refused ({exc.kind})'\n"
        "print(outcome, time.perf_counter() - t, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)\n"
    )
    done = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=True)
    *outcome, seconds, rss = done.stdout.split()
    return {
        "file_mb": round(path.stat().st_size / 2**20, 2),
        "outcome": " ".join(outcome),
        "seconds": round(float(seconds), 2),
        "peak_rss_mb": round(float(rss)),
    }


def memory(folder: Path) -> dict[str, Any]:
    big_txt = folder / "huge.txt"
    with big_txt.open("w") as f:
        f.truncate(200 << 20)
    near_limit = write_log(folder / "near-limit.log", MAX_TEXT_BYTES - (1 << 20))
    files = {
        "docx_zip_bomb": write_docx_bomb(folder / "bomb.docx", unpacked_mb=4096),
        "docx_2gb_part": write_docx_with_big_part(folder / "photo.docx", "A caption.", part_mb=2048),
        "txt_200mb": big_txt,
        "log_just_under_limit": near_limit,
    }
    return {name: peak_rss(path) for name, path in files.items()}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="0.25,1,4", help="log sizes in MB")
    parser.add_argument("--tokenizer", type=Path, help="a chat model folder with tokenizer.json")
    parser.add_argument("--skip-memory", action="store_true")
    args = parser.parse_args()
    report: dict[str, Any] = {"load": os.getloadavg()}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        counters: dict[str, TokenCounter] = {"approximate": approximate_tokens}
        if args.tokenizer:
            counters["tokenizer"] = tokenizer_counter(args.tokenizer)
        for name, count in counters.items():
            report[f"split_{name}"] = {
                f"{mb}MB": split_once(write_log(folder / f"{mb}.log", int(float(mb) * 2**20)), count)
                for mb in args.sizes.split(",")
            }
        report["cancel_seconds_4MB"] = cancel_latency(folder)
        if not args.skip_memory:
            report["memory"] = memory(folder)
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
