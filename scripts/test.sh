#!/usr/bin/env bash
# `npm test`: typecheck, lint and vitest; fails if any fails.
# The keychain tests need a real Secret Service: when no D-Bus session is running, this script
# starts one (dbus-run-session) with an unlocked gnome-keyring and runs itself inside it.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -z "${PAYDESK_TEST_SESSION:-}" ] && [ -z "${DBUS_SESSION_BUS_ADDRESS:-}" ] && command -v dbus-run-session >/dev/null 2>&1; then
  export PAYDESK_TEST_SESSION=1
  exec dbus-run-session -- bash "$0" "$@"
fi
if [ -n "${PAYDESK_TEST_SESSION:-}" ] && command -v gnome-keyring-daemon >/dev/null 2>&1; then
  # An empty password unlocks a fresh login keyring for this session only.
  eval "$(printf '' | gnome-keyring-daemon --unlock --components=secrets 2>/dev/null)" || true
  export GNOME_KEYRING_CONTROL
fi

echo "== typecheck"; npx tsc --noEmit -p tsconfig.json
echo "== lint"; npx eslint .
echo "== build (renderer, main, preload)"; npm run build --silent
echo "== vitest"; npx vitest run "$@"
