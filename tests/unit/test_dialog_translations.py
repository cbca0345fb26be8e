"""Every string of the Settings dialog's classes (ui/settings_*.py, whose translations resources/translations/
dialogs_zh_CN.ts holds with the accessible names added across the window) has its Simplified Chinese translation.

tests/unit/test_translations.py checks the contexts of localmind_zh_CN.ts; these contexts are this file's to check.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.unit.test_translations import REPO, SOURCES, _lupdate, _messages

FOLDER = REPO / "resources" / "translations"


def test_every_string_of_the_dialogs_contexts_has_a_chinese_translation(tmp_path: Path) -> None:
    lupdate = _lupdate()
    if lupdate is None:
        pytest.skip("pyside6-lupdate is not installed (it comes with PySide6)")
    sources = sorted(str(p) for p in SOURCES.rglob("*.py"))
    probe = tmp_path / "probe.ts"
    subprocess.run([lupdate, *sources, "-ts", str(probe), "-no-obsolete"], check=True, capture_output=True)
    contexts = {"ChatSettingsTab", "AppSettingsTab", "SettingsDialog", "AnswerAnnouncer"}  # classes of this work
    wanted = {(c, s) for c, s in _messages(probe, translated_only=False) if c in contexts}
    assert {c for c, _ in wanted} == contexts
    have: set[tuple[str, str]] = set()
    for ts in FOLDER.glob("*_zh_CN.ts"):
        have |= _messages(ts, translated_only=True)
    missing = sorted(f"{context}: {source[:80]!r}" for context, source in wanted - have)
    assert missing == []
