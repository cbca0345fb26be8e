"""Open a cited PDF at its page, with the viewer the system opens PDFs with — where that viewer takes a page.

There is no portable "open at page": the desktop's open call (xdg-open, ShellExecute, ``open``) takes a file, and a
``#page=N`` fragment on a file URL is honoured by browsers' PDF viewers only. So LocalMind finds the default PDF
application (Linux: the freedesktop ``mimeapps.list`` files and the application's ``.desktop`` entry; Windows: the
association of ``.pdf``) and, when it is a viewer whose page argument is known, builds its command line:

    evince / atril / xreader  --page-index=N FILE        (1-based page index; Debian 12 man pages)
    okular                    --page N FILE              (man page)
    zathura                   --page=N FILE              (1-based; man page)
    mupdf                     FILE N                     (man page)
    qpdfview                  FILE#N                     (man page)
    firefox, chromium, chrome, edge, brave  file:///…#page=N   (their built-in PDF viewers read the fragment)
    SumatraPDF                -page N FILE               (its documented command line; not run here)
    Acrobat / Acrobat Reader  /A page=N FILE             (Adobe's "open parameters"; not run here)

Anything else (macOS, a viewer not listed, a sandboxed Flatpak launcher): None, and the window opens the file the
ordinary way while its dialog shows the passage itself.
"""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Callable, Mapping
from configparser import ConfigParser
from configparser import Error as ConfigError
from pathlib import Path

PDF_MIME = "application/pdf"
_FIELD_CODES = {"%f", "%F", "%u", "%U", "%d", "%D", "%n", "%N", "%i", "%c", "%k", "%v", "%m"}
_EVINCE_LIKE = {"evince", "atril", "xreader"}
_BROWSERS = {
    "firefox",
    "firefox-esr",
    "chromium",
    "chromium-browser",
    "chrome",
    "google-chrome",
    "google-chrome-stable",
    "msedge",
    "microsoft-edge",
    "microsoft-edge-stable",
    "brave",
    "brave-browser",
}


def viewer_name(argv: list[str]) -> str:
    """``evince`` for ``/usr/bin/evince``, ``sumatrapdf`` for ``C:\\…\\SumatraPDF.exe``."""
    name = argv[0].replace("\\", "/").rsplit("/", 1)[-1].lower()
    return name[:-4] if name.endswith(".exe") else name


def page_command(viewer: list[str], file: Path, page: int) -> list[str] | None:
    """The command that opens ``file`` at ``page`` (1-based) in ``viewer`` (its command line without the file), or
    None when LocalMind does not know how that viewer takes a page."""
    if not viewer or page < 1:
        return None
    path = str(file)
    name = viewer_name(viewer)
    if name in _EVINCE_LIKE:
        return [*viewer, f"--page-index={page}", path]
    if name == "okular":
        return [*viewer, "--page", str(page), path]
    if name == "zathura":
        return [*viewer, f"--page={page}", path]
    if name in ("mupdf", "mupdf-gl", "mupdf-x11"):
        return [*viewer, path, str(page)]
    if name == "qpdfview":
        return None if "#" in path else [*viewer, f"{path}#{page}"]  # a '#' in the name would be read as the page
    if name in _BROWSERS:
        return [*viewer, f"{file.as_uri()}#page={page}"]
    if name == "sumatrapdf":
        return [*viewer, "-page", str(page), path]
    if name in ("acrord32", "acrobat"):
        return [*viewer, "/A", f"page={page}", path]
    return None


# -- which application opens PDFs ------------------------------------------------------------------------------------
def _split_dirs(value: str | None, default: str) -> list[Path]:
    return [Path(p) for p in (value or default).split(os.pathsep) if p]


def _xdg_dirs(env: Mapping[str, str]) -> tuple[list[Path], list[Path]]:
    """(folders holding mimeapps.list, folders holding .desktop files), most important first (XDG spec order)."""
    home = Path(env.get("HOME") or Path.home())
    config_home = Path(env.get("XDG_CONFIG_HOME") or home / ".config")
    data_home = Path(env.get("XDG_DATA_HOME") or home / ".local" / "share")
    config_dirs = _split_dirs(env.get("XDG_CONFIG_DIRS"), "/etc/xdg")
    data_dirs = _split_dirs(env.get("XDG_DATA_DIRS"), "/usr/local/share:/usr/share")
    applications = [data_home / "applications", *(d / "applications" for d in data_dirs)]
    return [config_home, *config_dirs, *applications], applications


def _read_ini(path: Path) -> ConfigParser | None:
    parser = ConfigParser(interpolation=None, strict=False)
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # keys are case-sensitive in these files
    try:
        parser.read_string(path.read_text(encoding="utf-8", errors="replace"))
    except (OSError, ConfigError):
        return None
    return parser


def _desktop_file(desktop_id: str, applications: list[Path]) -> Path | None:
    if "/" in desktop_id or not desktop_id.endswith(".desktop"):
        return None
    for folder in applications:
        candidate = folder / desktop_id
        if candidate.is_file():
            return candidate
    return None


def _exec_argv(desktop: Path) -> list[str] | None:
    """The application's command line from its Exec key, without the field codes (%U, %f…)."""
    parser = _read_ini(desktop)
    if parser is None or not parser.has_option("Desktop Entry", "Exec"):
        return None
    try:
        argv = shlex.split(parser.get("Desktop Entry", "Exec"))
    except ValueError:
        return None
    argv = [a for a in argv if a not in _FIELD_CODES]
    while argv and (argv[0] == "env" or "=" in argv[0]):  # env VAR=value… in front of the program
        argv = argv[1:]
    return argv or None


def linux_pdf_viewer(env: Mapping[str, str] | None = None) -> list[str] | None:
    """The default PDF application's command line (without the file) from the mimeapps.list files, else None."""
    env = os.environ if env is None else env
    list_dirs, applications = _xdg_dirs(env)
    desktops = [d.lower() for d in env.get("XDG_CURRENT_DESKTOP", "").split(":") if d]
    for folder in list_dirs:
        for name in [f"{d}-mimeapps.list" for d in desktops] + ["mimeapps.list"]:
            parser = _read_ini(folder / name)
            if parser is None or not parser.has_option("Default Applications", PDF_MIME):
                continue
            for desktop_id in parser.get("Default Applications", PDF_MIME).split(";"):
                desktop = _desktop_file(desktop_id.strip(), applications)
                if desktop is not None:
                    return _exec_argv(desktop)
    return None


def windows_pdf_viewer() -> list[str] | None:  # pragma: no cover - runs on Windows only
    """The executable Windows opens .pdf files with (AssocQueryStringW, ASSOCSTR_EXECUTABLE), else None."""
    import ctypes
    from ctypes import wintypes

    windll = getattr(ctypes, "windll", None)
    if windll is None:
        return None
    size = wintypes.DWORD(1024)
    buffer = ctypes.create_unicode_buffer(size.value)
    if windll.shlwapi.AssocQueryStringW(0, 2, ".pdf", "open", buffer, ctypes.byref(size)) != 0:
        return None
    return [buffer.value] if buffer.value else None


def default_pdf_viewer(platform: str | None = None, env: Mapping[str, str] | None = None) -> list[str] | None:
    platform = platform or sys.platform
    if platform.startswith("linux") or "bsd" in platform:
        return linux_pdf_viewer(env)
    if platform == "win32":
        return windows_pdf_viewer()
    return None  # macOS: Preview takes no page argument; `open` opens the file


def open_at_page_command(
    file: Path, page: int | None, viewer: Callable[[], list[str] | None] = default_pdf_viewer
) -> list[str] | None:
    """The command that opens a cited PDF at its page with the system's PDF viewer, or None (open it plainly)."""
    if page is None or file.suffix.lower() != ".pdf" or not file.is_absolute():
        return None
    argv = viewer()
    return page_command(argv, file, page) if argv else None
