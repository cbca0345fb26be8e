#!/usr/bin/env bash
# The tools packaging needs on Debian/Ubuntu: makensis (Windows installer compile test),
# desktop-file-validate, binutils (readelf/objdump for the .deb's Depends, strip),
# and Xvfb + the xcb libraries for the window screenshot (via scripts/system-deps.sh window).
# As root it installs what is missing; otherwise it prints the command to run.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
"$root/scripts/system-deps.sh" window

debs=(nsis desktop-file-utils binutils file xvfb x11-utils imagemagick)
command -v dpkg-query >/dev/null 2>&1 || { echo "note: not Debian-like; install: ${debs[*]}" >&2; exit 0; }
missing=()
for pkg in "${debs[@]}"; do
  [ "$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)" = "install ok installed" ] || missing+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -eq 0 ]; then
  echo "Installing packaging tools: ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null || true
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  echo "Packaging needs: sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
