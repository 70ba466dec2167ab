"""`make bench-serve`: server-everything's `echo` called through Switchboard's endpoint against
the same call made straight to server-everything, both by the official Python SDK's
ClientSession, over each transport:

- stdio: `switchboard mcp serve --stdio` vs server-everything over stdio, and — for reference,
  the floor of any process in between — the same server behind `socat`, which copies bytes
  between the pipes and parses nothing;
- http: `switchboard serve` (streamable HTTP on 127.0.0.1, a client's bearer token; the upstream
  server over stdio) vs server-everything's own streamable HTTP mode (kept on 127.0.0.1 by
  loopback.cjs).

Each round opens the sessions, warms each up, then makes CALLS sequential calls on each
pair (at most HTTP_CALLS over HTTP, under a client's 1,200 requests a minute), alternating side
by side; a round gives each side's median and p90 and the ratio of the
medians. The byte relay (when socat is installed) gets a pass of its own after the endpoint's,
direct against relay alternating the same way, so the endpoint's figure is measured as before.
Printed: every round, then the medians over the rounds, their spread (min–max), and
the median round ratio per transport. Last, 50 clients (each with its own token) make 100 calls
each at once through `switchboard serve`: errors, the latency's median and p99, calls a second.

    tests/fixtures/mcp-py/.venv/bin/python bench/serve/bench_serve.py SWITCHBOARD EVERYTHING_JS [CALLS] [ROUNDS]
"""

import asyncio
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import AsyncExitStack
from pathlib import Path

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamablehttp_client

WARMUP = 50
CLIENTS = 50
CLIENT_CALLS = 100
# Calls a round makes over HTTP: each client may make 1,200 requests a minute, so a round's
# side-by-side calls over HTTP stop below that (each round with a client of its own).
HTTP_CALLS = 500
LOOPBACK = str(Path(__file__).with_name("loopback.cjs"))


def p90(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]


def pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def session(stack: AsyncExitStack, params: StdioServerParameters) -> ClientSession:
    read, write = await stack.enter_async_context(stdio_client(params))
    s = await stack.enter_async_context(ClientSession(read, write))
    await s.initialize()
    return s


async def http_session(stack: AsyncExitStack, url: str, token: str | None = None) -> ClientSession:
    headers = {"Authorization": f"Bearer {token}"} if token else None
    read, write, _ = await stack.enter_async_context(streamablehttp_client(url, headers=headers))
    s = await stack.enter_async_context(ClientSession(read, write))
    await s.initialize()
    return s


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def started(args: list[str], env: dict | None = None) -> subprocess.Popen:
    import os

    return subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            env={**os.environ, **(env or {})}, text=True)


def serving(switchboard: str, profile: str) -> tuple[subprocess.Popen, str]:
    """`switchboard serve --port 0` over PROFILE and the URL it printed."""
    child = started([switchboard, "--data-dir", profile, "serve", "--port", "0", "--server-wait", "60"])
    line = child.stdout.readline().strip()
    assert line.startswith("Serving MCP on "), line
    return child, line.removeprefix("Serving MCP on ")


async def wait_for_http(url: str) -> None:
    for _ in range(200):
        try:
            async with AsyncExitStack() as stack:
                await http_session(stack, url)
                return
        except Exception:  # noqa: BLE001 - not listening yet
            await asyncio.sleep(0.05)
    raise RuntimeError(f"{url} never answered")


async def timed(s: ClientSession, tool: str) -> float:
    started = time.perf_counter()
    result = await s.call_tool(tool, {"message": "hello"})
    took = time.perf_counter() - started
    assert not result.isError, result
    return took * 1e6


async def side_by_side(straight: ClientSession, through: ClientSession, calls: int,
                       tool: str = "everything__echo") -> dict:
    """Alternating calls, direct and through `through` (whose tool is named `tool`)."""
    for _ in range(WARMUP):
        await timed(straight, "echo")
        await timed(through, tool)
    ours, theirs = [], []
    for _ in range(calls):
        theirs.append(await timed(straight, "echo"))
        ours.append(await timed(through, tool))
    return {
        "direct_median_us": statistics.median(theirs),
        "direct_p90_us": p90(theirs),
        "gateway_median_us": statistics.median(ours),
        "gateway_p90_us": p90(ours),
        "ratio": statistics.median(ours) / statistics.median(theirs),
    }


async def one_round(switchboard: str, profile: str, js: str, calls: int, http: dict) -> dict:
    direct = StdioServerParameters(command="node", args=[js, "stdio"])
    gateway = StdioServerParameters(
        command=switchboard, args=["--data-dir", profile, "mcp", "serve", "--stdio"]
    )
    async with AsyncExitStack() as stack:
        straight = await session(stack, direct)
        stdio = await side_by_side(straight, await session(stack, gateway), calls)
        if shutil.which("socat"):
            # The floor of any process in between, measured the same way (its own pass).
            relay = await session(stack, StdioServerParameters(
                command="socat", args=["STDIO", f"EXEC:node {js} stdio,pipes"]))
            relayed = await side_by_side(straight, relay, calls, tool="echo")
            stdio["relay_median_us"] = relayed["gateway_median_us"]
            stdio["relay_ratio"] = relayed["ratio"]
        straight = await http_session(stack, http["direct"])
        through = await http_session(stack, http["gateway"], http["token"])
        over_http = await side_by_side(straight, through, min(calls, HTTP_CALLS))
    return {"stdio": stdio, "http": over_http}


async def crowd(url: str, tokens: list[str]) -> dict:
    """CLIENTS sessions, each with its own token, making CLIENT_CALLS calls at once."""
    errors: list[str] = []

    async def client(token: str) -> list[float]:
        took = []
        try:
            async with AsyncExitStack() as stack:
                s = await http_session(stack, url, token)
                for _ in range(CLIENT_CALLS):
                    took.append(await timed(s, "everything__echo"))
        except Exception as e:  # noqa: BLE001 - counted and shown
            errors.append(repr(e)[:200])
        return took

    started_at = time.perf_counter()
    runs = await asyncio.gather(*(client(t) for t in tokens))
    elapsed = time.perf_counter() - started_at
    samples = [t for run in runs for t in run]
    return {"calls": len(samples), "errors": errors, "median_us": statistics.median(samples),
            "p99_us": pct(samples, 0.99), "per_second": len(samples) / elapsed}


def spread(values: list[float]) -> str:
    return f"{statistics.median(values):.0f} ({min(values):.0f}–{max(values):.0f})"


def report(name: str, results: list[dict], rounds: int, calls: int) -> None:
    of = lambda key: [r[key] for r in results]  # noqa: E731
    print(f"echo through the endpoint vs direct, {name}, {rounds} rounds × {calls} calls:")
    print(f"  direct   median {spread(of('direct_median_us'))} µs, p90 {spread(of('direct_p90_us'))} µs")
    print(f"  endpoint median {spread(of('gateway_median_us'))} µs, p90 {spread(of('gateway_p90_us'))} µs")
    ratios = of("ratio")
    print(f"  ratio of medians: {statistics.median(ratios):.2f} ({min(ratios):.2f}–{max(ratios):.2f})")
    if all("relay_ratio" in r for r in results):
        relayed = of("relay_ratio")
        print(f"  byte relay (socat) median {spread(of('relay_median_us'))} µs, ratio "
              f"{statistics.median(relayed):.2f} ({min(relayed):.2f}–{max(relayed):.2f})")


async def main(switchboard: str, js: str, calls: int, rounds: int) -> None:
    with tempfile.TemporaryDirectory() as profile:
        config = Path(profile) / "servers.json"
        config.write_text(json.dumps({"mcpServers": {"everything": {
            "command": "node", "args": [js, "stdio"], "approval": "allow"}}}))
        subprocess.run([switchboard, "--data-dir", profile, "servers", "import", str(config)],
                       check=True, capture_output=True)
        tokens = []
        for n in range(CLIENTS + rounds):
            added = subprocess.run([switchboard, "--data-dir", profile, "clients", "add", f"bench-{n}"],
                                   check=True, capture_output=True, text=True)
            tokens.append(added.stdout.splitlines()[1].strip())
        port = free_port()
        everything = started(["node", "--require", LOOPBACK, js, "streamableHttp"], {"PORT": str(port)})
        endpoint, url = serving(switchboard, profile)
        try:
            direct = f"http://127.0.0.1:{port}/mcp"
            await wait_for_http(direct)
            results = []
            for n in range(rounds):
                http = {"direct": direct, "gateway": url, "token": tokens[CLIENTS + n]}
                r = await one_round(switchboard, profile, js, calls, http)
                results.append(r)
                for name in ("stdio", "http"):
                    x = r[name]
                    relayed = (f"; byte relay {x['relay_median_us']:.0f} µs, ratio {x['relay_ratio']:.2f}"
                               if "relay_ratio" in x else "")
                    print(f"round {n + 1} {name}: direct median {x['direct_median_us']:.0f} µs "
                          f"p90 {x['direct_p90_us']:.0f}; endpoint median {x['gateway_median_us']:.0f} µs "
                          f"p90 {x['gateway_p90_us']:.0f}; ratio {x['ratio']:.2f}{relayed}", flush=True)
            crowds = [await crowd(url, tokens[:CLIENTS]) for _ in range(rounds)]
        finally:
            endpoint.terminate()
            everything.terminate()
            endpoint.wait()
            everything.wait()
    report("stdio", [r["stdio"] for r in results], rounds, calls)
    report("streamable HTTP", [r["http"] for r in results], rounds, min(calls, HTTP_CALLS))
    of = lambda key: [c[key] for c in crowds]  # noqa: E731
    errors = [e for c in crowds for e in c["errors"]]
    print(f"{CLIENTS} clients × {CLIENT_CALLS} calls at once through `switchboard serve`, {rounds} runs: "
          f"{sum(of('calls'))} calls, {len(errors)} errors")
    print(f"  median {spread(of('median_us'))} µs, p99 {spread(of('p99_us'))} µs, "
          f"{spread(of('per_second'))} calls/s")
    for e in errors[:5]:
        print(f"  error: {e}")


if __name__ == "__main__":
    args = sys.argv[1:]
    asyncio.run(main(args[0], args[1], int(args[2]) if len(args) > 2 else 1000,
                     int(args[3]) if len(args) > 3 else 5))
