#!/usr/bin/env bash
# Sign the .app with the hardened runtime, and notarize and staple the .dmg — only when the secrets exist.
#
#   packaging/macos/sign-and-notarize.sh sign APP         (before the dmg is made)
#   packaging/macos/sign-and-notarize.sh notarize DMG     (after)
#
# Secrets (GitHub Actions secrets passed as environment variables):
#   MACOS_CERTIFICATE_P12_BASE64, MACOS_CERTIFICATE_PASSWORD   a "Developer ID Application" certificate
#   MACOS_CODESIGN_IDENTITY    e.g. "Developer ID Application: Example Ltd (TEAMID1234)"
#   APPLE_ID, APPLE_TEAM_ID, APPLE_APP_PASSWORD                 notarytool credentials (app-specific password)
# Without them each step says so and exits 0: the unsigned build is still uploaded (Gatekeeper will warn).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
mode=${1:?usage: sign-and-notarize.sh sign APP | notarize DMG}
target=${2:?usage: sign-and-notarize.sh sign APP | notarize DMG}

have() { for name in "$@"; do [ -n "${!name:-}" ] || return 1; done; }

import_certificate() {
  keychain="$RUNNER_TEMP/localmind-signing.keychain-db"
  keychain_password=$(uuidgen)
  echo "$MACOS_CERTIFICATE_P12_BASE64" | base64 --decode > "$RUNNER_TEMP/certificate.p12"
  security create-keychain -p "$keychain_password" "$keychain"
  security set-keychain-settings -lut 21600 "$keychain"
  security unlock-keychain -p "$keychain_password" "$keychain"
  security import "$RUNNER_TEMP/certificate.p12" -P "$MACOS_CERTIFICATE_PASSWORD" -A -t cert -f pkcs12 -k "$keychain"
  security set-key-partition-list -S apple-tool:,apple: -s -k "$keychain_password" "$keychain" >/dev/null
  local existing=()
  mapfile -t existing < <(security list-keychains -d user | tr -d '" ')
  security list-keychains -d user -s "$keychain" "${existing[@]}"
  rm -f "$RUNNER_TEMP/certificate.p12"
}

sign_app() {
  local app=$1
  if ! have MACOS_CERTIFICATE_P12_BASE64 MACOS_CERTIFICATE_PASSWORD MACOS_CODESIGN_IDENTITY; then
    echo "sign: no signing certificate in the environment; leaving $app ad-hoc signed"
    return 0
  fi
  : "${RUNNER_TEMP:=$(mktemp -d)}"
  import_certificate
  local sign=(codesign --force --timestamp --options runtime --entitlements "$here/entitlements.plist"
              --sign "$MACOS_CODESIGN_IDENTITY")
  # Inside out: every library and extension module first, then the executable, then the bundle.
  find "$app/Contents" -type f \( -name '*.dylib' -o -name '*.so' -o -perm -u+x \) ! -path '*/Contents/MacOS/*' -print0 \
    | while IFS= read -r -d '' file; do
        if file "$file" | grep -q 'Mach-O'; then "${sign[@]}" "$file"; fi
      done
  find "$app/Contents" -type d -name '*.framework' -prune -print0 | while IFS= read -r -d '' fw; do "${sign[@]}" "$fw"; done
  "${sign[@]}" "$app/Contents/MacOS/"*
  "${sign[@]}" "$app"
  codesign --verify --deep --strict --verbose=2 "$app"
  echo "sign: $app signed as $MACOS_CODESIGN_IDENTITY"
}

notarize_dmg() {
  local dmg=$1
  if ! have MACOS_CODESIGN_IDENTITY APPLE_ID APPLE_TEAM_ID APPLE_APP_PASSWORD; then
    echo "notarize: no notarization credentials in the environment; $dmg is not notarized"
    return 0
  fi
  codesign --force --timestamp --sign "$MACOS_CODESIGN_IDENTITY" "$dmg"
  xcrun notarytool submit "$dmg" --apple-id "$APPLE_ID" --team-id "$APPLE_TEAM_ID" \
    --password "$APPLE_APP_PASSWORD" --wait --timeout 30m
  xcrun stapler staple "$dmg"
  xcrun stapler validate "$dmg"
  spctl --assess --type open --context context:primary-signature --verbose=2 "$dmg"
  echo "notarize: $dmg notarized and stapled"
}

case "$mode" in
  sign) sign_app "$target" ;;
  notarize) notarize_dmg "$target" ;;
  *) echo "unknown mode $mode (sign | notarize)" >&2; exit 2 ;;
esac
