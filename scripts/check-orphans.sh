#!/usr/bin/env bash
# Fails when a test left one of our processes behind: MCP servers from the fixtures, the app,
# or the WebDriver pair. Waits up to 5 s for stragglers that are already shutting down.
set -u
pattern='server-everything|tests/fixtures/mcp-|tests/fixtures/conformance|/switchboard( |$)|tauri-driver|WebKitWebDriver'
for _ in $(seq 1 25); do
  left=$(pgrep -af "$pattern" | grep -v -e pgrep -e check-orphans || true)
  [ -z "$left" ] && { echo "no processes left behind"; echo "orphans: 1 passed, 0 failed"; exit 0; }
  sleep 0.2
done
echo "orphans: tests left these processes behind:"
echo "$left"
echo "orphans: 0 passed, 1 failed"
exit 1
