"""Errors that carry a message a user can act on.

Anything raised as a :class:`UserFacingError` is shown as it is, in one line in
the terminal or in a dialog in the window; its text says what happened and
what to do next. Everything else is a bug and is reported as one.

An error built with :meth:`UserFacingError.say` also keeps its English source
texts and their values, so the window can show it in the user's language
(``localmind.workers.messages.user_text``: Qt's translation of the source in the
context :data:`CONTEXT`, then the values filled in). Only the window translates:
this module, core/ and engine/ import no Qt, and the terminal stays English.
"""

from __future__ import annotations

from typing import TypeAlias, TypeVar

# The Qt translation context of every ``say``/``tell`` source text (resources/translations/*_zh_CN.ts).
CONTEXT = "engine"

_E = TypeVar("_E", bound="UserFacingError")
# (source, hint source, values, values that are themselves translatable: their own Sources)
Sources: TypeAlias = "tuple[str, str | None, dict[str, str], dict[str, Sources]]"


def translatable(source: str) -> str:
    """Marks a source text kept in a table and passed to ``say`` later (the translation test collects it)."""
    return source


class Phrase(str):
    """A value that is itself words to translate: the English text, with its literal source and values kept
    (``{what}`` in "... is not UTF-8 text ({what})" is "the tokenizer"; a reason built elsewhere)."""

    sources: Sources

    def __new__(cls, source: str, **values: object) -> Phrase:
        text = {k: str(v) for k, v in values.items()}
        phrase = super().__new__(cls, source.format(**text))
        phrase.sources = (source, None, text, _nested_sources(values))
        return phrase

    def __reduce__(self) -> tuple[object, ...]:
        return (_phrase, (str(self), self.sources))


def _nested_sources(values: dict[str, object]) -> dict[str, Sources]:
    """The values that are words to translate too: a Phrase, or an error built with say/tell ("... is not a usable
    model: {reason}": the reason translates with the rest)."""
    nested: dict[str, Sources] = {}
    for name, value in values.items():
        if isinstance(value, Phrase):
            nested[name] = value.sources
        elif isinstance(value, UserFacingError) and (said := value.sources()) is not None:
            nested[name] = said
    return nested


def _phrase(text: str, sources: Sources) -> Phrase:
    phrase = str.__new__(Phrase, text)
    phrase.sources = sources
    return phrase


class UserFacingError(Exception):
    """An error whose message is meant for the user."""

    exit_code = 1

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint
        self.source: str | None = None  # the English source texts, when the message was built by say/tell
        self.hint_source: str | None = None
        self.values: dict[str, str] = {}
        self.phrases: dict[str, Sources] = {}  # values that are words to translate too (Phrase, an error)

    def __str__(self) -> str:
        return f"{self.message} {self.hint}" if self.hint else self.message

    @classmethod
    def say(cls: type[_E], source: str, hint_source: str | None = None, **values: object) -> _E:
        """The error built from literal source texts with ``{name}`` fields (the window translates them).

        Values are shown as they are (file names, paths, repo ids, numbers): format numbers before."""
        error = cls("")
        error.tell(source, hint_source, **values)
        return error

    def tell(self, source: str, hint_source: str | None = None, **values: object) -> None:
        """Set the message from source texts (for subclasses whose ``__init__`` takes other arguments)."""
        text = {k: str(v) for k, v in values.items()}
        self.message = source.format(**text)
        self.hint = hint_source.format(**text) if hint_source else None
        self.args = (self.message,)
        self.source, self.hint_source, self.values = source, hint_source, text
        self.phrases = _nested_sources(values)

    def message_phrase(self) -> str:
        """The message alone (no hint) as a value for another error's text: a Phrase when it has sources."""
        if not self.source:
            return self.message
        return _phrase(self.message, (self.source, None, self.values, self.phrases))

    def sources(self) -> Sources | None:
        """What the window needs to translate this error, as plain data (it crosses the engine's process)."""
        return (self.source, self.hint_source, self.values, self.phrases) if self.source else None

    def set_sources(self, sources: Sources | None) -> None:
        if sources is not None:
            self.source, self.hint_source, self.values, self.phrases = sources
