"""The installers' sources: the NSIS script compiles, the .desktop entry is valid, the icons are well formed."""

from __future__ import annotations

import importlib.util
import struct
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.packaging.tools import require_tool

ROOT = Path(__file__).resolve().parents[2]
NSIS_SCRIPT = ROOT / "packaging" / "windows" / "localmind.nsi"
DESKTOP_ENTRY = ROOT / "packaging" / "linux" / "localmind.desktop"


def _load(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


build_installer = _load(ROOT / "packaging" / "windows" / "build_installer.py")


@pytest.fixture(scope="module")
def icons(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("icons")
    subprocess.run(
        [sys.executable, str(ROOT / "resources" / "icons" / "make_icons.py"), str(out)], check=True, capture_output=True
    )
    return out


@pytest.fixture
def stand_in_payload(tmp_path: Path) -> Path:
    """What PyInstaller leaves in dist/localmind on Windows, in miniature."""
    payload = tmp_path / "payload"
    (payload / "_internal" / "PySide6").mkdir(parents=True)
    (payload / "LocalMind.exe").write_bytes(b"MZ" + bytes(4094))
    (payload / "_internal" / "base_library.zip").write_bytes(b"PK\x05\x06" + bytes(18))
    (payload / "_internal" / "PySide6" / "Qt6Core.dll").write_bytes(b"MZ" + bytes(1022))
    return payload


def _pe_machine(exe: Path) -> int:
    data = exe.read_bytes()
    assert data[:2] == b"MZ", "not a Windows executable"
    pe_offset = struct.unpack_from("<I", data, 0x3C)[0]
    assert data[pe_offset : pe_offset + 4] == b"PE\0\0"
    return int(struct.unpack_from("<H", data, pe_offset + 4)[0])


def test_nsis_script_compiles_to_a_64_bit_installer(icons: Path, stand_in_payload: Path, tmp_path: Path) -> None:
    makensis = require_tool("makensis", "nsis")
    out = tmp_path / "LocalMind-0.1.0-setup.exe"
    built = build_installer.build(stand_in_payload, icons / "localmind.ico", out, "0.1.0", makensis)
    assert built == out
    assert _pe_machine(out) == 0x8664  # x64
    assert out.stat().st_size > 100_000  # the NSIS stub, the uninstaller and the compressed payload


def test_nsis_build_refuses_a_payload_without_the_app(icons: Path, tmp_path: Path) -> None:
    makensis = require_tool("makensis", "nsis")
    (tmp_path / "empty").mkdir()
    with pytest.raises(SystemExit, match=r"no LocalMind\.exe"):
        build_installer.build(tmp_path / "empty", icons / "localmind.ico", tmp_path / "x-setup.exe", "0.1.0", makensis)


def test_nsis_script_needs_its_defines() -> None:
    makensis = require_tool("makensis", "nsis")
    result = subprocess.run([makensis, "-V1", str(NSIS_SCRIPT)], capture_output=True, text=True, check=False)
    assert result.returncode != 0
    assert "Define VERSION" in result.stdout + result.stderr


def test_nsis_script_installs_per_user_and_keeps_user_data_by_default() -> None:
    script = NSIS_SCRIPT.read_text(encoding="utf-8")
    assert "RequestExecutionLevel user" in script
    assert 'InstallDir "$LOCALAPPDATA\\Programs\\${APP_NAME}"' in script
    assert 'WriteRegStr HKCU "${UNINSTALL_KEY}" "DisplayVersion" "${VERSION}"' in script
    assert "HKLM" not in script  # nothing that needs administrator rights
    # The data-removal section is unselected (/o) unless the user asks.
    assert 'Section /o "un.Also delete my chats' in script


@pytest.mark.parametrize(
    ("version", "quad"), [("0.1.0", "0.1.0.0"), ("1.2", "1.2.0.0"), ("1.2.3rc1", "1.2.3.0"), ("2.0.1+local", "2.0.1.0")]
)
def test_version_quad(version: str, quad: str) -> None:
    assert build_installer.version_quad(version) == quad


def test_installer_version_comes_from_the_package() -> None:
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert f'version = "{build_installer.project_version()}"' in text


def test_desktop_entry_is_valid() -> None:
    validate = require_tool("desktop-file-validate", "desktop-file-utils")
    result = subprocess.run([validate, str(DESKTOP_ENTRY)], capture_output=True, text=True, check=False)
    assert result.returncode == 0 and not result.stdout.strip(), result.stdout + result.stderr
    entry = DESKTOP_ENTRY.read_text(encoding="utf-8")
    assert "\nExec=localmind\n" in entry and "\nIcon=localmind\n" in entry


def test_desktop_validation_catches_a_broken_entry(tmp_path: Path) -> None:
    validate = require_tool("desktop-file-validate", "desktop-file-utils")
    broken = tmp_path / "localmind.desktop"
    broken.write_text(DESKTOP_ENTRY.read_text(encoding="utf-8").replace("Type=Application\n", ""), encoding="utf-8")
    assert subprocess.run([validate, str(broken)], capture_output=True, check=False).returncode != 0


def test_icons_are_generated_in_every_format(icons: Path) -> None:
    ico = (icons / "localmind.ico").read_bytes()
    reserved, kind, count = struct.unpack_from("<HHH", ico)
    assert (reserved, kind) == (0, 1) and count == 7
    sizes = sorted(ico[6 + 16 * i] or 256 for i in range(count))
    assert sizes == [16, 24, 32, 48, 64, 128, 256]
    icns = (icons / "localmind.icns").read_bytes()
    assert icns[:4] == b"icns" and struct.unpack(">I", icns[4:8])[0] == len(icns)
    assert b"ic10" in icns  # 1024 px, what Retina displays use for the Dock
    for size in (16, 32, 48, 64, 128, 256, 512):
        png = icons / "hicolor" / f"{size}x{size}" / "apps" / "localmind.png"
        header = png.read_bytes()[:24]
        assert header[:8] == b"\x89PNG\r\n\x1a\n" and struct.unpack(">II", header[16:24]) == (size, size)
    assert (icons / "hicolor" / "scalable" / "apps" / "localmind.svg").exists()
