"""A cited PDF opens at its page where the system's PDF viewer takes a page; otherwise the file opens plainly and the
dialog shows the passage. The command lines, the freedesktop lookup of the default viewer, and the dialog with a real
(stand-in) viewer process."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import pytest

from localmind.documents.open_at import linux_pdf_viewer, open_at_page_command, page_command

PDF = Path("/home/ana/Field notes/report #2 长城.pdf")
SUMATRA = "C:\\Program Files\\SumatraPDF\\SumatraPDF.exe"


@pytest.mark.parametrize(
    ("viewer", "expected"),
    [
        (["evince"], ["evince", "--page-index=3", str(PDF)]),
        (["/usr/bin/atril"], ["/usr/bin/atril", "--page-index=3", str(PDF)]),
        (["okular"], ["okular", "--page", "3", str(PDF)]),
        (["zathura"], ["zathura", "--page=3", str(PDF)]),
        (["mupdf"], ["mupdf", str(PDF), "3"]),
        (["firefox"], ["firefox", PDF.as_uri() + "#page=3"]),
        (["google-chrome-stable", "--new-window"], ["google-chrome-stable", "--new-window", PDF.as_uri() + "#page=3"]),
        (
            ["C:\\Program Files\\SumatraPDF\\SumatraPDF.exe"],
            ["C:\\Program Files\\SumatraPDF\\SumatraPDF.exe", "-page", "3", str(PDF)],
        ),
        (["C:\\Adobe\\Reader\\AcroRd32.exe"], ["C:\\Adobe\\Reader\\AcroRd32.exe", "/A", "page=3", str(PDF)]),
    ],
)
def test_page_arguments_of_known_viewers(viewer: list[str], expected: list[str]) -> None:
    assert page_command(viewer, PDF, 3) == expected


def test_the_browser_url_escapes_the_name_and_unknown_viewers_get_nothing() -> None:
    url = page_command(["firefox"], PDF, 3)[-1]  # type: ignore[index]
    assert url.endswith("report%20%232%20%E9%95%BF%E5%9F%8E.pdf#page=3")  # '#' in the name is not the fragment
    assert page_command(["qpdfview"], PDF, 3) is None  # it would read "#2 长城.pdf" as the page
    assert page_command(["qpdfview", "--unique"], Path("/tmp/a.pdf"), 3) == ["qpdfview", "--unique", "/tmp/a.pdf#3"]
    assert page_command(["gimp"], PDF, 3) is None and page_command(["evince"], PDF, 0) is None


def test_only_pdfs_with_a_page_and_a_known_viewer_get_a_command(tmp_path: Path) -> None:
    def evince() -> list[str]:
        return ["evince"]

    assert open_at_page_command(tmp_path / "a.pdf", 2, evince) == ["evince", "--page-index=2", str(tmp_path / "a.pdf")]
    assert open_at_page_command(tmp_path / "a.PDF", 2, evince) is not None
    assert open_at_page_command(tmp_path / "a.pdf", None, evince) is None
    assert open_at_page_command(tmp_path / "a.docx", 2, evince) is None
    assert open_at_page_command(Path("relative.pdf"), 2, evince) is None
    assert open_at_page_command(tmp_path / "a.pdf", 2, lambda: None) is None  # no default viewer: open plainly
    assert open_at_page_command(tmp_path / "a.pdf", 2, lambda: ["preview"]) is None


def xdg_env(root: Path, desktops: dict[str, str], lists: dict[str, str], current: str = "") -> dict[str, str]:
    (root / "config").mkdir(parents=True)
    apps = root / "data" / "applications"
    apps.mkdir(parents=True)
    for name, exec_line in desktops.items():
        (apps / name).write_text(f"[Desktop Entry]\nType=Application\nName=X\nExec={exec_line}\n", encoding="utf-8")
    for name, default in lists.items():
        (root / "config" / name).write_text(f"[Default Applications]\napplication/pdf={default}\n", encoding="utf-8")
    return {
        "HOME": str(root),
        "XDG_CONFIG_HOME": str(root / "config"),
        "XDG_CONFIG_DIRS": str(root / "none"),
        "XDG_DATA_HOME": str(root / "data"),
        "XDG_DATA_DIRS": str(root / "none"),
        "XDG_CURRENT_DESKTOP": current,
    }


def test_the_default_viewer_comes_from_mimeapps_list_and_the_desktop_entry(tmp_path: Path) -> None:
    env = xdg_env(
        tmp_path / "a",
        {"org.gnome.Evince.desktop": "evince %U", "okular.desktop": "env QT_SCALE=1 okular --unique %U"},
        {"mimeapps.list": "gone.desktop;org.gnome.Evince.desktop;"},
    )
    assert linux_pdf_viewer(env) == ["evince"]  # the first entry that exists
    env = xdg_env(
        tmp_path / "b",
        {"org.gnome.Evince.desktop": "evince %U", "okular.desktop": "env QT_SCALE=1 okular --unique %U"},
        {"mimeapps.list": "org.gnome.Evince.desktop", "kde-mimeapps.list": "okular.desktop"},
        current="KDE",
    )
    assert linux_pdf_viewer(env) == ["okular", "--unique"]  # the desktop's own list first; env and %U dropped
    assert linux_pdf_viewer(xdg_env(tmp_path / "c", {}, {})) is None
    assert (
        linux_pdf_viewer(xdg_env(tmp_path / "d", {"x.desktop": "evince %U"}, {"mimeapps.list": "../x.desktop"})) is None
    )


def fake_viewer(folder: Path, record: Path) -> Path:
    """A stand-in for evince (none is installed here): a real program that writes down the arguments it got."""
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / "evince"
    script.write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > "{record}.tmp" && mv "{record}.tmp" "{record}"\n')
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script


@pytest.mark.gui
def test_the_source_dialog_opens_the_pdf_at_its_page_in_the_default_viewer(
    qtbot: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, corpus: Path
) -> None:
    from PySide6.QtCore import Qt

    from localmind.ui.documents_chat import SourceDialog

    record = tmp_path / "viewer-args.txt"
    script = fake_viewer(tmp_path / "bin", record)
    env = xdg_env(
        tmp_path / "xdg", {"org.gnome.Evince.desktop": f"{script} %U"}, {"mimeapps.list": "org.gnome.Evince.desktop"}
    )
    for key, value in env.items():
        if key != "HOME":
            monkeypatch.setenv(key, value)
    pdf = corpus / "field-notes.pdf"
    dialog = SourceDialog(None, "field-notes.pdf p. 3", "The rain gauge recorded 417 millimetres.", str(pdf), 3)
    qtbot.addWidget(dialog)
    assert dialog.open_button.text() == "Open at page 3"
    qtbot.mouseClick(dialog.open_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(record.exists, timeout=20000)
    assert record.read_text(encoding="utf-8").splitlines() == ["--page-index=3", str(pdf)]
    assert dialog.opened_with == [str(script), "--page-index=3", str(pdf)]


@pytest.mark.gui
def test_without_a_page_viewer_the_file_opens_plainly_and_the_passage_is_shown(
    qtbot: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, corpus: Path
) -> None:
    from PySide6.QtCore import QObject, Qt, QUrl, Slot
    from PySide6.QtGui import QDesktopServices
    from PySide6.QtWidgets import QPlainTextEdit

    from localmind.ui.documents_chat import SourceDialog

    class Opened(QObject):
        def __init__(self) -> None:
            super().__init__()
            self.urls: list[QUrl] = []

        @Slot(QUrl)
        def open(self, url: QUrl) -> None:
            self.urls.append(url)

    opened = Opened()
    QDesktopServices.setUrlHandler("file", opened, "open")  # the desktop's open call, observed
    try:
        env = xdg_env(tmp_path / "xdg", {"gimp.desktop": "gimp %U"}, {"mimeapps.list": "gimp.desktop"})
        for key, value in env.items():
            if key != "HOME":
                monkeypatch.setenv(key, value)
        pdf = corpus / "field-notes.pdf"
        dialog = SourceDialog(None, "field-notes.pdf p. 3", "The rain gauge recorded 417 millimetres.", str(pdf), 3)
        qtbot.addWidget(dialog)
        assert dialog.open_button.text() == "Open the file" and dialog.command is None
        assert "417 millimetres" in dialog.findChild(QPlainTextEdit).toPlainText()
        qtbot.mouseClick(dialog.open_button, Qt.MouseButton.LeftButton)
        assert [u.toLocalFile() for u in opened.urls] == [str(pdf)]

        # A viewer that is named in the settings but will not start: the same plain open.
        monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg2"))
        (tmp_path / "xdg2").mkdir()
        (tmp_path / "xdg2" / "mimeapps.list").write_text("[Default Applications]\napplication/pdf=ev.desktop\n")
        apps = Path(os.environ["XDG_DATA_HOME"]) / "applications"
        (apps / "ev.desktop").write_text(f"[Desktop Entry]\nExec={tmp_path / 'missing' / 'evince'} %U\n")
        dialog = SourceDialog(None, "field-notes.pdf p. 3", "text", str(pdf), 3)
        qtbot.addWidget(dialog)
        assert dialog.open_button.text() == "Open at page 3"
        qtbot.mouseClick(dialog.open_button, Qt.MouseButton.LeftButton)
        assert dialog.opened_with is None and len(opened.urls) == 2
    finally:
        QDesktopServices.unsetUrlHandler("file")
