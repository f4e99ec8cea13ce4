#!/usr/bin/env python3
"""Draws an eagervm trace as a timeline PNG: one lane per thread (user
threads, the scheduler, each stream worker), compute slices coloured by op,
scheduler passes and submissions in grey, and the in-flight counter below.

Usage: tools/trace_timeline.py trace.json out.png [--from MS] [--to MS] [--title T]
Needs matplotlib (Debian: apt-get install python3-matplotlib).
"""
import argparse
import collections
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("trace")
    ap.add_argument("out")
    ap.add_argument("--from", dest="t0", type=float, default=None, help="window start, ms")
    ap.add_argument("--to", dest="t1", type=float, default=None, help="window end, ms")
    ap.add_argument("--title", default=None)
    ap.add_argument("--colors", type=int, default=9, help="ops with their own colour")
    args = ap.parse_args()
    with open(args.trace) as f:
        events = json.load(f)["traceEvents"]

    names, order = {}, {}
    for e in events:
        if e.get("ph") == "M" and e.get("name") == "thread_name":
            names[e["tid"]] = e["args"]["name"]
        if e.get("ph") == "M" and e.get("name") == "thread_sort_index":
            order[e["tid"]] = e["args"]["sort_index"]
    slices = [e for e in events if e.get("ph") == "X"]
    if not slices:
        print("no slices in", args.trace, file=sys.stderr)
        return 1
    t0 = args.t0 * 1e3 if args.t0 is not None else min(float(e["ts"]) for e in slices)
    t1 = args.t1 * 1e3 if args.t1 is not None else max(float(e["ts"]) + float(e["dur"])
                                                       for e in slices)

    def visible(e):
        return float(e["ts"]) + float(e["dur"]) >= t0 and float(e["ts"]) <= t1

    slices = [e for e in slices if visible(e)]
    compute_time = collections.Counter()
    for e in slices:
        if e["cat"] == "compute":
            compute_time[e["name"]] += float(e["dur"])
    palette = plt.get_cmap("tab10").colors
    colour = {name: palette[i % len(palette)]
              for i, (name, _) in enumerate(compute_time.most_common(args.colors))}
    other = (0.55, 0.55, 0.55)

    tids = sorted({e["tid"] for e in slices}, key=lambda t: (order.get(t, 1 << 30), t))
    lane = {tid: i for i, tid in enumerate(tids)}
    fig, (ax, axc) = plt.subplots(2, 1, figsize=(13, 1.6 + 0.55 * len(tids) + 1.6),
                                  sharex=True, gridspec_kw={"height_ratios": [len(tids) + 1, 2]})
    ms = lambda us: (us - t0) / 1e3  # noqa: E731
    for e in slices:
        y = lane[e["tid"]]
        x, w = ms(float(e["ts"])), float(e["dur"]) / 1e3
        if e["cat"] == "compute":
            ax.broken_barh([(x, w)], (y - 0.3, 0.6), facecolors=colour.get(e["name"], other),
                           linewidth=0)
        else:  # scheduler passes and submissions: thin, behind
            ax.broken_barh([(x, w)], (y - 0.42, 0.12), facecolors=(0.2, 0.2, 0.2), linewidth=0)
    ax.set_yticks(range(len(tids)))
    ax.set_yticklabels([names.get(t, str(t)) for t in tids])
    ax.invert_yaxis()
    ax.set_xlim(0, (t1 - t0) / 1e3)
    ax.grid(axis="x", alpha=0.3)
    legend = [Patch(color=c, label=n) for n, c in colour.items()]
    legend.append(Patch(color=(0.2, 0.2, 0.2), label="schedule pass / submit"))
    if len(compute_time) > len(colour):
        legend.append(Patch(color=other, label="other ops"))
    ax.legend(handles=legend, loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8)
    ax.set_title(args.title or f"eagervm trace: {args.trace}")

    for counter in ("in flight", "running"):
        pts = sorted((float(e["ts"]), e["args"]["value"]) for e in events
                     if e.get("ph") == "C" and e.get("name") == counter and t0 <= float(e["ts"]) <= t1)
        if pts:
            axc.step([ms(t) for t, _ in pts], [v for _, v in pts], where="post", label=counter)
    axc.set_ylabel("instructions")
    axc.set_xlabel("time (ms)")
    axc.grid(alpha=0.3)
    axc.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8)
    fig.tight_layout()
    fig.savefig(args.out, dpi=110)
    print(f"wrote {args.out}: {len(slices)} slices on {len(tids)} rows, "
          f"{(t1 - t0) / 1e3:.3f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
