#!/usr/bin/env bash
# Builds a minimal OpenTelemetry Collector, pinned below, from the Go module proxy with the official
# collector builder (ocb): the OTLP receiver (HTTP and gRPC) and the contrib file exporter (OTLP
# JSON lines), nothing else. The binary lands in a cache outside the repo,
# ${XDG_CACHE_HOME:-~/.cache}/hookgate/otelcol-<version>/otelcol-hookgate (HOOKGATE_OTELCOL_DIR
# overrides the directory), where test/server/tracing finds it. Skips when it is already there.
# A clean build (download + compile of ~250 modules) takes about 2-3 minutes on two cores.
#
# Not the builder's own `go mod tidy`: that also fetches the modules the components' *tests* import,
# and the Go module proxy refuses one of them (contrib's otlpencodingextension at these versions),
# which fails the whole build. So the builder only writes the sources; the module is resolved here
# with the versions pinned first and `go mod tidy -e`, which records what the build needs and
# tolerates a test-only module it cannot fetch.
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
go mod tidy -e
# CGO off: a static binary that runs wherever the cache is restored.
CGO_ENABLED=0 go build -trimpath -o otelcol-hookgate .
cd - >/dev/null

mkdir -p "$cache_dir"
cp "$work/dist/otelcol-hookgate" "$binary.tmp"
mv "$binary.tmp" "$binary"
"$binary" --version
echo "otelcol-hookgate $OTELCOL_VERSION built in $(($(date +%s) - started))s: $binary"
