#!/usr/bin/env bash
# Schemathesis (pinned, from PyPI, into a venv cached outside the repo) against a real gateway that
# this script starts on a free port and stops: every check (--checks all), once with a tenant token,
# once with none, and the admin routes once with the admin token. Passes when no run has a finding
# and no response was a 5xx; prints one line per run and exits non-zero otherwise.
#
#   bash scripts/schemathesis.sh            # needs node (22 or 24), npm ci done, and python3 >= 3.11
#   SCHEMATHESIS_MAX_EXAMPLES=100 bash scripts/schemathesis.sh   # a longer run
set -uo pipefail
cd "$(dirname "$0")/.."
repo="$PWD"

version=4.32.5
max_examples="${SCHEMATHESIS_MAX_EXAMPLES:-25}"
venv="${XDG_CACHE_HOME:-$HOME/.cache}/hookgate/schemathesis-$version"

if [ ! -x "$venv/bin/st" ]; then
  rm -rf "$venv"
  if ! { python3 -m venv "$venv" && "$venv/bin/pip" install -q --disable-pip-version-check "schemathesis==$version"; }; then
    echo "schemathesis: could not install schemathesis==$version from PyPI into $venv (needs python3 >= 3.11 with venv, e.g. apt-get install python3-venv)"
    exit 1
  fi
fi

work="$(mktemp -d)"
gateway_pid=""
cleanup() {
  if [ -n "$gateway_pid" ] && kill "$gateway_pid" 2>/dev/null; then
    wait "$gateway_pid" 2>/dev/null
  fi
  rm -rf "$work"
}
trap cleanup EXIT

# The tenant and hook the document's examples name (demo, weather: the demo's SDK hook), with no
# call limits, so every answer is the route's own rather than a 429; the admin routes enabled.
secret="$(head -c 32 /dev/urandom | base64 | tr -d '=+/\n')"
admin_token="$(head -c 32 /dev/urandom | base64 | tr -d '=+/\n')"
cat >"$work/hookgate.yaml" <<EOF
server:
  host: 127.0.0.1
  port: 0
  log_level: info
  admin_token: env:SCHEMATHESIS_ADMIN_TOKEN
tenants:
  demo:
    auth:
      audience: hookgate
      keys:
        - { kid: k1, alg: HS256, secret: env:SCHEMATHESIS_TENANT_SECRET }
    hooks:
      weather:
        backend: { type: module, module: $repo/examples/weather-hook.ts }
        modes: [observe, llm, tool, approve]
        tools: [get_weather]
        timeout_ms: 4000
EOF
export SCHEMATHESIS_ADMIN_TOKEN="$admin_token" SCHEMATHESIS_TENANT_SECRET="$secret"

# Most generated paths name that tenant and hook, so a token gets past auth to the route itself;
# the rest are random and meet the 401/404 answers.
cat >"$work/schemathesis.toml" <<EOF
[dictionaries.tenants]
values = ["demo"]
[dictionaries.hooks]
values = ["weather"]
[parameters]
"path.tenant" = { dictionary = "tenants", probability = 0.8 }
"path.hook" = { dictionary = "hooks", probability = 0.8 }

# schemathesis speaks plain HTTP: a GET to the WebSocket route without the handshake is answered
# 426, as the document says, and that is all of it this run can see (test/server/ws.test.ts drives
# the WebSocket itself). Every other check still runs on it.
[[operations]]
include-operation-id = "connectHookWebSocket"
checks.positive_data_acceptance.expected-statuses = ["2xx", "3xx", "401", "403", "404", "409", "426", "429", "5xx"]
EOF

hookgate=(node --import tsx src/node/cli/bin.ts)

# Started directly (no subshell in between), so $! is the gateway itself and cleanup stops it.
"${hookgate[@]}" serve --config "$work/hookgate.yaml" >"$work/gateway.log" 2>&1 &
gateway_pid=$!
# The gateway logs its URL (with the port the OS chose) once it listens.
url=""
for _ in $(seq 1 300); do
  url="$(sed -n 's/.*"url":"\(http:[^"]*\)".*"msg":"hookgate listening".*/\1/p' "$work/gateway.log" | head -1)"
  [ -n "$url" ] && break
  kill -0 "$gateway_pid" 2>/dev/null || break
  sleep 0.2
done
if [ -z "$url" ]; then
  echo "schemathesis: the gateway did not start:"
  cat "$work/gateway.log"
  exit 1
fi
if ! token="$("${hookgate[@]}" token --config "$work/hookgate.yaml" --tenant demo --hooks weather --ttl 1h)"; then
  echo "schemathesis: could not sign a tenant token"
  exit 1
fi

# One run: its findings (schemathesis's exit status) and its 5xx answers (from the HAR report).
failed=0
run() {
  local name="$1"
  shift
  local har="$work/$name.har"
  # From the temporary directory: schemathesis keeps a cache (.schemathesis/) where it runs.
  (cd "$work" && "$venv/bin/st" --config-file "$work/schemathesis.toml" --no-color run "$url/openapi.json" --url "$url" --checks all --max-examples "$max_examples" \
    --workers 1 --generation-database none -H 'Accept: application/json, text/event-stream' --report har --report-har-path "$har" "$@") >"$work/$name.txt" 2>&1
  local rc=$?
  local server_errors
  server_errors="$("$venv/bin/python" -c '
import json, sys
try:
    entries = json.load(open(sys.argv[1]))["log"]["entries"]
except (OSError, ValueError, KeyError):
    print("?"); sys.exit()
print(sum(1 for e in entries if e["response"]["status"] >= 500))
' "$har")"
  local summary
  summary="$(grep -E '^=+ .* in [0-9.]+s =+$' "$work/$name.txt" | tail -1 | tr -d '=' | sed 's/^ *//;s/ *$//')"
  if [ "$rc" -eq 0 ] && [ "$server_errors" = 0 ]; then
    echo "schemathesis ($name): ok, 0 findings, 0 5xx ($summary)"
  else
    echo "schemathesis ($name): FAILED, exit $rc, $server_errors 5xx ($summary)"
    sed -n '/^=* FAILURES =*$/,/^=* SUMMARY =*$/p' "$work/$name.txt"
    failed=1
  fi
}

run "tenant token" -H "Authorization: Bearer $token"
run "no token"
run "admin token" -H "Authorization: Bearer $admin_token" --include-path-regex '^/(metrics|readyz|admin/)'

exit "$failed"
