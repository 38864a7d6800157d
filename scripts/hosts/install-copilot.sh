#!/usr/bin/env bash
# Installs GitHub Copilot CLI (npm @github/copilot, pinned here and only here) for the
# test/real-hosts/copilot suite, into $HOOKGATE_HOSTS_DIR/copilot-<version>. The npm package carries the
# native binary in its platform package (@github/copilot-<os>-<arch>), an optional dependency npm
# picks for this machine. Idempotent: skips when the pinned version runs.
set -euo pipefail
VERSION="1.0.102"
HOSTS_DIR="${HOOKGATE_HOSTS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/hookgate-hosts}"
dest="$HOSTS_DIR/copilot-$VERSION"
bin="$dest/node_modules/.bin/copilot"

if [ -x "$bin" ] && "$bin" --version 2>/dev/null | grep -q "$VERSION"; then
  echo "copilot $VERSION already installed in $dest"
  exit 0
fi
rm -rf "$dest.partial"
mkdir -p "$dest.partial"
npm install --prefix "$dest.partial" --no-audit --no-fund --loglevel=error "@github/copilot@$VERSION"
rm -rf "$dest"
mv "$dest.partial" "$dest"
"$bin" --version
echo "copilot $VERSION installed in $dest"
