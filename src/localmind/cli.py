"""Command line entry point: the window by default, subcommands for terminal use.

localmind [--data-dir DIR] [--model DIR]        open the window
localmind chat --model DIR [--prompt TEXT] ...  chat in the terminal
localmind info                                  versions, devices, folders
localmind models ...                            list / download / verify / remove / import
localmind export ... | import FILE              conversations to and from Markdown / JSON
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence

from localmind import APP_NAME, __version__, paths
from localmind.errors import UserFacingError

# og reads this when the library loads: opt out of its telemetry before anything imports it.
os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")


def build_parser() -> argparse.ArgumentParser:
    from localmind.commands import COMMANDS

    parser = argparse.ArgumentParser(
        prog="localmind",
        description=f"{APP_NAME}: a private AI chat that runs on your own computer.",
    )
    parser.add_argument("--version", action="version", version=f"{APP_NAME} {__version__}")
    parser.add_argument(
        "--data-dir",
        metavar="DIR",
        help=f"keep everything {APP_NAME} writes under DIR (also: ${paths.ENV_DATA_DIR})",
    )
    parser.add_argument("--model", metavar="DIR", help="open the window with this model folder loaded")
    parser.add_argument(
        "--self-test",
        action="store_true",
        help="start the window offscreen, check the engine, data folder and keyring, print a report and exit",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for register in COMMANDS:
        register(sub)
    _accept_data_dir_anywhere(sub)
    return parser


def _accept_data_dir_anywhere(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """``localmind chat --data-dir X`` works as well as ``localmind --data-dir X chat``."""
    for subparser in sub.choices.values():
        subparser.add_argument("--data-dir", metavar="DIR", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
        for action in subparser._actions:
            if isinstance(action, argparse._SubParsersAction):
                _accept_data_dir_anywhere(action)


def _check_data_dir() -> None:
    """A data folder that is a file (``--data-dir /etc/passwd``) is said in one line, whatever the command reads.
    (The window says it in its own storage dialogs.)"""
    folder = paths.data_dir()
    if folder.exists() and not folder.is_dir():
        raise UserFacingError(
            f"The data folder {folder} is a file, not a folder.",
            hint="Pick a folder with --data-dir (or $LOCALMIND_DATA_DIR); LocalMind creates it when it is missing.",
        )


def main(argv: Sequence[str] | None = None, *, run_window: Callable[[argparse.Namespace], int] | None = None) -> int:
    """``localmind ARGS``; ``run_window`` opens the window instead of ``app.run_gui`` (the tests' entry point)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.data_dir:
        paths.set_data_dir(args.data_dir)
    try:
        if args.command:
            _check_data_dir()
            return int(args.handler(args) or 0)
        if args.self_test:
            from localmind.selftest import run_self_test

            return run_self_test(args)
        if run_window is not None:
            return run_window(args)
        from localmind.app import run_gui

        return run_gui(args)
    except UserFacingError as exc:
        print(f"localmind: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print(file=sys.stderr)
        return 130


def gui_main() -> int:
    """Entry point for the windowed launcher (no console on Windows)."""
    return main()
