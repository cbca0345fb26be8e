"""LocalMind: a private AI chat app that runs small language models on your own computer."""

from typing import Any

APP_NAME = "LocalMind"


def __getattr__(name: str) -> Any:
    # The version is read from the package metadata only when asked: importlib.metadata costs ~60 ms at every
    # start of the terminal commands, which print it only for --version.
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            found = version("localmind")
        except PackageNotFoundError:  # running from a source tree or a frozen bundle without metadata
            found = "0.1.0"
        globals()["__version__"] = found
        return found
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
