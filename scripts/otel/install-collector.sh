#!/usr/bin/env bash
# Builds a minimal OpenTelemetry Collector, pinned below, from the Go module proxy with the official
# collector builder (ocb): the OTLP receiver (HTTP and gRPC) and the contrib file exporter (OTLP
# JSON lines), nothing else. The binary lands in a cache outside the repo,
# ${XDG_CACHE_HOME:-~/.cache}/hookgate/otelcol-<version>/otelcol-hookgate (HOOKGATE_OTELCOL_DIR
# overrides the directory), where test/server/tracing finds it. Skips when it is already there.
#
# Not the builder's own `go mod tidy`: that also fetches the modules the components' *tests* import,
# and the Go module proxy refuses one of them (contrib's otlpencodingextension at these versions),
# which fails the whole build. So the builder only writes the sources; the versions are pinned with
# `go get` and `go build -mod=mod` fetches only the modules the binary is built from (fewer
# downloads than a tidy, and none of the test-only ones).
#
# Measured on two cores with empty Go caches (while other work ran): 4m18s wall, 2m13s of CPU,
# mostly downloads; with warm Go caches, about 25 s.
#
#   bash scripts/otel/install-collector.sh        # needs go >= 1.24 on PATH
set -euo pipefail

OTELCOL_VERSION="0.165.0"
cache_dir="${HOOKGATE_OTELCOL_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/hookgate/otelcol-$OTELCOL_VERSION}"
binary="$cache_dir/otelcol-hookgate"

if [ -x "$binary" ] && "$binary" --version >/dev/null 2>&1; then
  echo "otelcol-hookgate $OTELCOL_VERSION already installed: $binary"
  exit 0
fi

command -v go >/dev/null || { echo "install-collector: go is not on PATH (the collector builder needs Go >= 1.24)" >&2; exit 1; }

started=$(date +%s)
work="$(mktemp -d "${TMPDIR:-/tmp}/otelcol-build.XXXXXX")"
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT

# The builder itself, from the proxy, into the scratch directory (not the user's GOBIN).
GOBIN="$work/bin" go install "go.opentelemetry.io/collector/cmd/builder@v$OTELCOL_VERSION"

cat >"$work/builder.yaml" <<YAML
dist:
  name: otelcol-hookgate
  description: OpenTelemetry Collector for the hookgate trace tests (OTLP in, OTLP JSON files out)
  output_path: $work/dist
  version: $OTELCOL_VERSION
receivers:
  - gomod: go.opentelemetry.io/collector/receiver/otlpreceiver v$OTELCOL_VERSION
exporters:
  - gomod: github.com/open-telemetry/opentelemetry-collector-contrib/exporter/fileexporter v$OTELCOL_VERSION
YAML

"$work/bin/builder" --config "$work/builder.yaml" --skip-get-modules --skip-compilation
cd "$work/dist"
go mod init otelcol-hookgate
go get "go.opentelemetry.io/collector/otelcol@v$OTELCOL_VERSION" \
  "go.opentelemetry.io/collector/receiver/otlpreceiver@v$OTELCOL_VERSION" \
  "github.com/open-telemetry/opentelemetry-collector-contrib/exporter/fileexporter@v$OTELCOL_VERSION"
# CGO off: a static binary that runs wherever the cache is restored.
CGO_ENABLED=0 go build -mod=mod -trimpath -ldflags="-s -w" -o otelcol-hookgate .
cd - >/dev/null

mkdir -p "$cache_dir"
cp "$work/dist/otelcol-hookgate" "$binary.tmp"
mv "$binary.tmp" "$binary"
"$binary" --version
echo "otelcol-hookgate $OTELCOL_VERSION built in $(($(date +%s) - started))s: $binary"
