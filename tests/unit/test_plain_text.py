"""Display helpers for text that is not ours (localmind.viewmodels.plain_text)."""

from __future__ import annotations

from localmind.viewmodels.plain_text import display_title, markdown_snippet


def test_a_search_snippet_reads_as_text_not_markdown_source() -> None:
    """Issue 9.10: search results showed `**`, `#`, `[..](..)` as typed."""
    source = "## Setup\n- use **pandas** and `read_csv`, see [the docs](https://pandas.pydata.org) > quoted"
    text, spans = markdown_snippet(" ".join(source.split("\n")), [(source.index("pandas"), source.index("pandas") + 6)])
    assert text.split() == ["Setup", "use", "pandas", "and", "read_csv,", "see", "the", "docs", "quoted"]
    assert [text[a:b] for a, b in spans] == ["pandas"]


def test_code_identifiers_keep_their_underscores() -> None:
    assert markdown_snippet("call snake_case_name now")[0] == "call snake_case_name now"


def test_a_title_is_shown_as_its_first_line_cut_to_a_sane_length() -> None:
    assert display_title("Plan a trip") == "Plan a trip"
    assert display_title("first\n" + "\n".join(str(i) for i in range(2000))) == "first…"
    assert len(display_title("x" * 100_000)) == 200
    assert display_title("\n\n  spaced  \n") == "spaced"
