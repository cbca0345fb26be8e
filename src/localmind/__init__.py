"""LocalMind: a private AI chat app that runs small language models on your own computer."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("localmind")
except PackageNotFoundError:  # running from a source tree or a frozen bundle without metadata
    __version__ = "0.1.0"

APP_NAME = "LocalMind"
