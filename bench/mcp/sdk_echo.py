"""The official Python SDK's ClientSession calling server-everything's `echo` over stdio:
per round, the median of CALLS sequential calls, printed as `echo_sdk_us MICROSECONDS`.

    tests/fixtures/mcp-py/.venv/bin/python bench/mcp/sdk_echo.py EVERYTHING_JS [CALLS] [ROUNDS]
"""

import asyncio
import statistics
import sys
import time

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

WARMUP = 50


async def echo(session: ClientSession, calls: int) -> float:
    samples = []
    for _ in range(calls):
        started = time.perf_counter()
        result = await session.call_tool("echo", {"message": "hello"})
        samples.append(time.perf_counter() - started)
        assert not result.isError, result
    return statistics.median(samples) * 1e6


async def main(everything_js: str, calls: int, rounds: int) -> None:
    params = StdioServerParameters(command="node", args=[everything_js, "stdio"])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            await echo(session, WARMUP)
            for _ in range(rounds):
                print(f"echo_sdk_us {await echo(session, calls):.1f}", flush=True)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    calls = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    asyncio.run(main(sys.argv[1], calls, rounds))
