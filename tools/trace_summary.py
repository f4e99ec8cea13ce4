#!/usr/bin/env python3
"""Prints where the time of an eagervm trace went: the top ops by total
compute time, per-row busy time, and the scheduler's share.

Usage: tools/trace_summary.py trace.json [--top N]
The trace comes from StopTrace(path) or EAGERVM_TRACE=path.json.
"""
import argparse
import collections
import json
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("trace")
    ap.add_argument("--top", type=int, default=15, help="ops to show (default 15)")
    args = ap.parse_args()
    with open(args.trace) as f:
        events = json.load(f)["traceEvents"]

    names = {}
    for e in events:
        if e.get("ph") == "M" and e.get("name") == "thread_name":
            names[e["tid"]] = e["args"]["name"]

    ops = collections.defaultdict(lambda: [0, 0.0, float("inf"), 0.0])  # count, total, min, max
    rows = collections.defaultdict(list)  # tid -> [(begin, end)] of compute/scheduler slices
    submits = collections.Counter()
    span_begin, span_end = float("inf"), 0.0
    for e in events:
        if e.get("ph") != "X":
            continue
        ts, dur = float(e["ts"]), float(e["dur"])
        span_begin, span_end = min(span_begin, ts), max(span_end, ts + dur)
        if e["cat"] == "compute":
            s = ops[e["name"]]
            s[0] += 1
            s[1] += dur
            s[2] = min(s[2], dur)
            s[3] = max(s[3], dur)
        if e["cat"] in ("compute", "scheduler"):
            rows[e["tid"]].append((ts, ts + dur))
        if e["cat"] == "submit":
            submits[names.get(e["tid"], e["tid"])] += e.get("args", {}).get("n", 1)

    # Busy time per row: the union of its slices (inline computes nest in passes).
    busy = {}
    for tid, spans in rows.items():
        spans.sort()
        t, end = 0.0, -1.0
        for b, e in spans:
            if b >= end:
                t += e - b
                end = e
            elif e > end:
                t += e - end
                end = e
        busy[names.get(tid, tid)] = t
    if not ops:
        print("no compute slices in", args.trace)
        return 1
    wall = max(span_end - span_begin, 1e-9)
    total = sum(s[1] for s in ops.values())
    print(f"{args.trace}: {sum(s[0] for s in ops.values())} instructions, "
          f"{total / 1e3:.3f} ms of compute in {wall / 1e3:.3f} ms of trace\n")
    print(f"{'op':<24}{'count':>9}{'total ms':>11}{'share':>8}{'mean us':>10}"
          f"{'min us':>9}{'max us':>10}")
    ranked = sorted(ops.items(), key=lambda kv: kv[1][1], reverse=True)
    for name, (n, tot, lo, hi) in ranked[: args.top]:
        print(f"{name[:23]:<24}{n:>9}{tot / 1e3:>11.3f}{tot / total:>8.1%}{tot / n:>10.2f}"
              f"{lo:>9.2f}{hi:>10.2f}")
    if len(ranked) > args.top:
        print(f"... and {len(ranked) - args.top} more ops")
    print(f"\n{'row':<28}{'busy ms':>10}{'of trace':>10}")
    for row, t in sorted(busy.items(), key=lambda kv: -kv[1]):
        print(f"{str(row)[:27]:<28}{t / 1e3:>10.3f}{t / wall:>10.1%}")
    if submits:
        print("\ninstructions submitted per user thread:",
              ", ".join(f"{k}: {v}" for k, v in submits.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
