# Switchboard: `make run` opens the app, `make test` runs every test. Both install what they
# need first (Debian packages via apt-get, npm packages, tauri-driver).
SHELL := /bin/bash
export CARGO_TARGET_DIR ?= $(HOME)/.cache/switchboard/target
export PATH := $(HOME)/.cargo/bin:$(PATH)
BIN := $(CARGO_TARGET_DIR)/debug/switchboard

# llama.cpp (the built-in model) is compiled for the SIMD extensions of the CPU that builds it.
# llama-cpp-sys-2 turns ggml's AVX/FMA paths on only for features rustc targets, and rustc's
# default x86-64 target has none of them, so generation ran slower than llama.cpp's own native
# build; its GGML_* variables are passed to CMake. `make deb PORTABLE=1` (or any PORTABLE=1)
# leaves them off for a package that must run on any x86-64 CPU.
ifeq ($(PORTABLE),)
CPU_FLAGS := $(shell grep -m1 '^flags' /proc/cpuinfo 2>/dev/null)
ggml_if = $(if $(filter $(1),$(CPU_FLAGS)),$(eval export $(2) := ON))
$(call ggml_if,avx,GGML_AVX)
$(call ggml_if,avx2,GGML_AVX2)
$(call ggml_if,fma,GGML_FMA)
$(call ggml_if,f16c,GGML_F16C)
$(call ggml_if,bmi2,GGML_BMI2)
$(call ggml_if,sse4_2,GGML_SSE42)
$(call ggml_if,avx_vnni,GGML_AVX_VNNI)
ifeq ($(words $(filter avx512f avx512cd avx512vl avx512dq avx512bw,$(CPU_FLAGS))),5)
export GGML_AVX512 := ON
$(call ggml_if,avx512_vnni,GGML_AVX512_VNNI)
endif
endif

.PHONY: run test ui test-rust test-ui test-e2e test-conformance lint deb bless bench-agent bench-history bench-sync bench-mcp bench-export bench-attach bench-discovery bench-ui bench-local bench-tools bench-answers bench-web bench-knowledge bench-serve bench-serve-ttft

# The built-in embedder for knowledge bases that deps.sh makes.
EMBED_GGUF := $(HOME)/.cache/switchboard/models/multilingual-e5-small-q4_0.gguf

# A profile with no model gets the SmolLM2 file deps.sh fetched as the built-in model's default,
# and knowledge bases the multilingual-e5-small embedder deps.sh made.
run:
	scripts/deps.sh run
	$(MAKE) ui
	SWITCHBOARD_DEFAULT_GGUF=$(HOME)/.cache/switchboard/models/SmolLM2-135M-Instruct.Q4_1.gguf \
	SWITCHBOARD_EMBED_GGUF=$(EMBED_GGUF) \
	  cargo run --bin switchboard

ui:
	cd ui && npm run build

test:
	scripts/deps.sh test
	$(MAKE) ui
	$(MAKE) lint
	$(MAKE) test-rust
	$(MAKE) test-ui
	$(MAKE) test-e2e
	$(MAKE) test-conformance
	scripts/check-orphans.sh

lint:
	cargo fmt --all -- --check
	cargo clippy --workspace --all-targets --quiet -- -D warnings

test-rust:
	cargo test --workspace

# The IPC contract (ui/src/api/commands.ts matches the Rust commands, so that the type check
# below sees them), type check, vitest, the XSS corpus and math under the window CSP, and the
# windowed sidebar's layout, artifact previews (a Mermaid diagram drawn, a hostile artifact
# contained), in a real Chromium (/usr/bin/chromium).
test-ui:
	cargo test --quiet -p switchboard-ipc-contract
	cd ui && npm run check && npm test && npm run test:xss-browser && npm run test:math-browser && npm run test:artifact-browser && npm run test:sidebar-browser

# The real window under Xvfb through tauri-driver + WebKitWebDriver (the built-in model's
# onboarding and a generated answer included; installing from the registry, a link and a bundle;
# a server added in the form starting at once and its tool called by the built-in model; the
# quick window opened by the global shortcut).
test-e2e:
	cargo build --bin switchboard
	xvfb-run -a -s "-screen 0 1280x800x24" dbus-run-session -- node tests/e2e/window.mjs "$(BIN)"
	xvfb-run -a -s "-screen 0 1280x800x24" dbus-run-session -- node tests/e2e/apps.mjs "$(BIN)"
	xvfb-run -a -s "-screen 0 1280x800x24" dbus-run-session -- node tests/e2e/local.mjs "$(BIN)"
	xvfb-run -a -s "-screen 0 1280x800x24" dbus-run-session -- node tests/e2e/assistants.mjs "$(BIN)"
	xvfb-run -a -s "-screen 0 1280x800x24" dbus-run-session -- node tests/e2e/attachments.mjs "$(BIN)"
	xvfb-run -a -s "-screen 0 1280x800x24" dbus-run-session -- node tests/e2e/install.mjs "$(BIN)"
	xvfb-run -a -s "-screen 0 1280x800x24" dbus-run-session -- node tests/e2e/knowledge.mjs "$(BIN)"
	xvfb-run -a -s "-screen 0 1280x800x24" dbus-run-session -- node tests/e2e/first-run.mjs "$(BIN)"
	xvfb-run -a -s "-screen 0 1280x800x24" dbus-run-session -- node tests/e2e/quick.mjs "$(BIN)"

# The official MCP conformance suite (client mode against our CLI, server mode against our
# endpoint passing its reference server through), in a private network
# namespace; every client scenario of both protocol eras (2025-11-25, 2026-07-28); known failures
# are listed, per era, in tests/conformance/expected-failures*.yaml.
test-conformance:
	cargo build --bin switchboard
	tests/conformance/run.sh "$(BIN)"

# A Debian package of the app (release build). It ships the built-in embedder deps.sh made as a
# resource (/usr/lib/Switchboard/models/), so knowledge bases get vectors on a fresh install,
# offline; `make deb DEBUG=1` packages a debug build.
deb:
	scripts/deps.sh run
	$(MAKE) ui
	ui/node_modules/.bin/tauri build --bundles deb $(if $(DEBUG),--debug) \
	  --config '{"bundle":{"resources":{"$(EMBED_GGUF)":"models/multilingual-e5-small-q4_0.gguf"}}}'

# Rewrites ui/src/bindings.ts from the Rust types, then ui/src/api/commands.ts (the typed IPC
# commands) from the Rust commands and those types.
bless:
	SWITCHBOARD_BLESS=1 cargo test --test all bindings
	SWITCHBOARD_BLESS=1 cargo test -p switchboard-ipc-contract

# Benchmarks (not part of `make test`; results go in the closing notes).
LANGGRAPH_VENV := $(HOME)/.cache/switchboard/venv-langgraph

# One full turn, Switchboard vs LangGraph's create_react_agent, same fake model and server.
bench-agent:
	scripts/deps.sh test
	$(MAKE) ui
	test -x $(LANGGRAPH_VENV)/bin/python || python3 -m venv $(LANGGRAPH_VENV)
	$(LANGGRAPH_VENV)/bin/pip install -q -r bench/agent/requirements.txt
	LANGGRAPH_PYTHON=$(LANGGRAPH_VENV)/bin/python cargo bench --bench turn

# Sync at scale (medians, nothing asserted): 10,000 conversations' first sync through a real
# WebDAV server (wsgidav) and a folder, then one changed message; times, bytes and requests.
SYNC_CONVERSATIONS ?= 10000
SYNC_RUNS ?= 3
bench-sync:
	scripts/deps.sh test
	SWITCHBOARD_BENCH_CONVERSATIONS=$(SYNC_CONVERSATIONS) SWITCHBOARD_BENCH_RUNS=$(SYNC_RUNS) \
		cargo bench -p switchboard-engine --bench sync

# History at scale: 100k conversations, 2M messages (the database is built once).
bench-history:
	cargo bench -p switchboard-engine --bench history

# MCP host benchmarks (not part of `make test`): echo latency vs a raw client and the Python
# SDK, and 10 servers started together; prints medians and ratios.
bench-mcp:
	bench/mcp/run.sh

# Switchboard's MCP endpoint (`mcp serve --stdio`, release build): server-everything's echo
# through it vs straight to the server, by the Python SDK client; CALLS per round, ROUNDS rounds.
CALLS ?= 1000
ROUNDS ?= 5
bench-serve:
	scripts/deps.sh test
	$(MAKE) ui
	cargo build --release --bin switchboard
	tests/fixtures/mcp-py/.venv/bin/python bench/serve/bench_serve.py $(CARGO_TARGET_DIR)/release/switchboard \
	  tests/fixtures/mcp-node/node_modules/@modelcontextprotocol/server-everything/dist/index.js $(CALLS) $(ROUNDS)

# The built-in model's time to first token through /v1/chat/completions against the in-app
# turn, in one process; TTFT_RUNS pairs.
TTFT_RUNS ?= 30
bench-serve-ttft:
	scripts/deps.sh test
	$(MAKE) ui
	SWITCHBOARD_BENCH_RUNS=$(TTFT_RUNS) cargo bench --bench serve_ttft

# Tool discovery per turn with warm caches: a 2026-07-28 server with cache hints vs the
# handshake era (server-everything); medians of 50 and their ratio.
bench-discovery:
	scripts/deps.sh test
	$(MAKE) ui
	cargo bench --bench discovery

# The built-in model (llama.cpp in process) next to llama-cpp-python's OpenAI-compatible server on
# the same GGUF, threads and context: prompt and generation tokens/s, first token, follow-up
# first token, RSS (medians of RUNS). Builds llama-cpp-python in ~/.cache/switchboard once.
LLAMA_VENV := $(HOME)/.cache/switchboard/venv-llama
bench-local:
	scripts/deps.sh test
	$(MAKE) ui
	test -x $(LLAMA_VENV)/bin/python || python3 -m venv $(LLAMA_VENV)
	$(LLAMA_VENV)/bin/python -c 'import llama_cpp.server' 2>/dev/null || \
		CMAKE_ARGS="-DGGML_OPENMP=OFF" $(LLAMA_VENV)/bin/pip install -q "llama-cpp-python[server]==0.3.36"
	SWITCHBOARD_LLAMA_PYTHON=$(LLAMA_VENV)/bin/python SWITCHBOARD_BENCH_RUNS=$(RUNS) \
		cargo bench --bench local

# Tool calls on public data: the Berkeley Function Calling Leaderboard's simple, multiple,
# parallel and irrelevance cases (bfcl-eval's data and AST checker) answered by the built-in
# model (held, unheld, and the held decoding cost) and by llama-cpp-python's server, on SmolLM2
# 135M Instruct and Gemma 3 270M (a base model, prompted in ChatML: no other small instruct
# GGUF is on PyPI or npm): accuracy, calls that did not parse, median seconds per case.
# CASES=N takes a spread of N cases per category (default all); results in bench/tools/results/.
bench-tools:
	scripts/deps.sh run
	$(MAKE) ui
	CASES=$(CASES) RUNS=$(RUNS) bench/tools/run.sh

# The built-in model's answers after a tool's result, through the CLI with three real servers:
# 15 questions, the answers that quote the result in plain words counted (TEMP=… sets the
# chat's temperature; default: the app's own).
bench-answers:
	scripts/deps.sh test
	$(MAKE) ui
	cargo build --bin switchboard
	TEMP=$(TEMP) BIN=$(BIN) bench/tools/answers.sh

# Export and import of CONVERSATIONS × 50 messages in every format (medians; RUNS each).
CONVERSATIONS ?= 1000
RUNS ?= 5
bench-export:
	SWITCHBOARD_BENCH_CONVERSATIONS=$(CONVERSATIONS) SWITCHBOARD_BENCH_RUNS=$(RUNS) \
		cargo bench -p switchboard-engine --bench export

# Attachments (medians, nothing asserted): a 12 MP photo made send-ready, the same photo in ten
# messages (database growth), a 300-page PDF's text. ATTACH_RUNS=N sets the runs (15).
ATTACH_RUNS ?= 15
bench-attach:
	SWITCHBOARD_BENCH_RUNS=$(ATTACH_RUNS) cargo bench -p switchboard-engine --bench attachments

# The web server's read of a 5 MB page (English and Chinese) from a local server, and fetch of
# the same page, through the MCP client (medians, nothing asserted). RUNS=N sets the runs (15).
WEB_RUNS ?= 15
bench-web:
	SWITCHBOARD_BENCH_RUNS=$(WEB_RUNS) cargo bench -p switchboard-engine --bench web

# Knowledge bases (medians and spread of RUNS, 3 unless told; nothing asserted): 100,000 chunks
# searched (p50/p95 hybrid, keywords, vectors; memory), indexing speed against llama-cpp-python
# on the same GGUF and threads (its virtualenv as bench-local makes it), and nDCG@10 on BEIR
# SciFact when ~/.cache/switchboard/bench/scifact holds it (made by bench/knowledge/scifact.py,
# outside the repository). PARTS=scale,speed,quality picks parts (all unless told); PARTS=query
# times a question's embedding alone on the one-thread question lane and the passage lane.
KB_RUNS ?= 3
bench-knowledge:
	test -x $(LLAMA_VENV)/bin/python || python3 -m venv $(LLAMA_VENV)
	$(LLAMA_VENV)/bin/python -c 'import llama_cpp.server' 2>/dev/null || \
		CMAKE_ARGS="-DGGML_OPENMP=OFF" $(LLAMA_VENV)/bin/pip install -q "llama-cpp-python[server]==0.3.36"
	SWITCHBOARD_LLAMA_PYTHON=$(LLAMA_VENV)/bin/python SWITCHBOARD_BENCH_RUNS=$(or $(RUNS),$(KB_RUNS)) \
	SWITCHBOARD_SCIFACT_DIR=$(HOME)/.cache/switchboard/bench/scifact SWITCHBOARD_KB_PARTS=$(PARTS) \
		cargo bench -p switchboard-engine --bench knowledge

# UI benchmarks (medians, nothing asserted): the chat pane in Chromium over the fake backend
# (a 5,000-token answer streamed, a 2,000-message conversation opened), then the real app
# (release build) under Xvfb with 10,000 conversations: cold start (RUNS launches; the issue's
# p90 takes RUNS=20), memory, UI_TURNS streamed turns (0 skips them).
UI_TURNS ?= 1000
bench-ui:
	scripts/deps.sh test
	scripts/deps.sh bench
	$(MAKE) ui
	cd ui && npm run bench:chat
	cargo build --release --bin switchboard
	BENCH_RUNS=$(RUNS) BENCH_TURNS=$(UI_TURNS) xvfb-run -a -s "-screen 0 1280x800x24" \
	  dbus-run-session -- node bench/ui/app-perf.mjs "$(CARGO_TARGET_DIR)/release/switchboard"
	xvfb-run -a -s "-screen 0 1280x800x24" \
	  dbus-run-session -- node bench/ui/quick-perf.mjs "$(CARGO_TARGET_DIR)/release/switchboard"
