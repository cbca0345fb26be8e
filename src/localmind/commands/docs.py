"""``localmind docs``: add, list, remove and search the documents LocalMind answers from."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from localmind.errors import UserFacingError


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser("docs", help="your documents: add, list, remove, search")
    docs = p.add_subparsers(dest="docs_command", metavar="ACTION", required=True)

    add = docs.add_parser("add", help="index files or folders (PDF, Word, HTML, Markdown, text)")
    add.add_argument("paths", nargs="+", metavar="PATH")
    add.add_argument("--collection", default="default", metavar="NAME", help="group them under NAME")
    add.add_argument("--model", metavar="DIR", help="size passages with this chat model's tokenizer")
    add.add_argument("--no-embeddings", action="store_true", help="keyword index only (faster)")
    add.add_argument("--json", action="store_true", help="print counts as JSON")
    add.set_defaults(handler=_add)

    ls = docs.add_parser("list", help="indexed files and their state")
    ls.add_argument("--json", action="store_true")
    ls.set_defaults(handler=_list)

    rm = docs.add_parser("remove", help="forget files or folders (their text and vectors)")
    rm.add_argument("paths", nargs="+", metavar="PATH")
    rm.set_defaults(handler=_remove)

    embedder = docs.add_parser(
        "embedder", help="install an embedding model folder (an .onnx graph and tokenizer.json) for better search"
    )
    embedder.add_argument("folder", metavar="DIR")
    embedder.set_defaults(handler=_embedder)

    search = docs.add_parser("search", help="the passages that best match QUERY")
    search.add_argument("query", metavar="QUERY")
    search.add_argument("--limit", type=int, default=5, metavar="N")
    search.add_argument("--collection", action="append", metavar="NAME", help="only these collections")
    search.add_argument("--json", action="store_true", help='[{"file", "page", "text", "score"}], best first')
    search.set_defaults(handler=_search)


def _open(use_embeddings: bool = True, *, read_only: bool = False) -> Any:
    from localmind.documents.library import Library

    return Library.open(use_embeddings=use_embeddings, read_only=read_only)


def _add(args: argparse.Namespace) -> int:
    from localmind.documents.chunking import tokenizer_counter

    library = _open(not args.no_embeddings)
    paths = [Path(p) for p in args.paths]
    interactive = sys.stderr.isatty() and not args.json

    def progress(done: int, total: int, path: Path) -> None:
        if interactive:
            print(f"\r[{done}/{total}] {path.name[:60]:<60}", end="", file=sys.stderr, flush=True)

    try:
        result = library.add(paths, args.collection, count=tokenizer_counter(args.model), progress=progress)
    finally:
        library.close()
    if interactive:
        print(file=sys.stderr)
    for _path, why in result.failed or []:
        print(f"localmind: {why}", file=sys.stderr)
    if args.json:
        print(json.dumps(result.as_json()))
    else:
        print(
            f"{result.added_files} added, {result.updated_files} updated, {result.unchanged_files} unchanged, "
            f"{len(result.failed or [])} failed; {result.added_chunks} passages added, {result.removed_chunks} removed."
        )
        if library.embedder is None and not args.no_embeddings:
            print(
                "note: keyword search only. Installing the embedding model "
                "(localmind models download multilingual-e5-small) improves results.",
                file=sys.stderr,
            )
    return 1 if result.failed and not (result.added_files or result.updated_files or result.unchanged_files) else 0


def _list(args: argparse.Namespace) -> int:
    library = _open(use_embeddings=False)
    try:
        records = library.index.files()
        stale = {r.path for r in records if r.state == "indexed" and library.index.stale(r)}
    finally:
        library.close()
    rows = [
        {
            "file": r.path,
            "collection": r.collection,
            "state": "changed" if r.path in stale else r.state,
            "pages": r.pages,
            "passages": r.chunks,
            "error": r.error or None,
        }
        for r in records
    ]
    if args.json:
        print(json.dumps(rows, ensure_ascii=False))
        return 0
    if not rows:
        print("No documents yet. Add some with: localmind docs add PATH")
        return 0
    for row in rows:
        detail = row["error"] if row["error"] else f"{row['passages']} passages"
        print(f"{row['state']:<8} {row['collection']:<12} {row['file']}  ({detail})")
    return 0


def _remove(args: argparse.Namespace) -> int:
    library = _open(use_embeddings=False)
    try:
        files, chunks = library.remove([Path(p) for p in args.paths])
    finally:
        library.close()
    if not files:
        raise UserFacingError(
            f"Nothing indexed at {', '.join(args.paths)}.", hint="See what is indexed with: localmind docs list"
        )
    print(f"Removed {files} file(s) and {chunks} passages.")
    return 0


def _embedder(args: argparse.Namespace) -> int:
    from localmind.documents.embed import install_embedding_model

    target = install_embedding_model(Path(args.folder))
    library = _open()
    try:
        added = library.embed_missing()
    finally:
        library.close()
    print(f"Installed the embedding model in {target}; {added} passages embedded.")
    return 0


def _search(args: argparse.Namespace) -> int:
    if not args.query.strip():
        raise UserFacingError("The search is empty.", hint="Pass some words to look for.")
    library = _open(read_only=True)  # searching writes nothing: it works in a read-only data folder too
    try:
        passages = library.search(args.query, args.limit, args.collection)
    finally:
        library.close()
    if args.json:
        print(json.dumps([p.as_json() for p in passages], ensure_ascii=False))
        return 0
    if not passages:
        print("No matching passages.")
        return 0
    for n, p in enumerate(passages, 1):
        text = " ".join(p.text.split())
        print(f"[{n}] {p.label()}  (score {p.score:.4f})\n    {text[:300]}{'…' if len(text) > 300 else ''}")
    return 0
