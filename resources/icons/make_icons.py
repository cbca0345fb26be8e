"""Generate every icon file the installers need from the one source image, localmind.svg.

    python resources/icons/make_icons.py [OUT_DIR]     (default: build/icons)

Writes:
    png/localmind-<N>.png                  N in SIZES (window icon, AppImage, docs)
    hicolor/<N>x<N>/apps/localmind.png     the freedesktop icon theme layout (.deb, AppDir)
    hicolor/scalable/apps/localmind.svg
    localmind.ico                          Windows: bitmaps up to 48 px, PNG at 256 px
    localmind.icns                         macOS: PNG entries from 16 px to 1024 px

Nothing generated is committed; the build runs this. It needs only PySide6 (QtSvg renders the source).
"""

from __future__ import annotations

import os
import shutil
import struct
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "localmind.svg"
SIZES = (16, 24, 32, 48, 64, 128, 256, 512, 1024)
ICO_SIZES = (16, 24, 32, 48, 64, 128, 256)
HICOLOR_SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
# icns element types holding PNG data, by pixel size (the @2x types reuse the larger renders).
ICNS_TYPES = (
    (b"icp4", 16),
    (b"icp5", 32),
    (b"icp6", 64),
    (b"ic07", 128),
    (b"ic08", 256),
    (b"ic09", 512),
    (b"ic10", 1024),
    (b"ic11", 32),
    (b"ic12", 64),
    (b"ic13", 256),
    (b"ic14", 512),
)


def render(size: int) -> object:
    """The source drawn at ``size`` x ``size`` as a premultiplied-free ARGB32 QImage."""
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    renderer = QSvgRenderer(str(SOURCE))
    if not renderer.isValid():
        raise SystemExit(f"{SOURCE} is not a valid SVG")
    image = QImage(size, size, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
    renderer.render(painter)
    painter.end()
    return image


def png_bytes(image: object) -> bytes:
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice

    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    if not image.save(buffer, "PNG"):  # type: ignore[attr-defined]
        raise SystemExit("Qt could not encode a PNG")
    buffer.close()
    return bytes(data.data())


def dib_bytes(image: object) -> bytes:
    """A 32-bit BGRA device-independent bitmap as ICO stores it: bottom-up, then a 1-bit AND mask."""
    size = image.width()  # type: ignore[attr-defined]
    rows = [bytes(image.constScanLine(y))[: size * 4] for y in range(size)]  # type: ignore[attr-defined]
    if sys.byteorder != "little":  # ARGB32 is 0xAARRGGBB per pixel: BGRA in memory on little-endian only
        rows = [b"".join(row[i : i + 4][::-1] for i in range(0, len(row), 4)) for row in rows]
    header = struct.pack("<IiiHHIIiiII", 40, size, size * 2, 1, 32, 0, 0, 0, 0, 0, 0)
    mask_row = bytes(((size + 31) // 32) * 4)  # all zero: alpha decides
    return header + b"".join(reversed(rows)) + mask_row * size


def write_ico(path: Path, images: dict[int, object]) -> None:
    entries = [(s, png_bytes(images[s]) if s >= 256 else dib_bytes(images[s])) for s in ICO_SIZES]
    offset = 6 + 16 * len(entries)
    directory, blobs = b"", b""
    for size, blob in entries:
        side = 0 if size >= 256 else size  # 0 means 256 in an ICO directory
        directory += struct.pack("<BBBBHHII", side, side, 0, 0, 1, 32, len(blob), offset)
        offset += len(blob)
        blobs += blob
    path.write_bytes(struct.pack("<HHH", 0, 1, len(entries)) + directory + blobs)


def write_icns(path: Path, images: dict[int, object]) -> None:
    body = b"".join(
        kind + struct.pack(">I", 8 + len(data)) + data
        for kind, data in ((k, png_bytes(images[s])) for k, s in ICNS_TYPES)
    )
    path.write_bytes(b"icns" + struct.pack(">I", 8 + len(body)) + body)


def main(argv: list[str]) -> int:
    out = Path(argv[1]) if len(argv) > 1 else HERE.parent.parent / "build" / "icons"
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtGui import QGuiApplication

    _app = QGuiApplication.instance() or QGuiApplication([argv[0]])  # Qt painting wants an application
    images = {size: render(size) for size in SIZES}
    (out / "png").mkdir(parents=True, exist_ok=True)
    for size, image in images.items():
        (out / "png" / f"localmind-{size}.png").write_bytes(png_bytes(image))
    for size in HICOLOR_SIZES:
        folder = out / "hicolor" / f"{size}x{size}" / "apps"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "localmind.png").write_bytes(png_bytes(images[size]))
    scalable = out / "hicolor" / "scalable" / "apps"
    scalable.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(SOURCE, scalable / "localmind.svg")
    write_ico(out / "localmind.ico", images)
    write_icns(out / "localmind.icns", images)
    print(out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
