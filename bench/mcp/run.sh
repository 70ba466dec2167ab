#!/usr/bin/env bash
# MCP host benchmarks (not part of `make test`): `make bench-mcp`.
#  (a) CALLS sequential `tools/call` of server-everything `echo` over stdio, per-call median:
#      our McpClient vs a raw NDJSON client (lower bound) vs rmcp's client alone (the bound
#      rmcp sets) vs the official Python SDK ClientSession; goal ours <= 1.2 x raw.
#  (b) N server-everything processes started together through our Supervisor vs the slowest
#      single start (goal <= 1.1 x), and vs N raw clients spawned and initialized together.
# Each figure is measured ROUNDS times; the report gives the median of the rounds, their spread
# (min-max), and the ratios per round (median and p90 of the round ratios).
#   bench/mcp/run.sh [CALLS] [ROUNDS] [N]      (N=0 leaves (b) out)
# MCP_BENCH_BIN: a bench binary built before (skips cargo; e.g. an older build, side by side).
set -euo pipefail
cd "$(dirname "$0")/../.."
calls=${1:-1000}
rounds=${2:-5}
n=${3:-10}
js=tests/fixtures/mcp-node/node_modules/@modelcontextprotocol/server-everything/dist/index.js
python=tests/fixtures/mcp-py/.venv/bin/python
[ -f "$js" ] && [ -x "$python" ] || scripts/deps.sh test

out=$(mktemp)
trap 'rm -f "$out"' EXIT
bench() {
  if [ -n "${MCP_BENCH_BIN:-}" ]; then
    "$MCP_BENCH_BIN" "$@"
  else
    cargo bench -p switchboard-engine --bench mcp --quiet -- "$@"
  fi
}
if [ -z "${MCP_BENCH_BIN:-}" ]; then
  echo "bench-mcp: building the bench (release profile)…" >&2
  cargo bench -p switchboard-engine --bench mcp --no-run --quiet
fi
echo "bench-mcp: (a) echo: ours and raw, $rounds rounds of $calls calls…" >&2
bench echo "$calls" "$rounds" | tee -a "$out" >&2
echo "bench-mcp: (a) echo: Python SDK ClientSession…" >&2
"$python" bench/mcp/sdk_echo.py "$js" "$calls" "$rounds" | tee -a "$out" >&2
if [ "$n" -gt 0 ]; then
  echo "bench-mcp: (b) $n servers started together, $rounds rounds…" >&2
  bench start "$n" "$rounds" | tee -a "$out" >&2
fi

python3 - "$out" "$calls" "$n" <<'EOF'
import statistics, sys
figures = {}
for line in open(sys.argv[1]):
    key, value = line.split()
    figures.setdefault(key, []).append(float(value))
m = {key: statistics.median(values) for key, values in figures.items()}
def p90(values):
    values = sorted(values)
    return values[max(0, -(-len(values) * 9 // 10) - 1)]
def paired(a, b):
    """The median over rounds of a/b, measured in the same round (steadier on a busy machine),
    and its p90."""
    ratios = [x / y for x, y in zip(figures[a], figures[b])]
    return f"{statistics.median(ratios):.2f} x (p90 {p90(ratios):.2f})"
def spread(key):
    return f"rounds {min(figures[key]):.1f}-{max(figures[key]):.1f}"
calls, n = sys.argv[2], sys.argv[3]
print(f"\n(a) {calls} sequential echo calls over stdio, median per call (median of {len(figures['echo_ours_us'])} rounds):")
print(f"    raw NDJSON client  {m['echo_raw_us']:9.1f} us   {spread('echo_raw_us')}")
print(f"    ours (McpClient)   {m['echo_ours_us']:9.1f} us   {m['echo_ours_us'] / m['echo_raw_us']:.2f} x raw (goal <= 1.2); per round {paired('echo_ours_us', 'echo_raw_us')}; {spread('echo_ours_us')}")
print(f"    rmcp client alone  {m['echo_rmcp_us']:9.1f} us   {m['echo_rmcp_us'] / m['echo_raw_us']:.2f} x raw; per round {paired('echo_rmcp_us', 'echo_raw_us')}; ours = {paired('echo_ours_us', 'echo_rmcp_us')} rmcp; {spread('echo_rmcp_us')}")
print(f"    Python SDK         {m['echo_sdk_us']:9.1f} us   {m['echo_sdk_us'] / m['echo_raw_us']:.2f} x raw")
if 'start_together_ms' not in figures:
    sys.exit(0)
print(f"\n(b) {n} stdio servers started together (median of {len(figures['start_together_ms'])} rounds):")
print(f"    slowest single start          {m['start_slowest_single_ms']:8.1f} ms")
print(f"    {n} together (Supervisor)      {m['start_together_ms']:8.1f} ms   {m['start_together_ms'] / m['start_slowest_single_ms']:.2f} x slowest single (goal <= 1.1); per round {paired('start_together_ms', 'start_slowest_single_ms')}")
print(f"    {n} together (raw clients)     {m['start_raw_together_ms']:8.1f} ms   Supervisor = {m['start_together_ms'] / m['start_raw_together_ms']:.2f} x raw; per round {paired('start_together_ms', 'start_raw_together_ms')}")
EOF
