#!/usr/bin/env bash
# `npm run setup`: installs what the tests need on Debian or Ubuntu (the apt packages listed in
# scripts/apt-packages.txt; sudo only when not root), then the project's own packages (`npm ci`).
# After it, `npm test` runs on a fresh machine.
set -euo pipefail
cd "$(dirname "$0")/.."

mapfile -t packages < <(grep -Ev '^[[:space:]]*(#|$)' scripts/apt-packages.txt)
missing=()
for pkg in "${packages[@]}"; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
if [ "${#missing[@]}" -gt 0 ]; then
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "setup: apt-get not found; install these packages with your system's package manager: ${missing[*]}" >&2
    exit 1
  fi
  as_root=()
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 || { echo "setup: not root and no sudo; as root run: apt-get install ${missing[*]}" >&2; exit 1; }
    as_root=(sudo)
  fi
  echo "setup: installing ${missing[*]}"
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  echo "setup: system packages present (${#packages[@]})"
fi

npm ci --no-audit --no-fund
