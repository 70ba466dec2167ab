"""`make bench-serve`: server-everything's `echo` called through `switchboard mcp serve --stdio`
against the same call made straight to server-everything over stdio, both by the official
Python SDK's ClientSession. Each round opens both sessions (the gateway's with its own
profile, the server allowed), warms each up, then makes CALLS sequential calls on each,
alternating side by side; a round gives each side's median and p90 and the ratio of the
medians. Printed: every round, then the medians over the rounds, their spread (min–max), and
the median round ratio.

    tests/fixtures/mcp-py/.venv/bin/python bench/serve/bench_serve.py SWITCHBOARD EVERYTHING_JS [CALLS] [ROUNDS]
"""

import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import AsyncExitStack
from pathlib import Path

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

WARMUP = 50


def p90(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]


async def session(stack: AsyncExitStack, params: StdioServerParameters) -> ClientSession:
    read, write = await stack.enter_async_context(stdio_client(params))
    s = await stack.enter_async_context(ClientSession(read, write))
    await s.initialize()
    return s


async def timed(s: ClientSession, tool: str) -> float:
    started = time.perf_counter()
    result = await s.call_tool(tool, {"message": "hello"})
    took = time.perf_counter() - started
    assert not result.isError, result
    return took * 1e6


async def one_round(switchboard: str, profile: str, js: str, calls: int) -> dict:
    direct = StdioServerParameters(command="node", args=[js, "stdio"])
    gateway = StdioServerParameters(
        command=switchboard, args=["--data-dir", profile, "mcp", "serve", "--stdio"]
    )
    async with AsyncExitStack() as stack:
        straight = await session(stack, direct)
        through = await session(stack, gateway)
        for _ in range(WARMUP):
            await timed(straight, "echo")
            await timed(through, "everything__echo")
        ours, theirs = [], []
        for _ in range(calls):
            theirs.append(await timed(straight, "echo"))
            ours.append(await timed(through, "everything__echo"))
    return {
        "direct_median_us": statistics.median(theirs),
        "direct_p90_us": p90(theirs),
        "gateway_median_us": statistics.median(ours),
        "gateway_p90_us": p90(ours),
        "ratio": statistics.median(ours) / statistics.median(theirs),
    }


def spread(values: list[float]) -> str:
    return f"{statistics.median(values):.0f} ({min(values):.0f}–{max(values):.0f})"


async def main(switchboard: str, js: str, calls: int, rounds: int) -> None:
    with tempfile.TemporaryDirectory() as profile:
        config = Path(profile) / "servers.json"
        config.write_text(json.dumps({"mcpServers": {"everything": {
            "command": "node", "args": [js, "stdio"], "approval": "allow"}}}))
        subprocess.run([switchboard, "--data-dir", profile, "servers", "import", str(config)],
                       check=True, capture_output=True)
        results = []
        for n in range(rounds):
            r = await one_round(switchboard, profile, js, calls)
            results.append(r)
            print(f"round {n + 1}: direct median {r['direct_median_us']:.0f} µs p90 {r['direct_p90_us']:.0f}; "
                  f"gateway median {r['gateway_median_us']:.0f} µs p90 {r['gateway_p90_us']:.0f}; "
                  f"ratio {r['ratio']:.2f}", flush=True)
    of = lambda key: [r[key] for r in results]  # noqa: E731
    print(f"echo through the gateway vs direct, {rounds} rounds × {calls} calls:")
    print(f"  direct  median {spread(of('direct_median_us'))} µs, p90 {spread(of('direct_p90_us'))} µs")
    print(f"  gateway median {spread(of('gateway_median_us'))} µs, p90 {spread(of('gateway_p90_us'))} µs")
    ratios = of("ratio")
    print(f"  ratio of medians: {statistics.median(ratios):.2f} ({min(ratios):.2f}–{max(ratios):.2f})")


if __name__ == "__main__":
    args = sys.argv[1:]
    asyncio.run(main(args[0], args[1], int(args[2]) if len(args) > 2 else 1000,
                     int(args[3]) if len(args) > 3 else 5))
