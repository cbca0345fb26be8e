#!/usr/bin/env bash
# Make sure the system libraries Qt needs are present.
#   scripts/system-deps.sh [run|test|window|package]     install what is missing (or say how)
#   scripts/system-deps.sh --list [run|test|window|package]  print the Debian packages of that set, one a line
# run: what the window needs on a desktop: Qt's libraries, the xcb libraries of Qt's X11 platform plugin (a fresh
# Ubuntu/Debian desktop lacks libxcb-cursor0 at least, and Qt then cannot open a window), CJK and emoji fonts;
# test: Qt's offscreen libraries + fonts, nsis and desktop-file-utils (the installer tests compile the NSIS
# script and validate the .desktop file), and for the end-to-end tests that type into the real window
# (tests/helpers/xwindow.py) the xcb libraries, Xvfb, openbox, xdotool, x11-utils and ImageMagick, and for the
# accessibility tests at-spi2-core, python3-pyatspi, dbus and dbus-x11;
# window: test + run + Xvfb and tools for a real window;
# package: window + binutils and file (the .deb's Depends are read from the bundle's ELF files).
# On Debian/Ubuntu as root it installs what is missing; elsewhere it prints the exact command to run.
set -euo pipefail
list_only=0
if [ "${1:-}" = --list ]; then
  list_only=1
  shift
fi
profile=${1:-test}

# Offscreen Qt (the tests): GL, EGL, fontconfig, xkbcommon, D-Bus, GLib.
debs=(libglib2.0-0 libgl1 libegl1 libfontconfig1 libxkbcommon0 libdbus-1-3 fonts-wqy-microhei fonts-noto-color-emoji)
# Qt's xcb platform plugin (libqxcb.so, libQt6XcbQpa.so.6) links these directly; tests/packaging/test_system_deps.py
# checks the list against the plugin of the PySide6 installed. Without icccm4/keysyms1 Qt aborts with a misleading
# message about xcb-cursor0.
xcb=(libxcb1 libx11-6 libx11-xcb1 libxcb-cursor0 libxcb-icccm4 libxcb-image0 libxcb-keysyms1 libxcb-render-util0
     libxcb-render0 libxcb-shape0 libxcb-shm0 libxcb-sync1 libxcb-util1 libxcb-xfixes0 libxcb-randr0 libxcb-xkb1
     libxcb-xinerama0 libxkbcommon-x11-0)
# The accessibility tests (tests/e2e/test_accessibility_x.py) read the window's AT-SPI tree as a screen reader does:
# a session bus (dbus, dbus-x11), the AT-SPI bus (at-spi2-core) and Debian's pyatspi for /usr/bin/python3.
a11y=(at-spi2-core python3-pyatspi dbus dbus-x11)
case "$profile" in
  run) debs+=("${xcb[@]}") ;;
  test) debs+=(nsis desktop-file-utils "${xcb[@]}" xvfb x11-utils imagemagick openbox xdotool "${a11y[@]}") ;;
  window) debs+=(nsis desktop-file-utils "${xcb[@]}" xvfb x11-utils imagemagick openbox xdotool "${a11y[@]}") ;;
  package) debs+=(nsis desktop-file-utils "${xcb[@]}" xvfb x11-utils imagemagick openbox xdotool "${a11y[@]}" binutils file) ;;
  *) echo "usage: $0 [--list] [run|test|window|package]" >&2; exit 2 ;;
esac
if [ "$list_only" = 1 ]; then
  printf '%s\n' "${debs[@]}"
  exit 0
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
