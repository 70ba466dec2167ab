"""The floor of the agent-loop benchmark: the least a tool-calling loop can do with the same
pieces as Switchboard's turn — the same instant fake OpenAI-compatible model over HTTP
(streamed, one kept-alive connection) and seed 003's weather server over stdio (NDJSON
JSON-RPC, one session) — with no persistence, no history, no budget, no events. Standard
library only.

    python minimal_loop.py BASE_URL WEATHER_PY PYTHON N

Prints one JSON object: {"turns_ms": [...], "cpu_ms": C} (each a full turn: two model calls,
one tool call; C the CPU time of this process and of its weather server over the measured turns,
from the kernel's per-thread accounting).
"""

import http.client
import json
import os
import subprocess
import sys
import time
import urllib.parse

PROMPT = "What is the weather in California?"


class Server:
    """One stdio MCP session: a request is one line out, its answer one line in."""

    def __init__(self, python: str, weather_py: str) -> None:
        self.proc = subprocess.Popen(
            [python, weather_py, "stdio"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            bufsize=0,
        )
        self.next_id = 0
        self.request(
            "initialize",
            {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "minimal-loop", "version": "0"},
            },
        )
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message: dict) -> None:
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")

    def request(self, method: str, params: dict) -> dict:
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError("the weather server closed its output")
            answer = json.loads(line)
            if answer.get("id") == self.next_id:
                if "error" in answer:
                    raise RuntimeError(answer["error"])
                return answer["result"]

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=10)


class Model:
    """The fake model over one kept-alive HTTP connection, read as server-sent events."""

    def __init__(self, base_url: str) -> None:
        url = urllib.parse.urlsplit(base_url)
        self.conn = http.client.HTTPConnection(url.hostname, url.port)
        self.path = url.path.rstrip("/") + "/v1/chat/completions"

    def complete(self, messages: list, tools: list) -> tuple[str, list]:
        body = json.dumps(
            {"model": "fake-model", "messages": messages, "tools": tools, "stream": True}
        )
        headers = {"content-type": "application/json", "authorization": "Bearer unused"}
        self.conn.request("POST", self.path, body, headers)
        response = self.conn.getresponse()
        if response.status != 200:
            raise RuntimeError(f"model answered {response.status}")
        text, calls = "", {}
        for line in response.read().decode().splitlines():
            if not line.startswith("data: ") or line == "data: [DONE]":
                continue
            delta = json.loads(line[6:])["choices"][0]["delta"]
            text += delta.get("content") or ""
            for call in delta.get("tool_calls") or []:
                slot = calls.setdefault(call["index"], {"id": "", "name": "", "arguments": ""})
                slot["id"] += call.get("id") or ""
                function = call.get("function") or {}
                slot["name"] += function.get("name") or ""
                slot["arguments"] += function.get("arguments") or ""
        return text, [calls[i] for i in sorted(calls)]


def turn(model: Model, server: Server, tools: list) -> str:
    """One turn: call the model, run the tools it asks for, call it again until it answers."""
    messages = [{"role": "user", "content": PROMPT}]
    while True:
        text, calls = model.complete(messages, tools)
        if not calls:
            return text
        messages.append(
            {
                "role": "assistant",
                "content": text or None,
                "tool_calls": [
                    {
                        "id": c["id"],
                        "type": "function",
                        "function": {"name": c["name"], "arguments": c["arguments"]},
                    }
                    for c in calls
                ],
            }
        )
        for c in calls:
            result = server.request(
                "tools/call", {"name": c["name"], "arguments": json.loads(c["arguments"])}
            )
            output = "".join(p.get("text", "") for p in result["content"])
            messages.append({"role": "tool", "tool_call_id": c["id"], "content": output})


def main() -> None:
    base_url, weather_py, python, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    server = Server(python, weather_py)
    listed = server.request("tools/list", {})["tools"]
    tools = [
        {
            "type": "function",
            "function": {
                "name": t["name"],
                "description": t.get("description", ""),
                "parameters": t["inputSchema"],
            },
        }
        for t in listed
    ]
    model = Model(base_url)
    turns = []
    cpu_start = None
    for i in range(n + 5):
        if i == 5:
            cpu_start = time.process_time_ns() + server_cpu_ns(server.proc.pid)
        started = time.perf_counter()
        answer = turn(model, server, tools)
        elapsed = (time.perf_counter() - started) * 1000
        assert "raining" in answer, answer
        if i >= 5:
            turns.append(elapsed)
    cpu_ns = time.process_time_ns() + server_cpu_ns(server.proc.pid) - (cpu_start or 0)
    server.close()
    print(json.dumps({"turns_ms": turns, "cpu_ms": cpu_ns / 1e6}))


def server_cpu_ns(pid: int) -> int:
    """CPU time of every thread of process `pid` (Linux /proc; 0 elsewhere)."""
    total = 0
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/schedstat") as f:
                total += int(f.read().split()[0])
    except OSError:
        pass
    return total


if __name__ == "__main__":
    main()
