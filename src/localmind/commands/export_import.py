"""``localmind export`` and ``localmind import``: conversations to and from Markdown / JSON files.

localmind export [--conversation ID | --all] [--format md|json] [-o FILE]   (stdout by default)
localmind export --list                                                      ids and titles
localmind import FILE                                                        ('-' reads stdin)
"""

from __future__ import annotations

import argparse
import contextlib
import os
import stat
import sys
import tempfile
from datetime import datetime
from pathlib import Path
from typing import Any

from localmind.errors import UserFacingError


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "export",
        help="write conversations as Markdown or JSON",
        description="Write conversations (all of them unless --conversation is given) to stdout or a file.",
    )
    which = p.add_mutually_exclusive_group()
    which.add_argument(
        "--conversation", metavar="ID", action="append", help="this conversation (repeatable; an id prefix will do)"
    )
    which.add_argument("--all", action="store_true", help="every conversation not in the trash (the default)")
    which.add_argument("--list", action="store_true", help="list conversation ids and titles, then exit")
    p.add_argument(
        "--format", choices=("md", "json"), help="md to read, json to import later (default: from -o's suffix, else md)"
    )
    p.add_argument("-o", "--output", metavar="FILE", help="write here instead of stdout")
    p.set_defaults(handler=run_export)

    p = sub.add_parser(
        "import",
        help="add conversations from a JSON export",
        description="Add the conversations in a LocalMind JSON export. Importing the same file again changes nothing:"
        " conversations already here are skipped, or get the messages they lack.",
    )
    p.add_argument("file", metavar="FILE", help="a file made by 'localmind export --format json' ('-' reads stdin)")
    p.set_defaults(handler=run_import)


def _open_store() -> Any:
    from localmind.core.store import ConversationStore

    # A terminal command must not mark the window's reply in progress as interrupted.
    return ConversationStore(recover_interrupted=False)


def _resolve(store: Any, wanted: str) -> str:
    conversations = store.list_conversations(include_deleted=True)
    if any(c.id == wanted for c in conversations):
        return wanted
    matches = [c for c in conversations if c.id.startswith(wanted.lower())]
    if len(matches) == 1:
        return str(matches[0].id)
    if not matches:
        raise UserFacingError(f"There is no conversation {wanted!r}.", hint="See the ids with: localmind export --list")
    raise UserFacingError(
        f"{wanted!r} matches {len(matches)} conversations.", hint="Give more of the id (see: localmind export --list)."
    )


def _write_output(text: str, output: str | None) -> None:
    data = text.encode("utf-8")
    if output is None or output == "-":
        # Bytes, not text: a Windows console's code page would choke on Chinese or emoji.
        try:
            sys.stdout.flush()
            sys.stdout.buffer.write(data)
            sys.stdout.buffer.flush()
        except BrokenPipeError:
            # The reader stopped (`| head`): what it wanted it has. Python's own flush at exit must not fail again.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except OSError as exc:
            raise UserFacingError(
                f"Cannot write the output: {exc.strerror or exc}.", hint="Check that there is room where it goes."
            ) from exc
        return
    path = Path(output).expanduser()
    try:
        mode = path.stat().st_mode if path.exists() else None
    except OSError:
        mode = None
    if mode is not None and not stat.S_ISREG(mode):
        # A device, a pipe or /dev/stdout: written to, never replaced (a rename over /dev/full as root replaced the
        # device with a file).
        try:
            with open(path, "wb") as f:
                f.write(data)
        except OSError as exc:
            raise UserFacingError(
                f"Cannot write {path}: {exc.strerror or exc}.", hint="Check that there is room and it is writable."
            ) from exc
        return
    # A link to a file: the file it points to is replaced, the link stays.
    path = Path(os.path.realpath(path))
    try:
        fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent.resolve())
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
    except OSError as exc:
        raise UserFacingError(
            f"Cannot write {path}: {exc.strerror or exc}.", hint="Check that the folder exists and is writable."
        ) from exc


def run_export(args: argparse.Namespace) -> int:
    from localmind.core import chat_files
    from localmind.core.store import open_for_reading

    fmt = args.format or ("json" if args.output and args.output.lower().endswith(".json") else "md")
    with open_for_reading() as store:  # read-only: works in a data folder that cannot be written
        if args.list:
            conversations = store.list_conversations()
            if not conversations:
                print("There are no conversations yet.", file=sys.stderr)
            for c in conversations:
                when = datetime.fromtimestamp(c.updated_at).strftime("%Y-%m-%d %H:%M")
                _write_output(f"{c.id}  {when}  {c.message_count:4d} msgs  {c.title}\n", None)
            return 0
        ids = [_resolve(store, wanted) for wanted in args.conversation] if args.conversation else None
        items, unreadable = chat_files.collect_readable(store, ids)
    if not items and not unreadable:
        print(
            f"localmind: There are no conversations to export in {store.path.parent}; nothing was written.",
            file=sys.stderr,
        )
        return 0
    text = chat_files.to_json(items) if fmt == "json" else chat_files.to_markdown(items)
    _write_output(text, args.output)
    if args.output and args.output != "-":
        print(f"Exported {_count(len(items), 'conversation')} to {args.output}.", file=sys.stderr)
    if unreadable:
        # The database is damaged: what could be read is out; name what could not, so nothing goes missing silently.
        print(
            f"localmind: {_count(len(unreadable), 'conversation')} could not be read (the database is damaged):",
            file=sys.stderr,
        )
        for id, title in unreadable:
            print(f"  {id}  {title}", file=sys.stderr)
        print(
            "Start the LocalMind window to recover them into a new database (the damaged file is kept).",
            file=sys.stderr,
        )
        return 1
    return 0


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def run_import(args: argparse.Namespace) -> int:
    from localmind.core import chat_files

    with _open_store() as store:
        if args.file == "-":
            result = chat_files.merge_json(store, sys.stdin.buffer.read(), "The input")
        else:
            path = Path(args.file).expanduser()
            result = chat_files.merge_json(store, chat_files.read_file(path), str(path))
    lines: list[str] = []
    for heading, conversations in (
        ("Imported", result.added),
        ("Updated (new messages added)", result.updated),
        ("Imported as a copy (it differs from the one already here)", result.copied),
        ("Skipped (already here)", result.skipped),
    ):
        if conversations:
            lines.append(f"{heading}: {_count(len(conversations), 'conversation')}")
            lines += [f"  {c.id}  {c.title} ({_count(c.message_count, 'message')})" for c in conversations]
    if not lines:
        lines = ["The file holds no conversations; nothing was imported."]
    _write_output("\n".join(lines) + "\n", None)
    return 0
