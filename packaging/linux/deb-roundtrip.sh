#!/usr/bin/env bash
# The .deb round trip: install -> run the self-test from the installed path -> remove -> nothing left.
#
#   packaging/linux/deb-roundtrip.sh DEB [MODEL_DIR]        (root; `make deb-roundtrip` builds DEB first)
#     MODEL_DIR  a model folder for the self-test; default: the tiny test model, built here
#     ROUNDTRIP_SCREENSHOT=PATH  also start the installed app under Xvfb and save a picture of its window
#
# The self-test runs as an unprivileged user with a fresh HOME, from another folder, so it proves
# the app starts from /opt without writing there and keeps its data in the user's data folder.
# Exits non-zero, naming the step, on the first problem.
set -euo pipefail

deb=$(realpath "${1:?usage: deb-roundtrip.sh DEB [MODEL_DIR]}")
model=${2:-}
root=$(cd "$(dirname "$0")/../.." && pwd)
pkg=localmind
shot=${ROUNDTRIP_SCREENSHOT:-}

step() { printf '\n== %s\n' "$*"; }
fail() { echo "deb-roundtrip: FAILED: $*" >&2; exit 1; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

[ "$(id -u)" -eq 0 ] || fail "run as root (it installs a package)"
dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" \
  && fail "$pkg is already installed here; remove it first (apt-get remove $pkg)"

work=$(mktemp -d "${TMPDIR:-/tmp}/localmind-roundtrip.XXXXXX")
chmod 0755 "$work"
xvfb_pid=""
gui_pid=""
installed=0
cleanup() {
  if [ -n "$gui_pid" ]; then kill "$gui_pid" 2>/dev/null || true; fi
  if [ -n "$xvfb_pid" ]; then kill "$xvfb_pid" 2>/dev/null || true; fi
  # A failed run must not leave the package (or what it pulled in) on the machine.
  if [ "$installed" = 1 ] && dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    echo "deb-roundtrip: removing $pkg after the failure" >&2
    remove_package >/dev/null 2>&1 || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

if [ -z "$model" ]; then
  model="$work/tiny-model"
  (cd "$root" && "${PYTHON:-$root/.venv/bin/python}" -m tests.helpers.tiny_model "$model" >/dev/null)
fi
chmod -R a+rX "$model"

# Everything a package could leave behind, before and after.
snapshot() {
  # Some of these folders do not exist on a minimal system: that is fine, and so is their appearing.
  { find /opt /usr/bin /usr/share/applications /usr/share/icons/hicolor /usr/share/doc /etc \
      -path /usr/share/icons/hicolor/icon-theme.cache -prune -o -print 2>/dev/null || true; } | sort
}
# The package, then the dependencies this install pulled in, so the system is as it was (nothing else is touched).
remove_package() {
  DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq "$pkg" >"$work/remove.log" 2>&1 || { cat "$work/remove.log"; return 1; }
  if dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "installed"; then echo "dpkg still lists $pkg"; return 1; fi
  local pulled=()
  mapfile -t pulled < <(comm -13 "$work/packages-before.txt" <(installed_packages))
  if [ ${#pulled[@]} -gt 0 ]; then
    echo "also removing the dependencies it pulled in: ${pulled[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq "${pulled[@]}" >>"$work/remove.log" 2>&1 \
      || { cat "$work/remove.log"; return 1; }
  fi
}
installed_packages() { dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' | awk '$1 == "ii" { print $2 }' | sort; }
snapshot > "$work/before.txt"
installed_packages > "$work/packages-before.txt"
started=$(now)

step "install $(basename "$deb") ($(du -h "$deb" | cut -f1))"
t=$(now)
installed=1
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$deb" >"$work/install.log" 2>&1 \
  || { cat "$work/install.log"; fail "apt-get install"; }
install_s=$(since "$t")
echo "installed in ${install_s} s"
[ -x /usr/bin/localmind ] || fail "/usr/bin/localmind is missing"
[ "$(readlink -f /usr/bin/localmind)" = /opt/localmind/localmind ] || fail "/usr/bin/localmind does not point into /opt/localmind"
desktop-file-validate /usr/share/applications/localmind.desktop || fail "the installed .desktop entry is invalid"
[ -f /usr/share/icons/hicolor/256x256/apps/localmind.png ] || fail "hicolor icon missing"
echo "installed size: $(du -sh /opt/localmind | cut -f1) in /opt/localmind"

step "self-test from the installed path, as an unprivileged user"
user_home="$work/home"
mkdir -p "$user_home"
chown nobody "$user_home"
find /opt/localmind | sort > "$work/opt-before.txt"
t=$(now)
(cd / && runuser -u nobody -- env -i PATH=/usr/bin:/bin HOME="$user_home" LANG=C.UTF-8 \
  localmind --self-test --model "$model") | tee "$work/selftest.txt" || fail "localmind --self-test"
selftest_s=$(since "$t")
grep -q "frozen bundle at /opt/localmind" "$work/selftest.txt" || fail "the self-test did not run the installed bundle"
grep -q "PASS  model" "$work/selftest.txt" || fail "the model did not load and generate"
find /opt/localmind | sort > "$work/opt-after.txt"
diff -u "$work/opt-before.txt" "$work/opt-after.txt" || fail "running the app wrote into /opt/localmind"
data_dir="$user_home/.local/share/LocalMind"
[ -d "$data_dir" ] || fail "no data folder at $data_dir (the platform's user data folder)"
echo "self-test: ${selftest_s} s (wall, including start); data folder: $data_dir"

if find /opt/localmind -path '*/resources/starter-model/genai_config.json' | grep -q .; then
  step "first launch with the starter model in the box (no --model, a fresh user, no download)"
  fresh_home="$work/fresh-home"
  mkdir -p "$fresh_home"
  chown nobody "$fresh_home"
  (cd / && runuser -u nobody -- env -i PATH=/usr/bin:/bin HOME="$fresh_home" LANG=C.UTF-8 \
    localmind --self-test) | tee "$work/starter.txt" || fail "localmind --self-test with the starter model"
  grep -q "PASS  model .*the bundled starter model" "$work/starter.txt" || fail "the starter model did not load and reply"
  echo "starter model: $(du -sh "$(dirname "$(find /opt/localmind -path '*/resources/starter-model/genai_config.json' | head -1)")" | cut -f1)"
fi

if [ -n "$shot" ]; then
  step "the installed app's window under Xvfb"
  display=:$((90 + RANDOM % 9))
  Xvfb "$display" -screen 0 1280x800x24 -nolisten tcp >"$work/xvfb.log" 2>&1 &
  xvfb_pid=$!
  for _ in $(seq 50); do xdpyinfo -display "$display" >/dev/null 2>&1 && break; sleep 0.1; done
  mkdir -p "$(dirname "$shot")"
  # The real window when the app can open it; if it cannot start yet, the self-test's window on the same screen.
  (cd / && exec runuser -u nobody -- env -i PATH=/usr/bin:/bin HOME="$user_home" LANG=C.UTF-8 DISPLAY="$display" \
    QT_QPA_PLATFORM=xcb localmind --model "$model") >"$work/gui.log" 2>&1 &
  gui_pid=$!
  window=""
  for _ in $(seq 100); do  # up to 20 s for the window to appear
    kill -0 "$gui_pid" 2>/dev/null || break
    window=$(xwininfo -display "$display" -root -tree 2>/dev/null | awk '/"LocalMind": \("/ { print $1; exit }')
    [ -n "$window" ] && break
    sleep 0.2
  done
  if [ -n "$window" ]; then
    sleep 3  # let it finish its first paint and load the model
    import -display "$display" -window "$window" "$shot"
    echo "window $window, WM_CLASS: $(xprop -display "$display" -id "$window" WM_CLASS | cut -d= -f2)"
    kill "$gui_pid"; wait "$gui_pid" 2>/dev/null || true; gui_pid=""
    echo "screenshot of the app: $shot"
  else
    echo "note: the app's window did not stay open: $(tail -1 "$work/gui.log")"
    shot_tmp="$work/window.png"
    (cd / && runuser -u nobody -- env -i PATH=/usr/bin:/bin HOME="$user_home" LANG=C.UTF-8 DISPLAY="$display" \
      QT_QPA_PLATFORM=xcb LOCALMIND_SELFTEST_SCREENSHOT="$shot_tmp" localmind --self-test --model "$model") \
      >"$work/selftest-xcb.txt" || { cat "$work/selftest-xcb.txt"; fail "self-test under Xvfb"; }
    cp "$shot_tmp" "$shot"
    echo "screenshot of the self-test window: $shot"
  fi
  kill "$xvfb_pid"; wait "$xvfb_pid" 2>/dev/null || true; xvfb_pid=""
fi

step "remove"
dpkg-query -L "$pkg" | sort > "$work/owned.txt"
t=$(now)
remove_package || fail "removing the package"
remove_s=$(since "$t")
snapshot > "$work/after.txt"
left=$(comm -13 "$work/before.txt" "$work/after.txt")
[ -z "$left" ] || { echo "$left"; fail "files were left behind"; }
# dpkg removes a directory the package shipped once it is empty, even one that was there before
# (a minimal system's empty /opt): that is dpkg's rule, not ours. Anything else gone is a bug.
gone=$(comm -23 "$work/before.txt" "$work/after.txt" | grep -vxF -f "$work/owned.txt" || true)
[ -z "$gone" ] || { echo "$gone"; fail "files that were not the package's were removed"; }
echo "removed in ${remove_s} s; nothing left outside the user's data folder"

step "round trip passed in $(since "$started") s (install ${install_s} s, self-test ${selftest_s} s, remove ${remove_s} s)"
