#!/usr/bin/env bash
# `npm test`: typecheck, lint, build and vitest; fails if any fails.
# The keychain tests need a real Secret Service: when no D-Bus session is running, this script
# starts one (dbus-run-session) with a throwaway, unlocked gnome-keyring and runs itself inside it.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -z "${PAYDESK_TEST_SESSION:-}" ] && [ -z "${DBUS_SESSION_BUS_ADDRESS:-}" ] && command -v dbus-run-session >/dev/null 2>&1; then
  export PAYDESK_TEST_SESSION=1
  exec dbus-run-session -- bash "$0" "$@" 2> >(grep -v 'Failed to set fd limit' >&2)
fi
if [ -n "${PAYDESK_TEST_SESSION:-}" ] && command -v gnome-keyring-daemon >/dev/null 2>&1; then
  # A fresh keyring in a temp folder, so a developer's own login keyring is never touched.
  # gnome-keyring creates the "login" collection only with a non-empty password.
  XDG_DATA_HOME="$(mktemp -d)"
  export XDG_DATA_HOME
  trap 'rm -rf "$XDG_DATA_HOME"' EXIT
  printf 'paydesk-test-keyring' | gnome-keyring-daemon --unlock --components=secrets >/dev/null
fi

echo "== typecheck"; npx tsc --noEmit -p tsconfig.json
echo "== lint"; npx eslint .
echo "== build (renderer, main, preload)"; npm run build --silent
echo "== vitest"
mkdir -p test-results
status=0
npx vitest run --reporter=default --reporter=json --outputFile.json=test-results/vitest.json "$@" || status=$?
# One plain closing line for whoever reads the log: 'N passed, N failed'.
if [ -f test-results/vitest.json ]; then
  node -e 'const r = require("./test-results/vitest.json"); console.log(`vitest: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${r.numPendingTests + r.numTodoTests} skipped`)'
fi
exit "$status"
