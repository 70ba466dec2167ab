#!/usr/bin/env bash
# The official MCP conformance suite's server scenarios against Switchboard's endpoint: the
# suite's own reference server (tests/fixtures/conformance-server, vendored) is added to a fresh
# profile as a streamable HTTP server, served alone and as it is by `switchboard serve --server`
# (its tools and prompts under their own names, every call through Switchboard's policy: set
# to allow for each of its tools here), and reached through token-proxy.mjs, which adds the client's bearer token the
# suite cannot send. The custom-header scenario reaches our FastMCP header server the same way. Run by run.sh inside its private network namespace; every server scenario
# of both eras runs, known failures listed with reasons under `server:` in the era's
# expected-failures file.
#   tests/conformance/server.sh SWITCHBOARD_BINARY NODE SUITE OUT_DIR [SCENARIO]
set -euo pipefail
bin=$1 node=$2 suite=$3 out=$4 only=${5:-}
root=$(cd "$(dirname "$0")/../.." && pwd)
fixture=$root/tests/fixtures/conformance-server
[ -e "$fixture/node_modules/tsx/dist/loader.mjs" ] || { echo "conformance: missing $fixture/node_modules (run scripts/deps.sh test)" >&2; exit 1; }

profile=$out/server-profile
mkdir -p "$profile"
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT

free_port() { "$node" -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
wait_for() { # PORT
  for _ in $(seq 1 300); do
    "$node" -e 'const c=require("net").connect(+process.argv[1],"127.0.0.1",()=>process.exit(0));c.on("error",()=>process.exit(1))' "$1" && return 0
    sleep 0.1
  done
  echo "conformance: nothing listens on 127.0.0.1:$1" >&2; return 1
}

upstream=$(free_port)
# tsx's loader in this one process (its CLI would run the server in a child of its own).
(cd "$fixture" && PORT=$upstream exec "$node" --require ./node_modules/tsx/dist/preflight.cjs \
  --import ./node_modules/tsx/dist/loader.mjs everything-server.ts) >"$out/upstream.log" 2>&1 &
pids+=($!)
wait_for "$upstream"

# The reference server speaks both eras. The 2026-07-28 scenarios reach it as it is; the
# 2025-11-25 ones through a proxy that answers `server/discover` as a handshake-era server does,
# so that Switchboard reaches it in the handshake era too (its 2025 tools ask the client with
# server-to-client requests, which a stateless connection has no channel for).
handshake=$(free_port)
"$node" "$root/tests/conformance/token-proxy.mjs" "$handshake" "$upstream" - handshake-only >/dev/null 2>&1 &
pids+=($!)
wait_for "$handshake"

# The reference server has no tool with an `x-mcp-header` property (SEP-2243), so the custom
# header scenario reaches a FastMCP server of ours that has one (tests/fixtures/mcp-py).
py=$root/tests/fixtures/mcp-py
cat >"$profile/servers.json" <<JSON
{"mcpServers": {
  "conformance": {"type": "http", "url": "http://127.0.0.1:$upstream/mcp", "approval": "allow"},
  "conformance-2025": {"type": "http", "url": "http://127.0.0.1:$handshake/mcp", "approval": "allow"},
  "headers": {"command": "$py/.venv/bin/python", "args": ["$py/header_server.py"], "approval": "allow"}
}}
JSON
"$bin" --data-dir "$profile" servers import "$profile/servers.json" >/dev/null
# A server's "allow" covers only tools marked read-only or non-destructive: allow each tool, as
# a user who trusts this server would (the suite's client cannot be asked).
for server in conformance conformance-2025; do
  "$bin" --data-dir "$profile" servers tools "$server" | awk '{print $1}' | while read -r tool; do
    "$bin" --data-dir "$profile" servers approval "$server" allow --tool "$tool" >/dev/null
  done
done
token=$("$bin" --data-dir "$profile" clients add conformance | sed -n 2p | tr -d ' ')

# One endpoint per era, each serving its server alone and as it is, behind the token proxy
# (and one for the header server).
declare -A url
for era in 2025-11-25 2026-07-28 headers; do
  server=conformance; [ "$era" = 2025-11-25 ] && server=conformance-2025
  [ "$era" = headers ] && server=headers
  endpoint=$(free_port)
  "$bin" --data-dir "$profile" serve --port "$endpoint" --server "$server" --server-wait 30 \
    >"$out/serve-$era.log" 2>&1 &
  pids+=($!)
  wait_for "$endpoint"
  proxy=$(free_port)
  "$node" "$root/tests/conformance/token-proxy.mjs" "$proxy" "$endpoint" "$token" >/dev/null 2>&1 &
  pids+=($!)
  wait_for "$proxy"
  url[$era]=http://127.0.0.1:$proxy/mcp
done

server_scenarios() { # --spec-version V
  "$node" "$suite" list --server "$@" | sed -n '/^Server scenarios/,/^[^ ]/s/^  - \([^ ]*\).*/\1/p'
}
# A listed scenario may fail only by the checks its entry names: for server-stateless, the two
# list_changed SHOULDs (see expected-failures-2026-07-28.yaml); every other check must pass.
only_known_checks_fail() { # SCENARIO
  [ "$1" = server-stateless ] || return 0
  local checks; checks=$(ls -t "$out"/results/server-"$1"-*/checks.json | head -1)
  "$node" -e '
    const known = new Set(["sep-2575-server-sends-prompts-list-changed-on-subscription",
      "sep-2575-server-sends-tools-list-changed-on-subscription"]);
    const bad = require(process.argv[1]).filter(c => c.status !== "SUCCESS" && !known.has(c.id));
    for (const c of bad) console.error(`conformance: ${c.id}: ${c.status} ${c.errorMessage ?? ""}`);
    process.exit(bad.length ? 1 : 0);' "$checks"
}
passed=0; known=0; failed=()
for era in 2025-11-25 2026-07-28; do
  expected=$root/tests/conformance/expected-failures-$era.yaml
  while read -r scenario; do
    [ -z "$only" ] || [ "$scenario" = "$only" ] || continue
    log=$out/server-$era-$scenario.log
    target=${url[$era]}
    [ "$scenario" = http-custom-header-server-validation ] && target=${url[headers]}
    if "$node" "$suite" server --url "$target" --scenario "$scenario" --spec-version "$era" \
      --timeout 30000 --expected-failures "$expected" --output-dir "$out/results" \
      ${only:+--verbose} >"$log" 2>&1; then
      if grep -q "Expected failures" "$log" && ! only_known_checks_fail "$scenario"; then
        failed+=("[$era] $scenario (a check beyond the listed ones)")
        echo "conformance: server [$era] $scenario ... FAILED (a check beyond the listed ones)"
      elif grep -q "Expected failures" "$log"; then
        known=$((known + 1)); echo "conformance: server [$era] $scenario ... known failure"
      else
        passed=$((passed + 1)); echo "conformance: server [$era] $scenario ... ok"
      fi
    else
      failed+=("[$era] $scenario")
      echo "conformance: server [$era] $scenario ... FAILED"
      tail -n 30 "$log" >&2
    fi
  done < <(server_scenarios --spec-version "$era")
done
[ ${#failed[@]} -eq 0 ] || echo "conformance: server: unexpected results (a new failure, or a listed one that now passes): ${failed[*]}"
echo "conformance: server: $passed passed, ${#failed[@]} failed, $known skipped"
[ ${#failed[@]} -eq 0 ]
