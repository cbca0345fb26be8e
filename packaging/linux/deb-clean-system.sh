#!/usr/bin/env bash
# The .deb round trip on a clean, minimal Debian: proves Depends is complete (the build machine has
# every library installed already, so a round trip there cannot).
#
#   packaging/linux/deb-clean-system.sh DEB MODEL_DIR [SUITE]      (root; needs debootstrap and a Debian mirror)
#
# Makes (once, cached in build/chroot-<suite>) a `debootstrap --variant=minbase` system, copies the
# package, the model and deb-roundtrip.sh into a throwaway copy of it, and runs the round trip there:
# apt-get resolves Depends from the mirror, the self-test runs from /opt as an unprivileged user.
set -euo pipefail

deb=$(realpath "${1:?usage: deb-clean-system.sh DEB MODEL_DIR [SUITE]}")
model=$(realpath "${2:?usage: deb-clean-system.sh DEB MODEL_DIR [SUITE]}")
suite=${3:-bookworm}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
base="$root/build/chroot-$suite"

[ "$(id -u)" -eq 0 ] || { echo "deb-clean-system: run as root" >&2; exit 1; }
command -v debootstrap >/dev/null || { echo "deb-clean-system: apt-get install debootstrap" >&2; exit 1; }

if [ ! -x "$base/usr/bin/apt-get" ]; then
  echo "== debootstrap $suite (minbase) into $base"
  rm -rf "$base"
  debootstrap --variant=minbase "$suite" "$base" "$mirror" >"$root/build/debootstrap-$suite.log"
fi

system=$(mktemp -d "${TMPDIR:-/tmp}/localmind-clean.XXXXXX")
mounted=()
cleanup() {
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l "${mounted[i]}" 2>/dev/null || true; done
  rm -rf "$system"
}
trap cleanup EXIT
cp -a "$base/." "$system/"
# /dev/shm gets its own tmpfs: multiprocessing (the engine's child process) needs a world-writable one.
for fs in proc sys dev dev/pts dev/shm; do
  case $fs in
    proc) mount -t proc proc "$system/proc" ;;
    dev/shm) mount -t tmpfs -o mode=1777,nosuid,nodev shm "$system/dev/shm" ;;
    *) mount --bind "/$fs" "$system/$fs" ;;
  esac
  mounted+=("$system/$fs")
done
cp /etc/resolv.conf "$system/etc/resolv.conf"

mkdir -p "$system/roundtrip"
cp "$deb" "$here/deb-roundtrip.sh" "$system/roundtrip/"
cp -a "$model" "$system/roundtrip/model"

in_system() { chroot "$system" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }
echo "== tools the round trip itself uses (desktop-file-validate)"
in_system apt-get update -qq
in_system env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends desktop-file-utils >/dev/null
echo "== round trip on a clean $suite"
in_system /roundtrip/deb-roundtrip.sh "/roundtrip/$(basename "$deb")" /roundtrip/model
