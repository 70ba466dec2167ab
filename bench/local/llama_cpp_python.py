"""The peer of `make bench-local`: llama-cpp-python's OpenAI-compatible server on the same GGUF
with the same thread count and context, asked the same questions over streaming HTTP on
127.0.0.1. Prints one JSON object: per run the prompt and generated token counts, the time to
the first token, the generation time, and (once) the follow-up's time to first token and the
server's resident memory after the runs.

Usage: python llama_cpp_python.py MODEL.gguf THREADS CONTEXT RUNS PROMPT_FILE MAX_TOKENS
"""

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def stream(port, messages, max_tokens):
    """Streams one chat completion; returns (time to first token, total time, chunks, usage)."""
    body = json.dumps({
        "model": "m", "messages": messages, "stream": True, "temperature": 0, "seed": 1,
        "max_tokens": max_tokens, "stream_options": {"include_usage": True},
    }).encode()
    req = urllib.request.Request(f"http://127.0.0.1:{port}/v1/chat/completions", body,
                                 {"content-type": "application/json"})
    start = time.perf_counter()
    first, chunks, usage, text = None, 0, None, []
    with urllib.request.urlopen(req, timeout=600) as res:
        for raw in res:
            line = raw.decode().strip()
            if not line.startswith("data: ") or line == "data: [DONE]":
                continue
            event = json.loads(line[6:])
            if event.get("usage"):
                usage = event["usage"]
            for choice in event.get("choices", []):
                delta = choice.get("delta", {}).get("content")
                if delta:
                    if first is None:
                        first = time.perf_counter() - start
                    chunks += 1
                    text.append(delta)
    return first, time.perf_counter() - start, chunks, usage, "".join(text)


def prompt_tokens(port, messages):
    """The prompt's token count, from a one-token answer's usage (its prefix is cached)."""
    body = json.dumps({"model": "m", "messages": messages, "max_tokens": 1,
                       "temperature": 0}).encode()
    req = urllib.request.Request(f"http://127.0.0.1:{port}/v1/chat/completions", body,
                                 {"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=600) as res:
        return json.load(res)["usage"]["prompt_tokens"]


def main():
    model, threads, context, runs, prompt_file, max_tokens = sys.argv[1:7]
    threads, context, runs, max_tokens = int(threads), int(context), int(runs), int(max_tokens)
    prompt = open(prompt_file).read()
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "llama_cpp.server", "--model", model, "--host", "127.0.0.1",
         "--port", str(port), "--n_threads", str(threads), "--n_threads_batch", str(threads),
         "--n_ctx", str(context), "--verbose", "False"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(600):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=1)
                break
            except OSError:
                time.sleep(0.2)
        stream(port, [{"role": "user", "content": "Hi"}], 4)  # warm: the model is loaded
        out = {"runs": []}
        for i in range(runs):
            messages = [{"role": "user", "content": f"Run {i}. {prompt}"}]
            first, total, chunks, usage, text = stream(port, messages, max_tokens)
            out["runs"].append({
                "prompt_tokens": (usage or {}).get("prompt_tokens") or prompt_tokens(port, messages),
                "generated": (usage or {}).get("completion_tokens", chunks),
                "ttft_s": first, "total_s": total,
            })
            if i == runs - 1:
                follow = messages + [{"role": "assistant", "content": text},
                                     {"role": "user", "content": "Say that again, shorter."}]
                out["follow_ttft_s"] = stream(port, follow, 8)[0]
        out["rss_kib"] = rss_kib(server.pid)
        print(json.dumps(out))
    finally:
        server.terminate()
        server.wait(timeout=30)


if __name__ == "__main__":
    main()
