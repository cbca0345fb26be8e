"""Text that is not ours (titles, file names, paths, repo ids, model output) shown as what it is.

Qt guesses whether a label's or a tooltip's text is HTML (``Qt.mightBeRichText``): a conversation titled
``<img src="/usr/share/pixmaps/debian-logo.png">`` would load that file and ``<a href=…>`` would show a link. Labels
are set to ``Qt.PlainText`` (:func:`localmind.ui.plain.plain_labels`); tooltips have no such switch, so their text is
escaped here. Titles are also cut to one line of a sane length for display: an imported 2,000-line title must not
cost every list, header and window title a 2,000-line layout.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence

TITLE_DISPLAY_CHARS = 200
TOOLTIP_CHARS = 1000


def display_title(title: str, limit: int = TITLE_DISPLAY_CHARS) -> str:
    """The first non-empty line of ``title``, at most ``limit`` characters (an ellipsis marks a cut)."""
    # Only the head is looked at: a title of millions of characters costs no more than a short one.
    head = title[: limit * 4 + 64]
    line = next((part.strip() for part in head.splitlines() if part.strip()), "")
    cut = len(line) > limit or (len(line) < len(title.strip()) and "\n" in title.strip())
    if len(line) > limit:
        line = line[: limit - 1].rstrip()
    return line + "…" if cut else line


def tooltip(text: str, limit: int = TOOLTIP_CHARS) -> str:
    """``text`` as a tooltip that Qt shows literally (escaped HTML, line breaks kept), at most ``limit`` characters."""
    if not text:
        return ""
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    if "<" not in text:
        return text  # without a tag Qt shows it as plain text already
    return "<p style='white-space:pre-wrap'>" + html.escape(text).replace("\n", "<br>") + "</p>"


# Markdown syntax a search snippet shows as punctuation: link targets, image marks, emphasis, code ticks, headings,
# quote and list markers. Each pattern's group 1 (if any) is text to keep; the rest of the match is dropped.
_MARKUP = re.compile(
    r"!?\[([^\]\n]*)\]\([^)\n]*\)"  # [text](url), ![alt](url)
    r"|(?:^|(?<=\s))#{1,6}(?=\s)"  # # heading
    r"|(?:^|(?<=\s))>+(?=\s)"  # > quote
    r"|(?:^|(?<=\s))[-*+](?=\s)"  # - list item
    r"|\*{1,3}(?=\S)|(?<=\S)\*{1,3}"  # *emphasis*, **strong**
    r"|(?:^|(?<=\s))_{1,3}(?=\S)|(?<=\S)_{1,3}(?=\s|$|[.,;:!?])"  # _emphasis_
    r"|~~|`+"  # ~~strike~~, `code`
)


def markdown_snippet(text: str, spans: Sequence[tuple[int, int]] = ()) -> tuple[str, tuple[tuple[int, int], ...]]:
    """A snippet of a Markdown message as it reads (no ``**``, ``#``, ``[..](..)``), with its highlight spans moved."""
    keep: list[int] = []  # for each kept character, its index in ``text``
    position = 0
    for match in _MARKUP.finditer(text):
        keep.extend(range(position, match.start()))
        if match.group(1) is not None:
            keep.extend(range(match.start(1), match.end(1)))
        position = match.end()
    keep.extend(range(position, len(text)))
    plain = "".join(text[i] for i in keep)
    plain_spans: list[tuple[int, int]] = []
    for start, end in spans:
        inside = [n for n, i in enumerate(keep) if start <= i < end]
        if inside:
            plain_spans.append((inside[0], inside[-1] + 1))
    # Dropped markers leave double spaces behind; collapsing them would move the spans, so they stay.
    return plain, tuple(plain_spans)
