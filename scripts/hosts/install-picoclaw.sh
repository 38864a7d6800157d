#!/usr/bin/env bash
# Builds the real PicoClaw, pinned below, from the Go module proxy into
# $HOOKGATE_HOSTS_DIR/picoclaw-<version>/picoclaw. Skips when that binary is already there.
#
# `go install github.com/sipeed/picoclaw/cmd/picoclaw@<version>` is refused by Go because
# PicoClaw's go.mod has a `replace` (a discordgo fork), so: download the module, copy its
# (read-only) source out, and build it there like its Makefile does (CGO off, tags goolm,stdjson).
# A clean build (download + compile of ~150 modules) is about 3 minutes of CPU: 5-6 minutes on two
# busy cores.
set -euo pipefail

# The newest tag the Go module proxy serves (it answers 403 to the version list, so tags are asked
# for by name); its hook protocol files are the same as v0.2.9's.
PICOCLAW_VERSION="v0.3.1"
MODULE="github.com/sipeed/picoclaw"

hosts_dir="${HOOKGATE_HOSTS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/hookgate-hosts}"
target_dir="$hosts_dir/picoclaw-$PICOCLAW_VERSION"
binary="$target_dir/picoclaw"

if [ -x "$binary" ] && "$binary" version >/dev/null 2>&1; then
  echo "picoclaw $PICOCLAW_VERSION already installed: $binary"
  exit 0
fi

command -v go >/dev/null || { echo "install-picoclaw: go is not on PATH (PicoClaw $PICOCLAW_VERSION needs Go >= 1.25)" >&2; exit 1; }

started=$(date +%s)
module_dir="$(go mod download -json "$MODULE@$PICOCLAW_VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
if [ -z "$module_dir" ] || [ ! -d "$module_dir" ]; then
  echo "install-picoclaw: go mod download $MODULE@$PICOCLAW_VERSION gave no source directory" >&2
  exit 1
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/picoclaw-build.XXXXXX")"
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
cp -R "$module_dir/." "$work/src"
chmod -R u+w "$work/src"

# v0.2.x embeds cmd/picoclaw/internal/onboard/workspace, filled by a go:generate whose script needs
# files the module zip lacks; the copy is all it does. v0.3.x embeds the top-level workspace/ itself.
onboard="$work/src/cmd/picoclaw/internal/onboard"
if grep -q '^//go:embed workspace' "$onboard/command.go" 2>/dev/null && [ ! -d "$onboard/workspace" ]; then
  cp -R "$work/src/workspace" "$onboard/workspace"
fi

mkdir -p "$target_dir"
ldflags="-s -w -X $MODULE/pkg/config.Version=${PICOCLAW_VERSION#v} -X $MODULE/pkg/config.GoVersion=$(go env GOVERSION)"
(
  cd "$work/src"
  CGO_ENABLED=0 GOFLAGS=-mod=mod GOTOOLCHAIN=local \
    go build -trimpath -tags goolm,stdjson -ldflags "$ldflags" -o "$binary.partial" ./cmd/picoclaw
)
mv "$binary.partial" "$binary"
"$binary" version
echo "picoclaw $PICOCLAW_VERSION installed in $(( $(date +%s) - started ))s: $binary"
