#!/usr/bin/env python3
"""Builds BEIR SciFact (test split) for `cargo bench -p switchboard-engine --bench knowledge`.

Writes, outside the repository (the data is CC BY-NC; it is never committed):

    <out>/corpus.jsonl      {"_id", "title", "text"}, one document a line (5,183)
    <out>/queries.jsonl     {"_id", "text"}, the 300 test queries
    <out>/qrels/test.tsv    "query-id<TAB>corpus-id<TAB>score" after a header line (339 rows)

Queries and judgements come from PyPI's pyserini 0.21.0 wheel: its Anserini jar
(pyserini/resources/jars/anserini-0.21.0-fatjar.jar) holds
topics-and-qrels/topics.beir-v1.0.0-scifact.test.tsv.gz (qid<TAB>text) and
topics-and-qrels/qrels.beir-v1.0.0-scifact.test.txt (TREC: qid 0 docid rel). The wheel is
downloaded with `pip download --no-deps` into the cache only when neither the two files (under
<cache>/extracted/topics-and-qrels/) nor the wheel are there.

The corpus comes from a CSV given with --corpus-csv (columns doc_id,title,abstract,structured;
abstract is the printed list of the abstract's sentences). BEIR's text is those sentences joined
by one space. The list is printed without commas between its strings (numpy's style), so each
string literal is read on its own (tokenize, then ast.literal_eval): reading the whole with
literal_eval would glue adjacent sentences together with no space.

    python3 bench/knowledge/scifact.py --corpus-csv PATH [--out DIR] [--cache DIR]
"""

import argparse
import ast
import csv
import gzip
import io
import json
import os
import subprocess
import sys
import tokenize
import zipfile
from pathlib import Path

PYSERINI = "pyserini==0.21.0"
WHEEL = "pyserini-0.21.0-py3-none-any.whl"
JAR = "pyserini/resources/jars/anserini-0.21.0-fatjar.jar"
TOPICS = "topics-and-qrels/topics.beir-v1.0.0-scifact.test.tsv.gz"
QRELS = "topics-and-qrels/qrels.beir-v1.0.0-scifact.test.txt"

HOME_CACHE = Path.home() / ".cache" / "switchboard" / "bench"

# What the finished folder must hold (BEIR SciFact, test split).
EXPECTED_DOCS = 5183
EXPECTED_FIRST_DOC = "4983"
EXPECTED_QUERIES = 300
EXPECTED_QRELS = 339


def topics_and_qrels(cache: Path) -> tuple[bytes, bytes]:
    """The gzipped topics file and the qrels file, from the cache or the pyserini wheel."""
    extracted = cache / "extracted"
    topics, qrels = extracted / TOPICS, extracted / QRELS
    if topics.is_file() and qrels.is_file():
        return topics.read_bytes(), qrels.read_bytes()
    wheel = cache / WHEEL
    if not wheel.is_file():
        cache.mkdir(parents=True, exist_ok=True)
        print(f"scifact: downloading {PYSERINI} into {cache}", file=sys.stderr)
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", PYSERINI, "-d", str(cache)],
            check=True,
        )
    with zipfile.ZipFile(wheel) as outer:
        jar = outer.read(JAR)
    with zipfile.ZipFile(io.BytesIO(jar)) as inner:
        found = {name: inner.read(name) for name in (TOPICS, QRELS)}
    for name, data in found.items():
        path = extracted / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return found[TOPICS], found[QRELS]


def sentences(printed: str) -> list[str]:
    """The strings of a printed list, each literal on its own (no implicit concatenation)."""
    out = []
    for token in tokenize.generate_tokens(io.StringIO(printed).readline):
        if token.type == tokenize.STRING:
            out.append(ast.literal_eval(token.string))
    return out


def corpus(csv_path: Path) -> list[dict]:
    csv.field_size_limit(1 << 30)
    docs = []
    with csv_path.open(newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            docs.append(
                {
                    "_id": row["doc_id"].strip(),
                    "title": row["title"].strip(),
                    "text": " ".join(s.strip() for s in sentences(row["abstract"])),
                }
            )
    return docs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus-csv", type=Path, required=True, help="SciFact corpus CSV (doc_id,title,abstract,structured)")
    parser.add_argument("--out", type=Path, default=HOME_CACHE / "scifact", help="output folder (outside the repository)")
    parser.add_argument("--cache", type=Path, default=HOME_CACHE / "pyserini-0.21.0", help="where the pyserini wheel and its extracted files are kept")
    args = parser.parse_args()

    repo = Path(__file__).resolve().parents[2]
    out = args.out.resolve()
    if out == repo or repo in out.parents:
        sys.exit(f"scifact: {out} is inside the repository; the data must stay outside it")

    topics_gz, qrels_trec = topics_and_qrels(args.cache)
    queries = []
    for line in gzip.decompress(topics_gz).decode("utf-8").splitlines():
        if line.strip():
            qid, text = line.split("\t", 1)
            queries.append({"_id": qid.strip(), "text": text.strip()})
    qrels = []
    for line in qrels_trec.decode("utf-8").splitlines():
        if line.strip():
            qid, _, docid, rel = line.split()
            qrels.append((qid, docid, int(rel)))
    docs = corpus(args.corpus_csv)

    ids = {d["_id"] for d in docs}
    query_ids = {q["_id"] for q in queries}
    problems = []
    if len(docs) != EXPECTED_DOCS or len(ids) != len(docs):
        problems.append(f"{len(docs)} documents ({len(ids)} ids), expected {EXPECTED_DOCS}")
    if docs and docs[0]["_id"] != EXPECTED_FIRST_DOC:
        problems.append(f"first document {docs[0]['_id']}, expected {EXPECTED_FIRST_DOC}")
    if len(queries) != EXPECTED_QUERIES:
        problems.append(f"{len(queries)} queries, expected {EXPECTED_QUERIES}")
    if len(qrels) != EXPECTED_QRELS:
        problems.append(f"{len(qrels)} qrels rows, expected {EXPECTED_QRELS}")
    missing = sorted({d for _, d, _ in qrels} - ids)
    if missing:
        problems.append(f"{len(missing)} judged documents not in the corpus: {missing[:5]}")
    unknown = sorted({q for q, _, _ in qrels} - query_ids)
    if unknown:
        problems.append(f"{len(unknown)} judged queries not in the topics: {unknown[:5]}")
    empty = sum(1 for d in docs if not d["text"])
    if empty:
        problems.append(f"{empty} documents without text")
    if problems:
        sys.exit("scifact: " + "; ".join(problems))

    (out / "qrels").mkdir(parents=True, exist_ok=True)
    with (out / "corpus.jsonl").open("w", encoding="utf-8") as f:
        for d in docs:
            f.write(json.dumps(d, ensure_ascii=False) + "\n")
    with (out / "queries.jsonl").open("w", encoding="utf-8") as f:
        for q in queries:
            f.write(json.dumps(q, ensure_ascii=False) + "\n")
    with (out / "qrels" / "test.tsv").open("w", encoding="utf-8") as f:
        f.write("query-id\tcorpus-id\tscore\n")
        for qid, docid, rel in qrels:
            f.write(f"{qid}\t{docid}\t{rel}\n")
    print(
        f"scifact: {len(docs)} documents (first {docs[0]['_id']}), {len(queries)} queries, "
        f"{len(qrels)} judgements, every judged document in the corpus -> {out}"
    )


if __name__ == "__main__":
    main()
