#!/usr/bin/env python3
"""llama-cpp-python's side of the knowledge bench's indexing speed: embeds the same passages as
the built-in embedder, with the same GGUF, threads, context and pooling (mean), in groups of 32.

    python llama_embed.py MODEL TEXTS_JSON [--threads 2] [--group 32] [--vectors K]

TEXTS_JSON is a JSON list of passages; each is embedded as "passage: <text>" (e5's convention,
as the built-in embedder does). Prints one JSON object: {"chunks", "seconds"} — the seconds of
the embedding alone, the model already loaded — and, with --vectors K, the first K vectors
(L2-normalised) to compare with ours.
"""

import argparse
import json
import time

import llama_cpp


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("model")
    parser.add_argument("texts")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--group", type=int, default=32)
    parser.add_argument("--vectors", type=int, default=0)
    args = parser.parse_args()

    with open(args.texts, encoding="utf-8") as f:
        texts = [f"passage: {t}" for t in json.load(f)]
    llm = llama_cpp.Llama(
        model_path=args.model,
        embedding=True,
        n_threads=args.threads,
        n_threads_batch=args.threads,
        n_ctx=2048,
        n_batch=2048,
        n_ubatch=2048,
        pooling_type=llama_cpp.LLAMA_POOLING_TYPE_MEAN,
        verbose=False,
    )
    llm.embed(texts[: args.group])  # warm-up: the first decode allocates
    vectors = []
    started = time.perf_counter()
    for i in range(0, len(texts), args.group):
        got = llm.embed(texts[i : i + args.group], normalize=True)
        if len(vectors) < args.vectors:
            vectors.extend(got[: args.vectors - len(vectors)])
    seconds = time.perf_counter() - started
    out = {"chunks": len(texts), "seconds": seconds}
    if args.vectors:
        out["vectors"] = vectors
    print(json.dumps(out))


if __name__ == "__main__":
    main()
