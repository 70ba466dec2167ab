#!/usr/bin/env bash
# Per-call breakdown of an MCP `tools/call` (not part of `make test`): instruction counts under
# callgrind (load-independent; the Node server is another process, so only the client's side
# is counted) and context switches / syscalls per call, for each client of the echo bench:
#   raw        JSON lines straight to the child's stdin (the floor)
#   rmcp       rmcp's client alone (no options)
#   rmcp-opts  rmcp's client alone with our request options (a timeout reset by progress)
#   ours       our McpClient
#   bench/mcp/profile.sh [CALLS] [CLIENT...]      (default 2000 calls, all four clients)
# BENCH_RUNTIME=multi|multi1|current picks the tokio runtime (see benches/mcp.rs).
# Writes callgrind files to $OUT (default target dir's mcp-profile/) and prints, per client:
# instructions per call, by category (bench/mcp/categorize.py), and switches per call.
set -euo pipefail
cd "$(dirname "$0")/../.."
calls=${1:-2000}
shift || true
clients=("$@")
[ ${#clients[@]} -gt 0 ] || clients=(raw rmcp rmcp-opts ours)
js=tests/fixtures/mcp-node/node_modules/@modelcontextprotocol/server-everything/dist/index.js
[ -f "$js" ] || scripts/deps.sh test
# Symbols (not stripped) and line tables, so callgrind names functions.
export CARGO_PROFILE_BENCH_STRIP=false CARGO_PROFILE_BENCH_DEBUG=line-tables-only
# BIN: an already built bench binary (skips cargo, e.g. while another build holds the lock).
bin=${BIN:-}
[ -n "$bin" ] || bin=$(cargo bench -p switchboard-engine --bench mcp --no-run --message-format=json 2>/dev/null |
  python3 -c 'import json,sys
for l in sys.stdin:
    m = json.loads(l)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == "mcp" and m.get("executable"):
        print(m["executable"])')
out=${OUT:-${CARGO_TARGET_DIR:-target}/mcp-profile}
mkdir -p "$out"
rt=${BENCH_RUNTIME:-multi}
base=200
for which in "${clients[@]}"; do
  # Two whole runs, $base and $base + $calls calls: the difference is the calls' cost.
  for n in "$base" "$((base + calls))"; do
    valgrind --tool=callgrind --callgrind-out-file="$out/cg.$rt.$which.$n" \
      "$bin" profile "$which" "$n" >/dev/null 2>&1
  done
  echo "== $which ($rt runtime, $calls calls)"
  python3 bench/mcp/categorize.py "$out/cg.$rt.$which.$base" \
    "$out/cg.$rt.$which.$((base + calls))" "$calls"
  # Outside valgrind: context switches of the client's threads per call, then syscalls per
  # call (strace slows the calls down, so only its counts are used).
  "$bin" profile "$which" "$calls" | sed "s/^/    /"
  # strace attaches after the warm-up (BENCH_PAUSE_MS), so the Node child is not traced.
  BENCH_PAUSE_MS=1500 "$bin" profile "$which" "$calls" >"$out/stdout.$which" &
  runner=$!
  until grep -q '^pid ' "$out/stdout.$which" 2>/dev/null; do sleep 0.05; done
  strace -f -c -o "$out/strace.$rt.$which" -p "$(awk '/^pid /{print $2}' "$out/stdout.$which")" 2>/dev/null &
  wait "$runner" || true
  wait || true
  python3 - "$out/strace.$rt.$which" "$calls" <<'PY'
import sys
calls = int(sys.argv[2])
rows = []
for line in open(sys.argv[1]):
    parts = line.split()
    if len(parts) >= 5 and parts[0][0].isdigit() and parts[-1] not in ("total",):
        rows.append((int(parts[3]), parts[-1]))
rows.sort(reverse=True)
print("    syscalls per call (after the warm-up, strace -f):",
      ", ".join(f"{name} {n / calls:.2f}" for n, name in rows[:8]))
PY
done
