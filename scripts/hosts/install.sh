#!/usr/bin/env bash
# Installs every real host the test/real-hosts suites drive, each pinned in its own
# scripts/hosts/install-<host>.sh, into a cache outside the repo (HOOKGATE_HOSTS_DIR, default
# ~/.cache/hookgate-hosts). A host already installed at its pinned version is not installed again.
# Exits non-zero if any host could not be installed; the others are still installed.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
export HOOKGATE_HOSTS_DIR="${HOOKGATE_HOSTS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/hookgate-hosts}"
mkdir -p "$HOOKGATE_HOSTS_DIR"
status=0
shopt -s nullglob
for script in "$here"/install-*.sh; do
  echo "== $(basename "$script")"
  if ! bash "$script"; then
    echo "!! $(basename "$script") failed"
    status=1
  fi
done
exit "$status"
