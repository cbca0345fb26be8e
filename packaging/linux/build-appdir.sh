#!/usr/bin/env bash
# Lay out the AppDir for the AppImage from the PyInstaller bundle.
#
#   packaging/linux/build-appdir.sh [BUNDLE_DIR] [ICONS_DIR] [APPDIR]
#     defaults: dist/localmind  build/icons  build/LocalMind.AppDir
#
# appimagetool (downloaded on a CI runner; Debian has none) turns it into the AppImage:
#   ARCH=x86_64 appimagetool build/LocalMind.AppDir dist/LocalMind-<version>-x86_64.AppImage
# Check it here without the tool: build/LocalMind.AppDir/AppRun --self-test
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bundle=${1:-$root/dist/localmind}
icons=${2:-$root/build/icons}
appdir=${3:-$root/build/LocalMind.AppDir}

[ -x "$bundle/localmind" ] || { echo "build-appdir: no bundle at $bundle (run: make bundle)" >&2; exit 1; }
[ -d "$icons/hicolor" ] || { echo "build-appdir: no icons at $icons (run: make icons)" >&2; exit 1; }

rm -rf "$appdir"
install -d "$appdir/usr/lib" "$appdir/usr/bin" "$appdir/usr/share/applications" "$appdir/usr/share/icons"
cp -a "$bundle" "$appdir/usr/lib/localmind"
ln -s ../lib/localmind/localmind "$appdir/usr/bin/localmind"
cp -a "$icons/hicolor" "$appdir/usr/share/icons/hicolor"
install -m 0644 "$here/localmind.desktop" "$appdir/usr/share/applications/localmind.desktop"
# appimagetool wants the entry and its icon at the top, and .DirIcon for file managers.
ln -s usr/share/applications/localmind.desktop "$appdir/localmind.desktop"
install -m 0644 "$icons/hicolor/256x256/apps/localmind.png" "$appdir/localmind.png"
ln -s localmind.png "$appdir/.DirIcon"
cat > "$appdir/AppRun" <<'RUN'
#!/bin/sh
# Started by the AppImage runtime with the image mounted at $APPDIR.
here=$(dirname "$(readlink -f "$0")")
exec "$here/usr/lib/localmind/localmind" "$@"
RUN
chmod 0755 "$appdir/AppRun"
echo "$appdir"
