#!/usr/bin/env bash
# Installs Gemini CLI (npm @google/gemini-cli, pinned here and only here) for the
# test/real-hosts/gemini suite, into $HOOKGATE_HOSTS_DIR/gemini-<version>. A JavaScript bundle run by the
# node on PATH. Idempotent: skips when the pinned version runs.
set -euo pipefail
VERSION="0.61.0"
HOSTS_DIR="${HOOKGATE_HOSTS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/hookgate-hosts}"
dest="$HOSTS_DIR/gemini-$VERSION"
bin="$dest/node_modules/.bin/gemini"

if [ -x "$bin" ] && "$bin" --version 2>/dev/null | grep -q "$VERSION"; then
  echo "gemini $VERSION already installed in $dest"
  exit 0
fi
rm -rf "$dest.partial"
mkdir -p "$dest.partial"
npm install --prefix "$dest.partial" --no-audit --no-fund --loglevel=error "@google/gemini-cli@$VERSION"
rm -rf "$dest"
mv "$dest.partial" "$dest"
"$bin" --version
echo "gemini $VERSION installed in $dest"
