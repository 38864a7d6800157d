#!/usr/bin/env bash
# Installs Claude Code (npm @anthropic-ai/claude-code, pinned here and only here) for the
# test/real-hosts/claude-code suite, into $HOOKGATE_HOSTS_DIR/claude-code-<version>. The npm package
# carries the native binary in its platform package (@anthropic-ai/claude-code-<os>-<arch>), an
# optional dependency npm picks for this machine. Idempotent: skips when the pinned version runs.
set -euo pipefail
VERSION="2.1.328"
HOSTS_DIR="${HOOKGATE_HOSTS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/hookgate-hosts}"
dest="$HOSTS_DIR/claude-code-$VERSION"
bin="$dest/node_modules/.bin/claude"

if [ -x "$bin" ] && "$bin" --version 2>/dev/null | grep -q "^$VERSION"; then
  echo "claude-code $VERSION already installed in $dest"
  exit 0
fi
rm -rf "$dest.partial"
mkdir -p "$dest.partial"
# --ignore-scripts is not used: the package's own install step links the platform binary.
npm install --prefix "$dest.partial" --no-audit --no-fund --loglevel=error \
  "@anthropic-ai/claude-code@$VERSION"
rm -rf "$dest"
mv "$dest.partial" "$dest"
"$bin" --version
echo "claude-code $VERSION installed in $dest"
