"""LocalMind: a private AI chat app that runs small language models on your own computer."""

import os
import sys

APP_NAME = "LocalMind"
_FALLBACK_VERSION = "0.1.0"  # a source tree or a frozen bundle without metadata


def _installed_version() -> str:
    """The version in the installed package's metadata (``localmind-X.dist-info/METADATA``).

    Read directly rather than through importlib.metadata: importing that (and the email parser it brings) cost
    60-100 ms of every start of the window and of the terminal commands (issue 12).
    """
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:  # a zip archive (frozen) or a folder that is gone
            continue
        for name in names:
            if not (name.startswith("localmind-") and name.endswith(".dist-info")):
                continue
            try:
                with open(os.path.join(entry, name, "METADATA"), encoding="utf-8") as metadata:
                    for line in metadata:
                        if line.startswith("Version:"):
                            return line.split(":", 1)[1].strip()
                        if not line.strip():  # the headers end here
                            break
            except OSError:
                continue
    return _FALLBACK_VERSION


__version__ = _installed_version()


def __getattr__(name: str) -> object:
    """``from localmind import TextGenerator`` (docs/library.md) without loading the engine for every import."""
    if name in ("TextGenerator", "Chat"):
        from localmind import library

        return getattr(library, name)
    raise AttributeError(f"module 'localmind' has no attribute {name!r}")


__all__ = ["APP_NAME", "Chat", "TextGenerator", "__version__"]
