"""``localmind serve``'s options checked before anything starts: numbers in range, the API key read from where
other users cannot see it, and a context budget that fits in memory."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from localmind.errors import UserFacingError

ENV_API_KEY = "LOCALMIND_API_KEY"
MIN_CONTEXT = 64  # below this no chat template and question fit
# Share of the free memory the context's cache may take: the rest is for the prompt's activations and the OS.
_MEMORY_SHARE = 0.9


def check_numbers(args: argparse.Namespace) -> None:
    """One-line errors for numbers out of range, before the model is loaded."""
    if args.context is not None and args.context < MIN_CONTEXT:
        raise UserFacingError(
            f"--context must be at least {MIN_CONTEXT} tokens (got {args.context}).",
            hint="Leave it out to use the model's own context, up to 4096.",
        )
    for flag, value, least, hint in (
        ("--threads", args.threads, 1, "Leave it out to use one per CPU core."),
        ("--max-body-bytes", args.max_body_bytes, 1, "The default is 1000000."),
        ("--max-prompt-chars", args.max_prompt_chars, 1, "The default is 200000."),
        ("--max-connections", args.max_connections, 1, "The default is 512."),
        ("--max-queue", args.max_queue, 0, "The default is 16."),
    ):
        if value is not None and value < least:
            raise UserFacingError(f"{flag} must be {least} or more (got {value}).", hint=hint)
    if not args.header_timeout > 0 or args.header_timeout == float("inf"):
        raise UserFacingError(
            f"--header-timeout must be a number of seconds above 0 (got {args.header_timeout}).",
            hint="The default is 10.",
        )


def _checked_key(key: str, source: str) -> str:
    key = key.strip()
    if not key:
        raise UserFacingError(
            f"The API key from {source} is empty (or only spaces).", hint="Give a key of letters and digits."
        )
    if any(ord(c) < 0x21 or ord(c) == 0x7F for c in key):
        raise UserFacingError(
            f"The API key from {source} has spaces or control characters; clients cannot send those in a header.",
            hint="Give a key of letters, digits and punctuation.",
        )
    return key


def read_api_key(args: argparse.Namespace) -> str | None:
    """The key from --api-key-file (``-``: standard input), --api-key or $LOCALMIND_API_KEY; None for no key."""
    if args.api_key is not None and args.api_key_file is not None:
        raise UserFacingError("Give either --api-key or --api-key-file, not both.")
    if args.api_key_file is not None:
        if args.api_key_file == "-":
            return _checked_key(sys.stdin.readline(), "standard input")
        path = Path(args.api_key_file).expanduser()
        try:
            with path.open(encoding="utf-8") as handle:
                first = handle.readline(4096)
        except (OSError, UnicodeDecodeError) as exc:
            reason = getattr(exc, "strerror", None) or "it is not text"
            raise UserFacingError(
                f"Cannot read the API key file {path}: {reason}.", hint="Check the path and its permissions."
            ) from None
        return _checked_key(first, str(path))
    if args.api_key is not None:
        return _checked_key(args.api_key, "--api-key")
    env = os.environ.get(ENV_API_KEY)
    return None if env is None or env == "" else _checked_key(env, f"${ENV_API_KEY}")


def _without_key(argv: list[str], key: str) -> list[str] | None:
    """``argv`` without the --api-key option and its value; None if it cannot be found there."""
    out: list[str] = []
    skip = False
    found = False
    for i, arg in enumerate(argv):
        if skip:
            skip = False
            continue
        name, eq, value = arg.partition("=")
        # argparse takes any unambiguous prefix of --api-key (--api-key-file needs the "-f").
        is_flag = len(name) >= len("--api-key") - 2 and "--api-key".startswith(name) and name.startswith("--api-")
        if is_flag and eq and value.strip() == key:
            found = True
            continue
        if is_flag and not eq and i + 1 < len(argv) and argv[i + 1].strip() == key:
            found, skip = True, True
            continue
        out.append(arg)
    return out if found else None


def hide_key_from_ps(key: str) -> None:
    """--api-key on the command line: every local user reads it in ``ps`` (this process, and the engine child that
    a fork copies the command line into). Say so, and start again with the key in the environment instead (only
    this user can read a process's environment)."""
    print(
        f"localmind: note: --api-key shows the key to every user of this computer (ps); "
        f"use --api-key-file or ${ENV_API_KEY} instead. Moving it out of the command line.",
        file=sys.stderr,
        flush=True,
    )
    argv = _without_key(list(sys.orig_argv), key)
    if argv is None or getattr(sys, "frozen", False):
        return  # not found as given (or a frozen build, whose command line is its own): it stays, as before
    try:
        os.execve(sys.executable, [sys.executable, *argv[1:]], {**os.environ, ENV_API_KEY: key})
    except OSError:
        return


def available_memory() -> int:
    """Bytes this process may still take: the system's available memory, or less under a cgroup limit (0: unknown)."""
    available = 0
    try:
        with open("/proc/meminfo", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    available = int(line.split()[1]) * 1024
                    break
    except (OSError, ValueError, IndexError):
        return 0
    try:
        limit = Path("/sys/fs/cgroup/memory.max").read_text().strip()
        used = int(Path("/sys/fs/cgroup/memory.current").read_text().strip())
        if limit != "max":
            available = min(available, max(0, int(limit) - used))
    except (OSError, ValueError):
        pass
    return available


def check_context_fits(budget: int, kv_bytes_per_token: int, explicit: bool, available: int | None = None) -> None:
    """Refuse a context whose cache cannot be made: it is reserved after the first request, which would be the
    only one to succeed (every later one failed with 500)."""
    free = available_memory() if available is None else available
    if kv_bytes_per_token <= 0 or free <= 0:
        return  # unknown: nothing to go by
    need = budget * kv_bytes_per_token
    if need <= free * _MEMORY_SHARE:
        return
    fits = int(free * _MEMORY_SHARE) // kv_bytes_per_token
    gib = 1024**3
    what = f"--context {budget:,}" if explicit else f"The model's context ({budget:,} tokens)"
    advice = (
        f"Use --context {fits:,} or less (or free memory)."
        if fits >= MIN_CONTEXT
        else "Free memory, or use a smaller model."
    )
    raise UserFacingError(
        f"{what} needs {need / gib:.1f} GiB of memory for the model's cache; {free / gib:.1f} GiB is free.",
        hint=advice,
    )
