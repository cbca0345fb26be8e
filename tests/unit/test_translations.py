"""Every string of the contexts kept in localmind_zh_CN.ts has its Simplified Chinese translation.

Features keep their own <feature>_zh_CN.ts; a string of such a context may be translated in any of them. Contexts
that only a feature's file knows are that feature's to check.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SOURCES = REPO / "src" / "localmind"


def _lupdate() -> str | None:
    found = shutil.which("pyside6-lupdate") or str(Path(sys.executable).with_name("pyside6-lupdate"))
    return found if Path(found).exists() else None


def _messages(ts: Path, translated_only: bool) -> set[tuple[str, str]]:
    found: set[tuple[str, str]] = set()
    for context in ET.parse(ts).getroot().iter("context"):
        name = context.findtext("name") or ""
        for message in context.iter("message"):
            translation = message.find("translation")
            if translated_only and (
                translation is None
                or translation.get("type") in ("unfinished", "obsolete", "vanished")
                or not (translation.text or "").strip()
            ):
                continue
            found.add((name, message.findtext("source") or ""))
    return found


def test_every_string_of_the_apps_own_contexts_has_a_chinese_translation(tmp_path: Path) -> None:
    lupdate = _lupdate()
    if lupdate is None:
        pytest.skip("pyside6-lupdate is not installed (it comes with PySide6)")
    sources = sorted(str(p) for p in SOURCES.rglob("*.py"))
    probe = tmp_path / "probe.ts"
    subprocess.run([lupdate, *sources, "-ts", str(probe), "-no-obsolete"], check=True, capture_output=True)
    # lupdate names the context of ``self.page.tr(...)`` "self.page"; at run time it is the page's class.
    wanted = {(context, source) for context, source in _messages(probe, translated_only=False) if "." not in context}
    folder = REPO / "resources" / "translations"
    ours = {context for context, _ in _messages(folder / "localmind_zh_CN.ts", translated_only=False)}
    wanted = {(context, source) for context, source in wanted if context in ours}
    have: set[tuple[str, str]] = set()
    for ts in folder.glob("*_zh_CN.ts"):
        have |= _messages(ts, translated_only=True)
    missing = sorted(f"{context}: {source[:80]!r}" for context, source in wanted - have)
    assert missing == []
