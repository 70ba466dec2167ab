"""The peer runtime of `make bench-tools`: owns asking llama-cpp-python's OpenAI-compatible server
(`llama_cpp.server`, chat format `chatml-function-calling`) the BFCL cases on the same GGUF,
thread count (2) and context (4,096) as the built-in runtime, over HTTP on 127.0.0.1, with the
case's tools, `tool_choice: "auto"`, temperature 0. Writes one JSON line per case in the shape
`bench/tools/tools.rs` writes: {id, category, calls: [{name, arguments}], text, unparsed,
seconds, generated_tokens}. `unparsed` holds calls whose arguments are not JSON or whose name
is not an offered tool, and answers whose text looks like a call (a `<tool_call>` tag, a
`{"name": ...` or `{"tool": ...` object, an `"arguments"` key, an offered tool's name followed
by `(`) but made none.

Usage: python llama_server.py MODEL.gguf CASES.jsonl OUT.jsonl MAX_TOKENS
"""

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

THREADS = int(os.environ.get("THREADS") or 2)
CONTEXT = 4096


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def post(port, body):
    req = urllib.request.Request(f"http://127.0.0.1:{port}/v1/chat/completions",
                                 json.dumps(body).encode(), {"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=900) as res:
        return json.load(res)


def call_like(text, names):
    """Why `text` looks like a call that did not become one (the same rules as tools.rs)."""
    found = []
    if "<tool_call>" in text:
        found.append("<tool_call> tag")
    squeezed = "".join(text.split())
    keys = ['{"name":', '{"function":', '{"tool":', '{"tool_name":', '"arguments":']
    if any(k in squeezed for k in keys):
        found.append("JSON object naming a function or giving arguments")
    if any(f"{n}(" in squeezed for n in names):
        found.append("an offered tool's name followed by (")
    return [{"raw": text, "error": f"text looks like a call: {why}"} for why in found]


def ask(port, case, max_tokens):
    names = [t["function"]["name"] for t in case["tools"]]
    body = {"model": "m", "messages": case["messages"], "tools": case["tools"],
            "tool_choice": "auto", "temperature": 0, "seed": 1, "max_tokens": max_tokens}
    start = time.perf_counter()
    row = {"id": case["id"], "category": case["category"], "calls": [], "text": "",
           "unparsed": [], "generated_tokens": 0, "finish": None, "error": None}
    try:
        res = post(port, body)
    except (urllib.error.URLError, OSError, ValueError) as e:
        detail = e.read().decode(errors="replace")[:500] if hasattr(e, "read") else ""
        row["error"] = f"{e} {detail}".strip()
        row["seconds"] = time.perf_counter() - start
        return row
    row["seconds"] = time.perf_counter() - start
    choice = res["choices"][0]
    message = choice.get("message") or {}
    row["finish"] = choice.get("finish_reason")
    row["text"] = message.get("content") or ""
    row["generated_tokens"] = (res.get("usage") or {}).get("completion_tokens", 0)
    for call in message.get("tool_calls") or []:
        fn = call.get("function") or {}
        name, raw = fn.get("name", ""), fn.get("arguments", "")
        try:
            arguments = json.loads(raw) if isinstance(raw, str) else raw
        except ValueError as e:
            row["unparsed"].append({"name": name, "raw": raw, "error": f"arguments: {e}"})
            continue
        if name not in names:
            row["unparsed"].append({"name": name, "raw": raw, "error": "not an offered tool"})
            continue
        row["calls"].append({"name": name, "arguments": arguments})
    if not row["calls"]:
        row["unparsed"].extend(call_like(row["text"], names))
    return row


def main():
    model, cases_path, out_path, max_tokens = sys.argv[1:5]
    max_tokens = int(max_tokens)
    with open(cases_path) as f:
        cases = [json.loads(line) for line in f if line.strip()]
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "llama_cpp.server", "--model", model, "--host", "127.0.0.1",
         "--port", str(port), "--n_threads", str(THREADS), "--n_threads_batch", str(THREADS),
         "--n_ctx", str(CONTEXT), "--chat_format", "chatml-function-calling",
         "--verbose", "False"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(600):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=1)
                break
            except OSError:
                if server.poll() is not None:
                    sys.exit(f"llama_cpp.server exited with {server.returncode}")
                time.sleep(0.2)
        post(port, {"model": "m", "messages": [{"role": "user", "content": "Hi"}],
                    "max_tokens": 2, "temperature": 0})  # warm: the model is loaded
        print(f"llama-cpp-python: {model} ({len(cases)} cases, {max_tokens} tokens at most, "
              f"{THREADS} threads, context {CONTEXT})", file=sys.stderr)
        started = time.perf_counter()
        with open(out_path, "w") as out:
            for i, case in enumerate(cases):
                out.write(json.dumps(ask(port, case, max_tokens)) + "\n")
                if (i + 1) % 10 == 0 or i + 1 == len(cases):
                    out.flush()
                    print(f"  llama-cpp-python: {i + 1}/{len(cases)} cases, "
                          f"{time.perf_counter() - started:.0f} s", file=sys.stderr)
    finally:
        server.terminate()
        server.wait(timeout=30)


if __name__ == "__main__":
    main()
