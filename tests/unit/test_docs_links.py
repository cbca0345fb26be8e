"""The README is for users (short); the rest lives in docs/. Every link and picture in them must resolve."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
README_MAX_LINES = 200
_LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def _pages() -> list[Path]:
    return [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]


def test_the_readme_is_short_enough_for_a_user() -> None:
    lines = (REPO / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES, f"README.md has {len(lines)} lines; move detail into docs/"


def test_every_local_link_and_picture_resolves() -> None:
    missing = []
    for page in _pages():
        for target in _LINK.findall(page.read_text(encoding="utf-8")):
            if "://" in target or target.startswith("mailto:"):
                continue
            if not (page.parent / target).exists():
                missing.append(f"{page.relative_to(REPO)} → {target}")
    assert not missing, "links to nothing:\n" + "\n".join(missing)


def test_the_readme_points_to_every_docs_page() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    unlinked = [p.name for p in sorted((REPO / "docs").glob("*.md")) if f"docs/{p.name}" not in readme]
    assert not unlinked, f"docs pages the README does not point to: {unlinked}"
