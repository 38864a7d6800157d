#!/usr/bin/env bash
# Installs Hermes Agent (PyPI hermes-agent, pinned here and only here) for the test/real-hosts/hermes
# suite, into a virtualenv at $HOOKGATE_HOSTS_DIR/hermes-<version>. 0.19.0 is the newest release
# that installs on Python 3.11-3.13 (later ones require Python 3.14). Needs such a python3 (or
# $HERMES_PYTHON). With its `mcp` extra (the Python MCP SDK it pins), so Hermes can load a hook's
# tools from the gateway's MCP route. Idempotent: skips when the pinned version and the extra are there.
set -euo pipefail
VERSION="0.19.0"
HOSTS_DIR="${HOOKGATE_HOSTS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/hookgate-hosts}"
dest="$HOSTS_DIR/hermes-$VERSION"
bin="$dest/bin/hermes"
python="${HERMES_PYTHON:-python3}"

if [ -x "$bin" ] && "$dest/bin/python" -m pip show hermes-agent 2>/dev/null | grep -q "^Version: $VERSION$" &&
  "$dest/bin/python" -c 'import mcp.client.streamable_http' 2>/dev/null; then
  echo "hermes $VERSION already installed in $dest"
  exit 0
fi
if ! "$python" -c 'import sys; sys.exit(0 if (3, 11) <= sys.version_info[:2] < (3, 14) else 1)'; then
  echo "hermes $VERSION needs Python >=3.11,<3.14; $python is $("$python" --version 2>&1)" >&2
  exit 1
fi
rm -rf "$dest.partial"
mkdir -p "$HOSTS_DIR"
"$python" -m venv "$dest.partial"
"$dest.partial/bin/python" -m pip install --quiet --disable-pip-version-check "hermes-agent[mcp]==$VERSION"
rm -rf "$dest"
mv "$dest.partial" "$dest"
# The venv's scripts name the .partial interpreter in their #! line; point them at the final one.
grep -l "^#!$dest.partial/bin/python" "$dest"/bin/* 2>/dev/null | while read -r f; do
  sed -i "1s|^#!$dest.partial/bin/python|#!$dest/bin/python|" "$f"
done
sed -i "s|$dest.partial|$dest|g" "$dest/pyvenv.cfg" "$dest"/bin/activate* 2>/dev/null || true
# All of its output, then the first line: `| head -1` closes the pipe early and Hermes dies of
# BrokenPipeError (which, under pipefail, failed the install).
version="$(HOME="$(mktemp -d)" HERMES_HOME="$(mktemp -d)" "$bin" --version 2>&1)"
echo "${version%%$'\n'*}"
echo "hermes $VERSION installed in $dest"
