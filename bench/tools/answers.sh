#!/usr/bin/env bash
# `make bench-answers`: the built-in model's answers after a tool's result, as a user gets them
# from the CLI (`switchboard chat --provider local --yes`): a fresh profile with SmolLM2-135M and
# three real servers (server-everything, PyPI's mcp-server-time, the FastMCP weather fixture;
# 25 tools offered), 15 hand-written questions a time or weather tool answers, each asked once
# in a new chat. Counted: answers with a call, and answers that quote the call's result (its
# HH:MM, 24- or 12-hour, for a time; "rain" for the weather server's one sentence) in plain
# words (no backtick, `def `, `import ` or "code"). Nothing is asserted; figures go in
# docs/performance.md.
#
#   TEMP=...   the chat's temperature (default: none set, the app's own default)
#   BIN=...    the switchboard binary (default: the debug build, as make test builds it)
#
# Run it on two builds (a commit and its parent) to compare them: the script does not depend on
# the code it measures.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
BIN=${BIN:-${CARGO_TARGET_DIR:-$HOME/.cache/switchboard/target-dev}/debug/switchboard}
GGUF=${GGUF:-$HOME/.cache/switchboard/models/SmolLM2-135M-Instruct.Q4_1.gguf}
py=$root/tests/fixtures/mcp-py/.venv/bin
everything=$root/tests/fixtures/mcp-node/node_modules/@modelcontextprotocol/server-everything/dist/index.js
for need in "$BIN" "$GGUF" "$py/mcp-server-time" "$everything"; do
  [ -e "$need" ] || { echo "bench-answers: $need is missing (scripts/deps.sh test, cargo build)" >&2; exit 2; }
done
data=$(mktemp -d /tmp/switchboard-bench-answers-XXXXXX)
trap 'rm -rf "$data"' EXIT
sb() { "$BIN" --data-dir "$data" --secrets-file "$@" 2>/dev/null; }
sb models import "$GGUF" >/dev/null
sb servers add everything --command node --arg "$everything" --arg stdio >/dev/null
sb servers add time --command "$py/mcp-server-time" >/dev/null
sb servers add weather --command "$py/python" --arg "$root/tests/fixtures/mcp-py/weather.py" --arg stdio >/dev/null
temp=()
[ -n "${TEMP:-}" ] && temp=(--temperature "$TEMP")

questions=(
  "What time is it now in Tokyo?" "What time is it in Paris right now?"
  "What's the current time in New York?" "Tell me the time in Sydney." "What time is it in Berlin?"
  "Current time in Los Angeles?" "What time is it now in Shanghai?" "What's the time in Moscow?"
  "What time is it in Chicago right now?" "What is the local time in Singapore?"
  "What's the weather like in Paris today?" "Is it raining in London?" "What's the weather in Tokyo?"
  "How is the weather in Berlin right now?" "Will I need an umbrella in Rome today?"
)
called=0 quoted=0 plain=0
for q in "${questions[@]}"; do
  out=$(timeout 300 "$BIN" --data-dir "$data" --secrets-file chat --provider local --yes \
    --server-wait 60 "${temp[@]}" "$q" 2>/dev/null || true)
  result=$(grep '^←' <<<"$out" | head -1 || true)
  answer=$(grep -v '^→\|^←\|^\[conversation\|^✗' <<<"$out" || true)
  good=0
  if [ -n "$result" ]; then
    called=$((called + 1))
    t=$(grep -o '"datetime": "[^"]*"' <<<"$result" | grep -o 'T[0-9][0-9]:[0-9][0-9]' | tr -d T || true)
    if [ -n "$t" ]; then
      h=${t%%:*} m=${t#*:}
      h12=$((10#$h % 12)); [ "$h12" = 0 ] && h12=12
      grep -qE "$t|\b$h12:$m" <<<"$answer" && good=1
    elif grep -qi rain <<<"$result"; then
      grep -qi rain <<<"$answer" && good=1
    fi
  fi
  words=0
  if [ "$good" = 1 ] && ! grep -qE '`|def |import |code' <<<"$answer"; then words=1; fi
  quoted=$((quoted + good)); plain=$((plain + words))
  echo "[$words] $q :: $(head -c 160 <<<"$answer" | tr '\n' ' ')"
done
echo "bench-answers: temperature ${TEMP:-default}: called $called/${#questions[@]}, quoted the result $quoted/${#questions[@]}, in plain words $plain/${#questions[@]}"
