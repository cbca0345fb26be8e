#!/usr/bin/env bash
# Make sure the system libraries Qt needs are present.
#   scripts/system-deps.sh [run|test|window|package]
# run: Qt's libraries + CJK and emoji fonts; test: adds nsis and desktop-file-utils (the installer tests compile
# the NSIS script and validate the .desktop file); window: adds Xvfb and the xcb libraries for a real window;
# package: adds binutils and file (the .deb's Depends are read from the bundle's ELF files).
# On Debian/Ubuntu as root it installs what is missing; elsewhere it prints the exact command to run.
set -euo pipefail
profile=${1:-test}

debs=(libglib2.0-0 libgl1 libegl1 libfontconfig1 libxkbcommon0 libdbus-1-3 fonts-wqy-microhei fonts-noto-color-emoji)
if [ "$profile" != run ]; then
  debs+=(nsis desktop-file-utils)
fi
if [ "$profile" = window ] || [ "$profile" = package ]; then
  debs+=(xvfb x11-utils imagemagick libxcb-cursor0 libxcb-icccm4 libxcb-image0 libxcb-keysyms1 libxcb-render-util0
         libxcb-shape0 libxkbcommon-x11-0 libxcb-xinerama0 libxcb-randr0 libxcb-xfixes0)
fi
if [ "$profile" = package ]; then
  debs+=(binutils file)
fi

case "$(uname -s)" in
  Darwin|MINGW*|MSYS*|CYGWIN*) exit 0 ;;  # Qt's wheels carry what they need there
esac

if ! command -v dpkg-query >/dev/null 2>&1; then
  echo "note: not a Debian-like system; install the equivalents of: ${debs[*]}" >&2
  exit 0
fi

missing=()
for pkg in "${debs[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
  [ "$status" = "install ok installed" ] || missing+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "Installing system libraries for Qt: ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null || true
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  echo "Qt needs these system packages. Run:" >&2
  echo "  sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
