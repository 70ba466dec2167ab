#!/usr/bin/env python3
"""Sorts the self costs (instructions) of a run's extra calls into categories, per call.

    bench/mcp/categorize.py SHORT_RUN LONG_RUN CALLS [TOP]

SHORT_RUN and LONG_RUN are callgrind files of two whole runs of the same client that differ
only by CALLS calls: their difference, per function, is what those calls cost (start-up,
warm-up and shutdown cancel out). Categories are matched on the demangled function name,
first match wins (so a serde impl of an rmcp type counts as JSON, not rmcp). Self cost: a
function's inlined callees count as it.
"""
import re
import subprocess
import sys

CATEGORIES = [
    ("JSON parse (serde deserialize)",
     r"Deserializ|deserializ|serde::de|serde_core::de|__private::de|serde_json::de|serde_json::read|Visitor|visit_|ContentRef|Content>|serde::__private|serde_core::__private"),
    ("JSON write (serde serialize)", r"Serializ|serializ|serde_json::ser|format_escaped_str|itoa|ryu"),
    ("serde_json::Value / Map (build, clone, drop)", r"serde_json::value|serde_json::map|drop_in_place<serde_json|btree|BTreeMap|indexmap"),
    ("allocator (malloc/free)", r"malloc|(^|[^a-z_])free|realloc|calloc|_int_|tcache|__rust_alloc|__rdl_|__rust_dealloc|alloc::alloc::|unlink_chunk|arena_|sysmalloc"),
    ("memcpy / memchr / memset", r"mem(cpy|move|set|chr|cmp)|__memrchr|strlen|bcmp"),
    ("tokio scheduler & tasks (spawn, wake, park)", r"tokio::runtime::(scheduler|task|context|park|blocking|coop|runtime|handle)|tokio::task|tokio::util|JoinSet|tokio::runtime::thread_id|LocalKey"),
    ("tokio I/O, timer and process drivers (epoll)", r"tokio::runtime::(io|time|driver|signal|process)|mio::|tokio::io|tokio::process|tokio::time|tokio::net|tokio::fs"),
    ("tokio sync (mpsc, oneshot, RwLock, Mutex)", r"tokio::sync"),
    ("std / libc: threads, futex, syscalls, clock", r"std::|pthread|futex|syscall|epoll|__libc|clock_gettime|__vdso|^\S*:(write|read|__write|__read|sched_yield)\b|_dl_|__GI_|__lll|parking_lot"),
    ("tracing (disabled callsites)", r"tracing"),
    ("tokio_util (framing, CancellationToken)", r"tokio_util"),
    ("futures", r"futures"),
    ("rmcp: service loop, transport, request/response model", r"rmcp"),
    ("ours (switchboard_engine::mcp)", r"switchboard_engine"),
    ("bench harness (timing, assertions)", r"mcp::|Instant|core::time"),
    ("hashing / other core", r"hash|Hash|core::|alloc::"),
]


def functions(path):
    text = subprocess.run(
        ["callgrind_annotate", "--threshold=100", "--auto=no", "--show-percs=no", path],
        check=True, capture_output=True, text=True).stdout
    total = None
    rows = []
    for line in text.splitlines():
        m = re.match(r"^\s*([\d,]+)\s+(\S.*?)\s*$", line)
        if not m:
            continue
        cost = int(m.group(1).replace(",", ""))
        name = m.group(2)
        if "PROGRAM TOTALS" in name:
            total = cost
            continue
        name = re.sub(r"\s+\[[^\]]*\]$", "", name)  # the object file
        rows.append((cost, name))
    return total, rows


def main():
    short, long, calls = sys.argv[1], sys.argv[2], int(sys.argv[3])
    top = int(sys.argv[4]) if len(sys.argv) > 4 else 12
    short_total, short_rows = functions(short)
    long_total, long_rows = functions(long)
    total = long_total - short_total
    costs = {}
    for cost, name in long_rows:
        costs[name] = costs.get(name, 0) + cost
    for cost, name in short_rows:
        costs[name] = costs.get(name, 0) - cost
    rows = [(cost, name) for name, cost in costs.items()]
    sums = {name: 0 for name, _ in CATEGORIES}
    sums["other"] = 0
    for cost, name in rows:
        for category, pattern in CATEGORIES:
            if re.search(pattern, name):
                sums[category] += cost
                break
        else:
            sums["other"] += cost
    print(f"    instructions per call: {total / calls:,.0f}")
    for category, cost in sorted(sums.items(), key=lambda kv: -kv[1]):
        if cost:
            print(f"      {cost / calls:>9,.0f}  {100 * cost / total:5.1f} %  {category}")
    print(f"    top {top} functions (self, per call):")
    for cost, name in sorted(rows, reverse=True)[:top]:
        print(f"      {cost / calls:>9,.0f}  {name[:150]}")


if __name__ == "__main__":
    main()
