#!/usr/bin/env bash
# Runs a command inside a fresh D-Bus session with a throwaway, unlocked gnome-keyring:
#   bash scripts/with-keyring.sh npx vitest run test/console
set -euo pipefail
if [ -z "${PAYDESK_KEYRING_SESSION:-}" ]; then
  export PAYDESK_KEYRING_SESSION=1
  exec dbus-run-session -- bash "$0" "$@" 2> >(grep -v 'Failed to set fd limit' >&2)
fi
XDG_DATA_HOME="$(mktemp -d)"
export XDG_DATA_HOME
# The throwaway keyring's folder goes when the command ends, whatever its outcome.
trap 'rm -rf "$XDG_DATA_HOME"' EXIT
printf 'paydesk-test-keyring' | gnome-keyring-daemon --unlock --components=secrets >/dev/null
"$@"
