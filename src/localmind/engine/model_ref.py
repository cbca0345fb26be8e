"""Which model to load: a model folder on this computer, or a model on a remote OpenAI-compatible server.

A :class:`ModelRef` is what the app passes around (the picker, the load policy, the engine's router). Where a model
is stored as text — the settings' last model, a conversation's ``model`` field, ``LoadInfo.model_dir`` and the
engine's ``load(model_dir)`` — it is written as :attr:`ModelRef.key`: the folder's path, or ``remote:URL#NAME``.
:meth:`ModelRef.parse` reads both, so every string stored before this type existed still reads the same.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

REMOTE_PREFIX = "remote:"


@dataclass(frozen=True)
class ModelRef:
    """A model folder (``folder``), or a remote server's model (``url`` of its API and the model's ``name``)."""

    folder: str | None = None
    url: str | None = None
    name: str | None = None

    def __post_init__(self) -> None:
        remote = self.url is not None or self.name is not None
        if remote == (self.folder is not None) or (remote and not (self.url and self.name)):
            raise ValueError("a ModelRef is a folder, or a server URL with a model name")

    @classmethod
    def local(cls, folder: str | Path) -> ModelRef:
        return cls(folder=str(folder))

    @classmethod
    def remote(cls, url: str, name: str) -> ModelRef:
        return cls(url=url, name=name)

    @classmethod
    def parse(cls, text: str) -> ModelRef:
        """The reference a stored string names: ``remote:URL#NAME`` (the model name after the last ``#``), else
        a folder."""
        if text.startswith(REMOTE_PREFIX) and "#" in text:
            url, _, name = text[len(REMOTE_PREFIX) :].rpartition("#")
            if url and name:
                return cls.remote(url, name)
        return cls.local(text)

    @property
    def is_remote(self) -> bool:
        return self.url is not None

    @property
    def key(self) -> str:
        """How it is stored and how the engine's ``load`` is called: the folder, or ``remote:URL#NAME``."""
        if self.url is not None:
            return f"{REMOTE_PREFIX}{self.url}#{self.name}"
        return str(self.folder)

    @property
    def display_name(self) -> str:
        """What the window calls it while it loads: the folder's name, or the remote model's name."""
        if self.name is not None:
            return self.name
        return Path(str(self.folder)).name or str(self.folder)

    def is_there(self) -> bool:
        """Whether it can be loaded as far as can be known without asking: the folder exists; a server is asked by
        the load itself (its error says what went wrong)."""
        return self.is_remote or Path(str(self.folder)).is_dir()

    def __str__(self) -> str:
        return self.key


__all__ = ["REMOTE_PREFIX", "ModelRef"]
