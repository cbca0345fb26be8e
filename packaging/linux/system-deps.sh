#!/usr/bin/env bash
# The tools packaging needs on Debian/Ubuntu (makensis, desktop-file-validate, binutils, file, Xvfb and the xcb
# libraries): one list, kept in scripts/system-deps.sh.
exec "$(cd "$(dirname "$0")/../.." && pwd)/scripts/system-deps.sh" package
