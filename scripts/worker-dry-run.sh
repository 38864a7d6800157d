#!/usr/bin/env bash
# Bundles the gateway Worker the way `wrangler deploy` would, without deploying: offline, no
# login, no telemetry. Fails (non-zero) when the bundle does not build, e.g. because something
# in src/worker's import graph needs node:* (wrangler.toml has no nodejs_compat).
#
#   bash scripts/worker-dry-run.sh            # bundle into a temporary directory, then remove it
#   bash scripts/worker-dry-run.sh dist/worker  # keep the bundle there
set -euo pipefail

cd "$(dirname "$0")/.."

export WRANGLER_SEND_METRICS=false
export CLOUDFLARE_CF_FETCH_ENABLED=false
# The banner runs an npm update check; skip it (there may be no network).
export WRANGLER_HIDE_BANNER=true
# No account is needed for --dry-run; make sure nothing tries to find or refresh one.
unset CLOUDFLARE_API_TOKEN CLOUDFLARE_API_KEY CLOUDFLARE_EMAIL CLOUDFLARE_ACCOUNT_ID || true

if [[ $# -gt 0 ]]; then
  outdir="$1"
  mkdir -p "$outdir"
else
  outdir="$(mktemp -d "${TMPDIR:-/tmp}/hookgate-worker.XXXXXX")"
  trap 'rm -rf "$outdir"' EXIT
fi

wrangler="node_modules/.bin/wrangler"
if [[ ! -x "$wrangler" ]]; then
  echo "worker-dry-run: $wrangler not found; run npm ci first" >&2
  exit 1
fi

"$wrangler" deploy --dry-run --outdir "$outdir" --config wrangler.toml

bundle="$outdir/index.js"
if [[ ! -s "$bundle" ]]; then
  echo "worker-dry-run: wrangler reported success but $bundle is missing or empty" >&2
  exit 1
fi
# Belt and braces: the bundle itself must not import node:* (nor ws or pino).
if grep -Eq "from ['\"](node:[a-z_/]+|ws|pino)['\"]|require\(['\"](node:|ws['\"]|pino['\"])" "$bundle"; then
  echo "worker-dry-run: the bundle imports node:*, ws or pino:" >&2
  grep -Eo "from ['\"](node:[a-z_/]+|ws|pino)['\"]|require\(['\"](node:[a-z_/]+|ws|pino)['\"]\)" "$bundle" | sort -u >&2
  exit 1
fi
echo "worker-dry-run: ok ($(wc -c <"$bundle") bytes in $bundle)"
