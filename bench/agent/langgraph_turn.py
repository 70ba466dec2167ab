"""The peer side of the agent-loop benchmark: LangGraph's create_react_agent with
langchain-mcp-adapters over a persistent stdio session to the weather server, against the
same instant fake OpenAI-compatible model as Switchboard.

    python langgraph_turn.py BASE_URL WEATHER_PY PYTHON N

Prints one JSON object: {"turns_ms": [...]} (each a full turn: two model calls, one tool call).
"""

import asyncio
import json
import sys
import time

from langchain_mcp_adapters.client import MultiServerMCPClient
from langchain_mcp_adapters.tools import load_mcp_tools
from langchain_openai import ChatOpenAI
from langgraph.prebuilt import create_react_agent


async def main() -> None:
    base_url, weather_py, python, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    client = MultiServerMCPClient(
        {"weather": {"command": python, "args": [weather_py, "stdio"], "transport": "stdio"}}
    )
    model = ChatOpenAI(base_url=f"{base_url}/v1", api_key="unused", model="fake-model", streaming=True)
    turns = []
    async with client.session("weather") as session:
        tools = await load_mcp_tools(session)
        agent = create_react_agent(model, tools)
        for i in range(n + 5):
            started = time.perf_counter()
            out = await agent.ainvoke({"messages": [("user", "What is the weather in California?")]})
            elapsed = (time.perf_counter() - started) * 1000
            assert "raining" in out["messages"][-1].content, out["messages"][-1]
            if i >= 5:
                turns.append(elapsed)
    print(json.dumps({"turns_ms": turns}))


asyncio.run(main())
