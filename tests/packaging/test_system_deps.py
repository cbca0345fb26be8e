"""`make run` installs what Qt needs to open a window on a fresh Debian/Ubuntu desktop (scripts/system-deps.sh run)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "system-deps.sh"

# From the project's notes on a fresh Debian 12 minbase (packaging-and-qt.md): offscreen Qt, then a real window.
NOTES_OFFSCREEN = ["libglib2.0-0", "libgl1", "libegl1", "libfontconfig1", "libxkbcommon0", "libdbus-1-3"]
NOTES_WINDOW = [
    "libxcb-cursor0",
    "libxcb-icccm4",
    "libxcb-image0",
    "libxcb-keysyms1",
    "libxcb-render-util0",
    "libxcb-shape0",
    "libxkbcommon-x11-0",
]
NOTES_FONTS = ["fonts-wqy-microhei"]
# The libraries of Qt's xcb plugin that a desktop install may lack; everything else it links is a dependency of these.
QT_FACING = re.compile(r"^lib(xcb|X11|xkbcommon|GL\.|EGL\.|fontconfig|glib|gthread|dbus)")

pytestmark = pytest.mark.skipif(
    sys.platform == "win32" or shutil.which("bash") is None, reason="a bash script for Debian/Ubuntu"
)


def package_set(profile: str) -> list[str]:
    out = subprocess.run(["bash", str(SCRIPT), "--list", profile], capture_output=True, text=True, check=True)
    return out.stdout.split()


def test_the_run_set_has_what_the_notes_say_a_window_needs() -> None:
    run = package_set("run")
    missing = [p for p in NOTES_OFFSCREEN + NOTES_WINDOW + NOTES_FONTS if p not in run]
    assert missing == []
    # A user's `make run` installs no test or packaging tools.
    assert not {"nsis", "desktop-file-utils", "xvfb", "imagemagick", "binutils"} & set(run)
    assert len(run) == len(set(run))


def test_every_set_that_opens_a_window_has_the_xcb_libraries() -> None:
    run = set(package_set("run"))
    xcb = {p for p in run if p.startswith(("libxcb", "libx11", "libxkbcommon-x11"))}
    for profile in ("window", "package"):
        assert xcb <= set(package_set(profile)), profile
    assert "xvfb" in package_set("window")


def test_an_unknown_set_is_refused() -> None:
    result = subprocess.run(["bash", str(SCRIPT), "--list", "everything"], capture_output=True, text=True, check=False)
    assert result.returncode == 2 and "usage" in result.stderr


@pytest.mark.skipif(
    not sys.platform.startswith("linux") or shutil.which("dpkg-query") is None or shutil.which("ldd") is None,
    reason="reads the installed Qt plugin's libraries with ldd and asks dpkg which package holds each",
)
def test_the_run_set_covers_the_libraries_of_the_installed_qt_xcb_plugin() -> None:
    import PySide6

    qt = Path(PySide6.__file__).parent / "Qt"
    plugin = qt / "plugins" / "platforms" / "libqxcb.so"
    assert plugin.is_file()
    out = subprocess.run(["ldd", str(plugin)], capture_output=True, text=True, check=True).stdout
    not_found = re.findall(r"^\s*(\S+) => not found", out, flags=re.MULTILINE)
    if not_found:
        pytest.skip(f"this machine lacks {', '.join(not_found)}: dpkg cannot tell their packages")
    run = set(package_set("run"))
    packages: dict[str, str] = {}
    for soname, path in re.findall(r"^\s*(\S+) => (/\S+)", out, flags=re.MULTILINE):
        if not QT_FACING.match(soname) or str(qt) in path:
            continue
        owner = subprocess.run(["dpkg", "-S", str(Path(path).resolve())], capture_output=True, text=True, check=False)
        if owner.returncode != 0:  # usr-merge: the same file under /lib and /usr/lib
            alt = str(Path(path).resolve()).replace("/usr/lib/", "/lib/", 1)
            owner = subprocess.run(["dpkg", "-S", alt], capture_output=True, text=True, check=False)
        assert owner.returncode == 0, f"no package owns {path}"
        packages[soname] = owner.stdout.split(":")[0]
    assert "libxcb-cursor.so.0" in packages  # the one a fresh desktop lacks
    missing = {soname: pkg for soname, pkg in packages.items() if pkg not in run}
    assert missing == {}, f"scripts/system-deps.sh run lacks {missing}"
