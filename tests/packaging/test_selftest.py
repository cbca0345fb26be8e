"""``localmind --self-test`` in this process, with the tiny model: fast, so it runs in every test run."""

from __future__ import annotations

import argparse
import sys
import types
from pathlib import Path
from typing import Any

import keyring
import pytest

from localmind import paths
from localmind.selftest import WINDOW_HOOK, run_self_test
from tests.helpers.memory_keyring import MemoryKeyring


def _args(model: Path | None = None) -> argparse.Namespace:
    return argparse.Namespace(model=str(model) if model else None, data_dir=None, command=None, self_test=True)


def _lines(capsys: pytest.CaptureFixture[str]) -> dict[str, str]:
    """{check name: its status line} from the printed report."""
    out = capsys.readouterr().out
    lines = {}
    for line in out.splitlines():
        parts = line.split()
        if parts and parts[0] in ("PASS", "WARN", "FAIL", "SKIP"):
            lines[line[8:23].strip()] = line.strip()
    lines["summary"] = out.strip().splitlines()[-1]
    return lines


@pytest.fixture
def memory_keyring() -> Any:
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(previous)


def test_passes_with_the_tiny_model(tiny_model: Path, capsys: pytest.CaptureFixture[str], memory_keyring: Any) -> None:
    assert run_self_test(_args(tiny_model)) == 0
    lines = _lines(capsys)
    for name in ("qt", "data folder", "keyring", "engine", "model", "engine process"):
        assert lines[name].startswith("PASS"), lines[name]
    assert "tokens" in lines["model"] and "on cpu" in lines["model"]
    assert "generated" in lines["engine process"]
    assert lines["summary"].startswith("Self-test passed")
    assert memory_keyring.store == {}  # the probe only reads


def test_without_a_model_checks_the_engine_can_start(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_self_test(_args()) == 0
    lines = _lines(capsys)
    assert lines["model"].startswith("SKIP")
    assert lines["engine"].startswith("PASS") and "onnxruntime-genai" in lines["engine"]
    assert lines["engine process"].startswith("PASS")


def test_a_broken_model_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "not-a-model"
    empty.mkdir()
    assert run_self_test(_args(empty)) == 1
    lines = _lines(capsys)
    assert lines["model"].startswith("FAIL")
    assert lines["summary"].startswith("Self-test FAILED")


def test_an_unwritable_data_folder_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    paths.set_data_dir(blocker / "data")  # below a regular file: cannot be created, even by root
    assert run_self_test(_args()) == 1
    assert _lines(capsys)["data folder"].startswith("FAIL")


def test_missing_keyring_is_a_warning_not_a_failure(capsys: pytest.CaptureFixture[str]) -> None:
    from keyring.backends import fail

    previous = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    try:
        assert run_self_test(_args()) == 0
    finally:
        keyring.set_keyring(previous)
    line = _lines(capsys)["keyring"]
    assert line.startswith("WARN") and "cannot be saved" in line


def _fake_app(factory: Any) -> types.ModuleType:
    module = types.ModuleType("localmind.app")
    module.create_main_window = factory  # type: ignore[attr-defined]
    return module


def test_uses_the_window_hook(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from PySide6.QtWidgets import QWidget

    built: list[argparse.Namespace] = []

    def create_main_window(args: argparse.Namespace) -> QWidget:
        built.append(args)
        window = QWidget()
        window.setWindowTitle("Hooked window")
        window.resize(640, 400)
        return window

    monkeypatch.setitem(sys.modules, "localmind.app", _fake_app(create_main_window))
    shot, report = tmp_path / "window.png", tmp_path / "report.txt"
    monkeypatch.setenv("LOCALMIND_SELFTEST_SCREENSHOT", str(shot))
    monkeypatch.setenv("LOCALMIND_SELFTEST_REPORT", str(report))
    args = _args()
    assert run_self_test(args) == 0
    line = _lines(capsys)["window"]
    assert line.startswith("PASS") and WINDOW_HOOK in line and "Hooked window" in line and "640x400" in line
    assert built == [args]
    assert shot.read_bytes().startswith(b"\x89PNG")
    assert "PASS  window" in report.read_text(encoding="utf-8")


def test_a_window_hook_that_raises_fails(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    def create_main_window(args: argparse.Namespace) -> Any:
        raise ImportError("No module named 'localmind.ui.chat_view'")  # how a module missing from a bundle shows up

    monkeypatch.setitem(sys.modules, "localmind.app", _fake_app(create_main_window))
    assert run_self_test(_args()) == 1
    line = _lines(capsys)["window"]
    assert line.startswith("FAIL") and "chat_view" in line
