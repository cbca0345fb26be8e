"""Issue 21: the file dialog's own labels were English in the Chinese interface.

Two causes: the bundle dropped Qt's own translations (packaging/localmind.spec), and Qt's Chinese catalog lacks two
labels of the dialog as Qt 6 writes them ("&Look in:", "Files of &type:"), which resources/translations/
dialogs_zh_CN.ts translates. The dialog is Qt's own (the one it uses where the desktop offers none, as under X
without a desktop, and with DontUseNativeDialog); a platform dialog speaks the system's language.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QLibraryInfo, Qt
from PySide6.QtWidgets import QApplication, QComboBox, QFileDialog, QWidget

from localmind.ui.i18n import Translations

pytestmark = pytest.mark.gui
REPO = Path(__file__).resolve().parents[2]


def english_texts(dialog: QFileDialog) -> list[str]:
    found = []
    for widget in dialog.findChildren(QWidget):
        texts = [getattr(widget, "text", str)(), widget.toolTip(), widget.accessibleName()]
        if isinstance(widget, QComboBox):
            texts += [widget.itemText(i) for i in range(widget.count())]
        words = [t for t in texts if re.search(r"[A-Za-z]{3}", t) and not t.startswith("/")]  # paths are no words
        found += [f"{type(widget).__name__} {widget.objectName()}: {t!r}" for t in words]
    model = dialog.findChild(QWidget, "treeView").model()  # type: ignore[union-attr]
    for column in range(model.columnCount()):
        header = str(model.headerData(column, Qt.Orientation.Horizontal))
        if re.search(r"[A-Za-z]{3}", header):
            found.append(f"column {column}: {header!r}")
    return found


def test_qts_file_dialog_speaks_chinese(qtbot: Any, tmp_path: Path) -> None:
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    translations = Translations.for_app(app)
    try:
        assert translations.apply("zh_CN") == "zh_CN"
        dialog = QFileDialog(None, "", str(tmp_path))
        dialog.setOption(QFileDialog.Option.DontUseNativeDialog)
        dialog.setFileMode(QFileDialog.FileMode.Directory)
        qtbot.addWidget(dialog)
        dialog.show()
        assert english_texts(dialog) == []
        labels = {w.objectName(): w.text() for w in dialog.findChildren(QWidget) if hasattr(w, "text")}
        assert labels["lookInLabel"] == "查找范围(&L)："
    finally:
        translations.apply("en")


def test_the_bundle_keeps_qts_chinese_words() -> None:
    """The spec drops Qt's translations but keeps qtbase_zh_CN.qm (and the file exists where the spec takes it)."""
    spec = (REPO / "packaging" / "localmind.spec").read_text(encoding="utf-8")
    wanted = {"DROP_PARTS", "KEEP_QT_TRANSLATIONS", "keep"}
    parts = [n for n in ast.parse(spec).body if getattr(n, "name", None) in wanted or _assigns(n) & wanted]
    namespace: dict[str, Any] = {}
    exec(compile(ast.Module(body=parts, type_ignores=[]), "localmind.spec", "exec"), namespace)
    keep = namespace["keep"]
    assert keep(("PySide6/Qt/translations/qtbase_zh_CN.qm", "", "DATA"))
    assert not keep(("PySide6/Qt/translations/qtbase_de.qm", "", "DATA"))
    assert (Path(QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)) / "qtbase_zh_CN.qm").is_file()


def _assigns(node: ast.stmt) -> set[str]:
    if isinstance(node, ast.Assign):
        return {t.id for t in node.targets if isinstance(t, ast.Name)}
    return set()
