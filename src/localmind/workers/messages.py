"""Errors in the UI's language: the one place the window turns a UserFacingError into text.

core/ and engine/ keep Qt out, so an error built with ``UserFacingError.say`` carries its English source texts and
values; here Qt translates the sources (context ``localmind.errors.CONTEXT``, the *_zh_CN.qm files the app loads)
and fills the values in. An error without sources, or a translation with a broken field, reads in English.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from localmind.errors import CONTEXT, Phrase, Sources, UserFacingError


def user_text(exc: BaseException) -> str:
    """The error's message and hint in the UI's language where it has source texts, else as it is."""
    if not isinstance(exc, UserFacingError) or (sources := exc.sources()) is None:
        return str(exc)
    try:
        return _render(sources, exc.hint)
    except (KeyError, IndexError, ValueError):  # a translation with a broken field: English is better than nothing
        return str(exc)


def phrase_text(text: str) -> str:
    """A Phrase (a warning of the engine, say) in the UI's language; any other text as it is."""
    if not isinstance(text, Phrase):
        return text
    try:
        return _render(text.sources)
    except (KeyError, IndexError, ValueError):
        return str(text)


def _render(sources: Sources, english_hint: str | None = None) -> str:
    source, hint_source, values, phrases = sources
    values = dict(values)
    for name, nested in phrases.items():
        values[name] = _render(nested)
    message = QCoreApplication.translate(CONTEXT, source).format(**values)
    hint = QCoreApplication.translate(CONTEXT, hint_source).format(**values) if hint_source else english_hint
    if not hint:
        return message
    # Chinese puts no space after its full-width stops; English (and an untranslated message) does.
    return f"{message}{hint}" if message.endswith(("。", "！", "？", "）")) else f"{message} {hint}"
