"""The Berkeley Function Calling Leaderboard's side of `make bench-tools`: owns the cases given to
both runtimes and the scoring of their answers, both through bfcl-eval itself (PyPI
`bfcl-eval`, in ~/.cache/switchboard/venv-bfcl). This file is glue only: the questions,
functions and possible answers are BFCL's data files, loaded by `bfcl_eval.utils`; the tools
are made by bfcl-eval's `convert_to_tool` for OpenAI-compatible chat completions (which renames
`a.b` functions `a_b`); answers are decoded by bfcl-eval's OpenAI handler (`decode_ast`) and
judged by its eval runner (`_evaluate_single_ast_entry` over `ast_checker` for simple,
multiple and parallel; `_evaluate_single_relevance_entry` for irrelevance: correct when no call
is made), with `underscore_to_dot` on as bfcl-eval scores OpenAI function-calling models.

bfcl-eval's `constants.model_config` imports every provider SDK it supports (anthropic,
mistralai, cohere, google-genai, qwen-agent, ...); the checker only reads one flag from it
(`underscore_to_dot`), so this file puts a one-entry stand-in for that module in its place
before importing the checker.

    python bfcl.py cases OUT.jsonl [--per-category N]
        BFCL categories simple (simple_python), multiple, parallel, irrelevance; all cases, or a
        deterministic spread of N per category (every len/N-th case).
    python bfcl.py score CASES.jsonl --row LABEL=RESULTS.jsonl ... [--cost LABEL=held-cost.json]
                         [--json OUT.json]
        Scores each row per category, prints the table (accuracy, calls that did not parse,
        median seconds and generated tokens per case, answers that failed with an error) and
        writes it all as JSON.
"""

import argparse
import json
import os
import statistics
import sys
import types
from dataclasses import dataclass

# BFCL's names of the categories measured here (v4 calls simple `simple_python`). The goals
# are for the first four; `live_simple`, `live_irrelevance` and the `live_parallel` ones
# (user-contributed questions) are where the built-in runtime's settings are chosen, so that the reported categories are
# never tuned on.
KNOWN_CATEGORIES = {
    "simple": "simple_python",
    "multiple": "multiple",
    "parallel": "parallel",
    "irrelevance": "irrelevance",
    "live_simple": "live_simple",
    "live_irrelevance": "live_irrelevance",
    "live_parallel": "live_parallel",
    "live_parallel_multiple": "live_parallel_multiple",
}
CATEGORIES = {
    short: KNOWN_CATEGORIES[short]
    for short in os.environ.get("BFCL_CATEGORIES", "simple multiple parallel irrelevance").split()
}
MODEL_NAME = "switchboard/bench"


def _stand_in_model_config():
    """The one entry of bfcl-eval's model table the checker reads, in place of the module."""

    @dataclass
    class ModelConfig:
        model_name: str
        display_name: str = MODEL_NAME
        url: str = ""
        org: str = ""
        license: str = ""
        model_handler: object = None
        input_price: object = None
        output_price: object = None
        is_fc_model: bool = True
        underscore_to_dot: bool = True

    module = types.ModuleType("bfcl_eval.constants.model_config")
    module.ModelConfig = ModelConfig
    module.MODEL_CONFIG_MAPPING = {MODEL_NAME: ModelConfig(MODEL_NAME)}
    sys.modules["bfcl_eval.constants.model_config"] = module


_stand_in_model_config()

from bfcl_eval.constants.enums import Language, ModelStyle, ReturnFormat  # noqa: E402
from bfcl_eval.constants.type_mappings import GORILLA_TO_OPENAPI  # noqa: E402
from bfcl_eval.eval_checker import eval_runner  # noqa: E402
from bfcl_eval.model_handler.api_inference.openai_completion import (  # noqa: E402
    OpenAICompletionsHandler,
)
from bfcl_eval.model_handler.utils import convert_to_tool  # noqa: E402
from bfcl_eval.utils import load_dataset_entry, load_ground_truth_entry  # noqa: E402


def spread(entries, n):
    """A deterministic spread of n entries: every len/n-th, from the first."""
    if n is None or n >= len(entries):
        return entries
    return [entries[(i * len(entries)) // n] for i in range(n)]


def cmd_cases(args):
    count = 0
    with open(args.out, "w") as out:
        for short, bfcl in CATEGORIES.items():
            for entry in spread(load_dataset_entry(bfcl), args.per_category):
                # Single-turn categories: the first (only) turn's messages, as bfcl-eval's
                # OpenAI handler sends them (no system prompt of its own for FC models).
                messages = entry["question"][0]
                tools = convert_to_tool(
                    entry["function"], GORILLA_TO_OPENAPI, ModelStyle.OPENAI_COMPLETIONS
                )
                out.write(json.dumps({"id": entry["id"], "category": short,
                                      "messages": messages, "tools": tools}) + "\n")
                count += 1
    print(f"bfcl: {count} cases in {args.out}", file=sys.stderr)


def _handler():
    """bfcl-eval's OpenAI chat-completions handler, for its FC `decode_ast` only (built
    without its constructor, which makes an API client)."""
    handler = object.__new__(OpenAICompletionsHandler)
    handler.is_fc_model = True
    handler.model_name = MODEL_NAME
    return handler


def model_result(row):
    """The answer as bfcl-eval's OpenAI handler records it: one {name: arguments JSON} per
    tool call, else the message's text."""
    if row["calls"]:
        return [{c["name"]: json.dumps(c["arguments"])} for c in row["calls"]]
    return row.get("text") or ""


def load_jsonl(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def score_row(handler, cases, answers, prompts, truths):
    """Per category: correct of the cases answered (a run still going, or stopped, is scored
    on what it answered; N in the table is that count), unparsed calls, median seconds."""
    by_id = {a["id"]: a for a in answers}
    out = {}
    for short, bfcl in CATEGORIES.items():
        ids = [c["id"] for c in cases if c["category"] == short]
        if not ids:
            continue
        correct, unparsed, with_unparsed, seconds, tokens, missing = 0, 0, 0, [], [], 0
        errors = 0
        for case_id in ids:
            answer = by_id.get(case_id)
            if answer is None:
                missing += 1
                continue
            result = model_result(answer)
            if short.endswith("irrelevance"):
                verdict = eval_runner._evaluate_single_relevance_entry(
                    handler, case_id, result, prompts[case_id], MODEL_NAME, bfcl)
            else:
                verdict = eval_runner._evaluate_single_ast_entry(
                    handler, case_id, result, truths[case_id]["ground_truth"],
                    prompts[case_id], MODEL_NAME, bfcl, Language.PYTHON,
                    ReturnFormat.PYTHON)
            correct += bool(verdict["valid"])
            errors += bool(answer.get("error"))
            bad = len(answer.get("unparsed") or [])
            unparsed += bad
            with_unparsed += bad > 0
            seconds.append(answer["seconds"])
            tokens.append(answer.get("generated_tokens") or 0)
        answered = len(ids) - missing
        if not answered:
            continue
        out[short] = {
            "cases": len(ids),
            "answered": answered,
            "correct": correct,
            "accuracy": correct / answered,
            "unparsed_calls": unparsed,
            "answers_with_unparsed": with_unparsed,
            "errors": errors,
            "median_seconds": statistics.median(seconds) if seconds else None,
            "median_generated_tokens": statistics.median(tokens) if tokens else None,
        }
    return out


def cmd_score(args):
    cases = load_jsonl(args.cases)
    prompts, truths = {}, {}
    for short, bfcl in CATEGORIES.items():
        for entry in load_dataset_entry(bfcl):
            prompts[entry["id"]] = entry
        if not short.endswith("irrelevance"):
            for entry in load_ground_truth_entry(bfcl):
                truths[entry["id"]] = entry
    handler = _handler()
    rows = {}
    for spec in args.row:
        label, path = spec.split("=", 1)
        try:
            answers = load_jsonl(path)
        except FileNotFoundError:
            print(f"bfcl: {path} missing, row {label} skipped", file=sys.stderr)
            continue
        rows[label] = score_row(handler, cases, answers, prompts, truths)
    costs = {}
    for spec in args.cost or []:
        label, path = spec.split("=", 1)
        try:
            with open(path) as f:
                costs[label] = json.load(f)
        except FileNotFoundError:
            pass

    header = (f"{'model / runtime':<44} {'category':<12} {'N':>4} {'accuracy':>9} "
              f"{'unparsed':>9} {'s/case':>7} {'tok/case':>8} {'errors':>6}")
    print(header)
    print("-" * len(header))
    for label, cats in rows.items():
        for short, r in cats.items():
            secs = "-" if r["median_seconds"] is None else f"{r['median_seconds']:.2f}"
            toks = "-" if r["median_generated_tokens"] is None else f"{r['median_generated_tokens']:.0f}"
            print(f"{label:<44} {short:<12} {r['answered']:>4} {r['accuracy']:>8.1%} "
                  f"{r['unparsed_calls']:>9} {secs:>7} {toks:>8} {r['errors']:>6}")
    if costs:
        print()
        print("held decoding cost (built-in runtime, generated tokens/s, prompt cached, "
              "medians):")
        for label, c in costs.items():
            print(f"  {label:<42} held {c['held_tokens_per_s']:.1f}  unheld "
                  f"{c['unheld_tokens_per_s']:.1f}  ratio {c['held_over_unheld']:.3f}  "
                  f"({len(c['prompts'])} prompts × {c['runs_per_prompt']} runs; calls made "
                  f"held/unheld {sum(p['calls_held'] for p in c['prompts'])}/"
                  f"{sum(p['calls_unheld'] for p in c['prompts'])})")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"bfcl_eval": _bfcl_version(), "rows": rows, "held_cost": costs}, f,
                      indent=2)
        print(f"\nwritten: {args.json}")


def _bfcl_version():
    from importlib.metadata import version
    return version("bfcl-eval")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("cases")
    p.add_argument("out")
    p.add_argument("--per-category", type=int, default=None)
    p.set_defaults(fn=cmd_cases)
    p = sub.add_parser("score")
    p.add_argument("cases")
    p.add_argument("--row", action="append", default=[])
    p.add_argument("--cost", action="append", default=[])
    p.add_argument("--json")
    p.set_defaults(fn=cmd_score)
    args = parser.parse_args()
    args.fn(args)


if __name__ == "__main__":
    main()
