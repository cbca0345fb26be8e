"""Compile the Windows installer with makensis, its defines filled from the package.

    python packaging/windows/build_installer.py [--payload dist/localmind] [--icon build/icons/localmind.ico]
                                                [--out dist/LocalMind-<version>-setup.exe] [--makensis PATH]

Runs on Windows (NSIS is on GitHub's Windows runners) and on Linux (Debian package ``nsis``), where the
tests compile the script against a stand-in payload so it is proven to compile on every change.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
SCRIPT = HERE / "localmind.nsi"
WINDOWS_NSIS = (Path(os.environ.get("PROGRAMFILES(X86)", r"C:\Program Files (x86)")) / "NSIS" / "makensis.exe",)


def project_version(pyproject: Path = ROOT / "pyproject.toml") -> str:
    match = re.search(r'^version\s*=\s*"([^"]+)"', pyproject.read_text(encoding="utf-8"), re.MULTILINE)
    if not match:
        raise SystemExit(f"{pyproject} has no version")
    return match.group(1)


def version_quad(version: str) -> str:
    """NSIS's VIProductVersion wants four numbers: 1.2.3rc1 -> 1.2.3.0."""
    numbers = [int(n) for n in re.findall(r"\d+", version.split("+")[0])][:3]
    return ".".join(str(n) for n in [*numbers, 0, 0, 0, 0][:4])


def find_makensis(explicit: str | None = None) -> str:
    if explicit:
        return explicit
    found = shutil.which("makensis")
    if found:
        return found
    for candidate in WINDOWS_NSIS:
        if candidate.exists():
            return str(candidate)
    raise SystemExit("makensis not found: install NSIS (Debian/Ubuntu: apt-get install nsis)")


def build(payload: Path, icon: Path, out: Path, version: str, makensis: str) -> Path:
    if not (payload / "LocalMind.exe").exists():
        raise SystemExit(f"{payload} has no LocalMind.exe: build the Windows bundle first (make bundle)")
    if not icon.exists():
        raise SystemExit(f"{icon} is missing: run make icons")
    out.parent.mkdir(parents=True, exist_ok=True)
    command = [
        makensis,
        "-V2",
        "-WX",  # warnings are errors: a script that only warns today breaks tomorrow
        f"-DVERSION={version}",
        f"-DVERSION_QUAD={version_quad(version)}",
        f"-DPAYLOAD={payload.resolve()}",
        f"-DICON={icon.resolve()}",
        f"-DOUTFILE={out.resolve()}",
        str(SCRIPT),
    ]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        sys.stderr.write(result.stdout + result.stderr)
        raise SystemExit(f"makensis failed (exit {result.returncode})")
    return out


def main(argv: list[str] | None = None) -> int:
    version = project_version()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--payload", type=Path, default=ROOT / "dist" / "localmind")
    parser.add_argument("--icon", type=Path, default=ROOT / "build" / "icons" / "localmind.ico")
    parser.add_argument("--out", type=Path, default=ROOT / "dist" / f"LocalMind-{version}-setup.exe")
    parser.add_argument("--version", default=version, help="default: the version in pyproject.toml")
    parser.add_argument("--makensis", help="path to makensis (default: PATH, then NSIS's Windows folder)")
    args = parser.parse_args(argv)
    print(build(args.payload, args.icon, args.out, args.version, find_makensis(args.makensis)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
