"""Colours of the chat view, derived from the widget palette so light and dark themes both work.

Everything here is computed from palette roles; only the syntax colours, which no palette role
describes, come in a light and a dark set chosen by the palette's lightness.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtGui import QColor, QPalette


def blend(base: QColor, over: QColor, amount: float) -> QColor:
    """``over`` laid on ``base`` with opacity ``amount`` (0..1), as an opaque colour."""
    a = max(0.0, min(1.0, amount))
    return QColor.fromRgbF(
        base.redF() * (1 - a) + over.redF() * a,
        base.greenF() * (1 - a) + over.greenF() * a,
        base.blueF() * (1 - a) + over.blueF() * a,
    )


# GitHub-like code colours: readable on the code block backgrounds below in each theme.
_SYNTAX_LIGHT = {
    "keyword": "#cf222e",
    "string": "#0a3069",
    "comment": "#6e7781",
    "number": "#0550ae",
    "function": "#8250df",
    "builtin": "#953800",
    "tag": "#116329",
    "added": "#116329",
    "removed": "#82071e",
}
_SYNTAX_DARK = {
    "keyword": "#ff7b72",
    "string": "#a5d6ff",
    "comment": "#8b949e",
    "number": "#79c0ff",
    "function": "#d2a8ff",
    "builtin": "#ffa657",
    "tag": "#7ee787",
    "added": "#7ee787",
    "removed": "#ffa198",
}


@dataclass(frozen=True)
class ChatTheme:
    dark: bool
    background: QColor
    text: QColor
    muted: QColor
    link: QColor
    accent: QColor
    user_bubble: QColor
    user_text: QColor
    code_background: QColor
    code_header: QColor
    inline_code_background: QColor
    border: QColor
    error: QColor
    syntax: dict[str, QColor] = field(default_factory=dict)

    @classmethod
    def from_palette(cls, palette: QPalette) -> ChatTheme:
        role = QPalette.ColorRole
        # The transcript is page background (Window), as in the rest of the app; Base is for inputs.
        base = palette.color(role.Window)
        text = palette.color(role.Text)
        accent = palette.color(role.Highlight)
        dark = base.lightnessF() < 0.5
        link = palette.color(role.Link)
        # Some palettes keep the light-theme link blue in dark mode: lift it so it stays readable.
        if dark and link.lightnessF() < 0.55:
            link = blend(link, QColor("white"), 0.45)
        error = QColor("#ff7b72") if dark else QColor("#cf222e")
        syntax = _SYNTAX_DARK if dark else _SYNTAX_LIGHT
        return cls(
            dark=dark,
            background=base,
            text=text,
            muted=blend(text, base, 0.45),
            link=link,
            accent=accent,
            user_bubble=blend(base, accent, 0.22 if dark else 0.12),
            user_text=text,
            code_background=blend(base, text, 0.07 if dark else 0.045),
            code_header=blend(base, text, 0.12 if dark else 0.085),
            inline_code_background=blend(base, text, 0.13 if dark else 0.08),
            border=blend(base, text, 0.2 if dark else 0.14),
            error=error,
            syntax={name: QColor(value) for name, value in syntax.items()},
        )
