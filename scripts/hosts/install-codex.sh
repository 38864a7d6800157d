#!/usr/bin/env bash
# Installs OpenAI Codex CLI (npm @openai/codex, pinned here and only here) for the
# test/real-hosts/codex suite, into $HOOKGATE_HOSTS_DIR/codex-<version>. The npm package carries the
# native binary in its platform package (@openai/codex-<os>-<arch>), an optional dependency npm
# picks for this machine. Idempotent: skips when the pinned version runs.
set -euo pipefail
VERSION="0.169.0"
HOSTS_DIR="${HOOKGATE_HOSTS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/hookgate-hosts}"
dest="$HOSTS_DIR/codex-$VERSION"
bin="$dest/node_modules/.bin/codex"

if [ -x "$bin" ] && "$bin" --version 2>/dev/null | grep -q "$VERSION"; then
  echo "codex $VERSION already installed in $dest"
  exit 0
fi
rm -rf "$dest.partial"
mkdir -p "$dest.partial"
npm install --prefix "$dest.partial" --no-audit --no-fund --loglevel=error "@openai/codex@$VERSION"
rm -rf "$dest"
mv "$dest.partial" "$dest"
"$bin" --version
echo "codex $VERSION installed in $dest"
