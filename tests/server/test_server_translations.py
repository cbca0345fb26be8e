"""Every string of the server feature's own contexts has its Chinese in resources/translations/server_zh_CN.ts."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.unit.test_translations import REPO, _lupdate, _messages

CONTEXTS = {"ServerSettingsTab", "ApiStatusLabel"}


def test_server_strings_are_translated(tmp_path: Path) -> None:
    lupdate = _lupdate()
    if lupdate is None:
        pytest.skip("pyside6-lupdate is not installed (it comes with PySide6)")
    probe = tmp_path / "probe.ts"
    source = REPO / "src" / "localmind" / "ui" / "server_settings.py"
    subprocess.run([lupdate, str(source), "-ts", str(probe), "-no-obsolete"], check=True, capture_output=True)
    wanted = {(c, s) for c, s in _messages(probe, translated_only=False) if c in CONTEXTS}
    assert len(wanted) > 15
    have = _messages(REPO / "resources" / "translations" / "server_zh_CN.ts", translated_only=True)
    assert sorted(wanted - have) == []
