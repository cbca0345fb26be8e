"""Errors that carry a message a user can act on.

Anything raised as a :class:`UserFacingError` is shown as it is, in one line in
the terminal or in a dialog in the window; its text says what happened and
what to do next. Everything else is a bug and is reported as one.
"""

from __future__ import annotations


class UserFacingError(Exception):
    """An error whose message is meant for the user."""

    exit_code = 1

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return f"{self.message} {self.hint}" if self.hint else self.message
