"""The layers stay apart: core/ and engine/ never import Qt; nothing below ui/ imports ui/ or app."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "localmind"


def imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def files(layer: str) -> list[Path]:
    return sorted((SRC / layer).rglob("*.py"))


def test_core_and_engine_do_not_import_qt() -> None:
    offenders = [
        f"{p.relative_to(SRC)} imports {name}"
        for layer in ("core", "engine", "server", "documents")
        for p in files(layer)
        for name in imports(p)
        if name.split(".")[0] in {"PySide6", "shiboken6", "PyQt5", "PyQt6"}
    ]
    assert files("core") or files("engine")
    assert offenders == []


def test_workers_and_models_use_qtcore_only() -> None:
    offenders = [
        f"{p.relative_to(SRC)} imports {name}"
        for layer in ("workers", "models")
        for p in files(layer)
        for name in imports(p)
        if name.startswith("PySide6.") and name not in {"PySide6.QtCore"}
    ]
    assert offenders == []


def test_nothing_below_ui_imports_ui_or_app() -> None:
    offenders = [
        f"{p.relative_to(SRC)} imports {name}"
        for layer in ("core", "engine", "documents", "workers", "models")
        for p in files(layer)
        for name in imports(p)
        if name.startswith(("localmind.ui", "localmind.app"))
    ]
    assert offenders == []


def test_the_check_can_fail(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("from PySide6.QtWidgets import QWidget\nimport PySide6\n")
    assert imports(bad) == {"PySide6.QtWidgets", "PySide6"}
