"""Terminal subcommands. Each module registers its own parser; see ``COMMANDS``."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from localmind.commands import chat, docs, export_import, info, models, serve

Register = Callable[["argparse._SubParsersAction[argparse.ArgumentParser]"], None]

COMMANDS: list[Register] = [
    chat.register,
    info.register,
    export_import.register,
    models.register,
    serve.register,
    docs.register,
]
