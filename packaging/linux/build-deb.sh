#!/usr/bin/env bash
# Build the LocalMind .deb from the PyInstaller bundle, with plain dpkg-deb.
#
#   packaging/linux/build-deb.sh [BUNDLE_DIR] [ICONS_DIR] [OUT_DIR]
#     defaults: dist/localmind  build/icons  dist
#   DEB_COMPRESSION=xz|zstd|gzip (default xz: the smallest download; zstd builds in seconds)
#
# Layout: the bundle in /opt/localmind, /usr/bin/localmind -> /opt/localmind/localmind,
# the .desktop entry, hicolor icons and /usr/share/doc/localmind/copyright.
# Depends: glibc from the symbol versions the bundle actually needs, and every system library
# the bundle links to but does not carry (checked below: the build fails if one is not declared).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bundle=${1:-$root/dist/localmind}
icons=${2:-$root/build/icons}
out=${3:-$root/dist}
compression=${DEB_COMPRESSION:-xz}

[ -x "$bundle/localmind" ] || { echo "build-deb: no bundle at $bundle (run: make bundle)" >&2; exit 1; }
[ -d "$icons/hicolor" ] || { echo "build-deb: no icons at $icons (run: make icons)" >&2; exit 1; }

version=$(sed -n 's/^version *= *"\([^"]*\)".*/\1/p' "$root/pyproject.toml" | head -1)
arch=$(dpkg --print-architecture)
pkg=localmind
stage=$(mktemp -d "${TMPDIR:-/tmp}/localmind-deb.XXXXXX")
trap 'rm -rf "$stage"' EXIT

# -- files -------------------------------------------------------------------------------------------------------
install -d "$stage/opt" "$stage/usr/bin" "$stage/usr/share/applications" "$stage/usr/share/icons" \
  "$stage/usr/share/doc/$pkg" "$stage/DEBIAN"
cp -a "$bundle" "$stage/opt/$pkg"
ln -s "/opt/$pkg/localmind" "$stage/usr/bin/localmind"
install -m 0644 "$here/localmind.desktop" "$stage/usr/share/applications/localmind.desktop"
cp -a "$icons/hicolor" "$stage/usr/share/icons/hicolor"
cat > "$stage/usr/share/doc/$pkg/copyright" <<EOF
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: LocalMind
Source: https://github.com/localmind/localmind

Files: *
Copyright: LocalMind developers
License: MIT

Files: opt/localmind/_internal/*
Comment: Third-party components bundled with LocalMind (Python, Qt for Python, ONNX Runtime,
 onnxruntime-genai, NumPy and others), each under its own license; the license files ship
 beside them in /opt/localmind/_internal.
EOF
find "$stage" -type d -exec chmod 0755 {} +
chmod -R go-w "$stage"

# -- dependencies ------------------------------------------------------------------------------------------------
# The newest glibc symbol version any bundled binary needs (PySide6's wheels alone need 2.34).
glibc=$(find "$stage/opt/$pkg" -type f \( -name '*.so*' -o -name localmind \) -print0 \
  | xargs -0 objdump -T 2>/dev/null | grep -o 'GLIBC_2\.[0-9]*' | sed 's/GLIBC_//' | sort -u -V | tail -1)
[ -n "$glibc" ] || { echo "build-deb: could not read glibc versions (is binutils installed?)" >&2; exit 1; }
printf '%s\n2.34\n' "$glibc" | sort -V | tail -1 > "$stage/glibc"
glibc=$(cat "$stage/glibc"); rm "$stage/glibc"

# Not bundled: libGL/libEGL (they must match the system's driver), libstdc++/libgcc_s (system Mesa needs the newest)
# and the X/Wayland client libraries. fontconfig brings a font and its configuration; the xcb list is what
# Qt's xcb platform plugin needs (bundled copies exist, the packages keep the system set complete).
depends=(
  "libc6 (>= $glibc)" libstdc++6 libgcc-s1 libgl1 libegl1 libfontconfig1 libfreetype6 libdbus-1-3 libglib2.0-0
  libx11-6 libx11-xcb1 libxcb1 libxcb-cursor0 libxcb-icccm4 libxcb-image0 libxcb-keysyms1 libxcb-randr0
  libxcb-render-util0 libxcb-render0 libxcb-shape0 libxcb-shm0 libxcb-sync1 libxcb-xfixes0 libxcb-xkb1
  libxkbcommon0 libxkbcommon-x11-0 libwayland-client0 libwayland-cursor0 libwayland-egl1 libdrm2
)
recommends=("fonts-noto-cjk | fonts-wqy-microhei" fonts-noto-color-emoji)
suggests=("gnome-keyring | kwalletmanager | keepassxc")

# Every shared library a bundled binary links to must be in the bundle or come from a declared package.
bundled=$(find "$stage/opt/$pkg" -name '*.so*' -printf '%f\n' | sort -u)
needed=$(find "$stage/opt/$pkg" -type f \( -name '*.so*' -o -name localmind \) -print0 \
  | xargs -0 readelf -d 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort -u)
missing=()
for lib in $(comm -23 <(echo "$needed") <(echo "$bundled")); do
  owner=$(dpkg -S "*/$lib" 2>/dev/null | head -1 | cut -d: -f1 || true)
  if [ -z "$owner" ]; then
    echo "build-deb: note: $lib is not installed here; cannot check which package provides it" >&2
    continue
  fi
  printf '%s\n' "${depends[@]}" | grep -q "^$owner\b" || missing+=("$lib ($owner)")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "build-deb: the bundle links to system libraries from packages not in Depends: ${missing[*]}" >&2
  exit 1
fi

join() { local joined; joined=$(printf '%s, ' "$@"); echo "${joined%, }"; }
installed_kb=$(du -sk --exclude=DEBIAN "$stage" | cut -f1)
cat > "$stage/DEBIAN/control" <<EOF
Package: $pkg
Version: $version
Architecture: $arch
Maintainer: LocalMind developers <hello@localmind.app>
Installed-Size: $installed_kb
Depends: $(join "${depends[@]}")
Recommends: $(join "${recommends[@]}")
Suggests: $(join "${suggests[@]}")
Section: utils
Priority: optional
Homepage: https://github.com/localmind/localmind
Description: private AI chat that runs on your own computer
 LocalMind chats with small language models that run entirely on this
 computer: no account, no cloud, nothing leaves the machine unless you ask
 it to download a model. Conversations are kept in your user folder.
EOF

mkdir -p "$out"
deb="$out/${pkg}_${version}_${arch}.deb"
dpkg-deb --root-owner-group -Z"$compression" --build "$stage" "$deb" >/dev/null
echo "$deb"
