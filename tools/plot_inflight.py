#!/usr/bin/env python3
"""Plots ns/op against the number of ops in flight (a dependent chain of N
tiny adds, then one sync) for eagervm, libtorch and StarPU, from the JSON that
scripts/bench_peers.sh writes.

Usage: tools/plot_inflight.py RESULT_DIR [OUT_PNG]
       (default OUT_PNG: docs/images/ns_per_op_vs_inflight.png)
"""
import os
import sys

import matplotlib

matplotlib.use("Agg")  # no display needed
import matplotlib.pyplot as plt  # noqa: E402

from bench_results import load  # noqa: E402

SERIES = [
    ("eagervm (default: small ops inline on the scheduler)", "vm_bench:BM_EvmInFlight/", "tab:blue", "o"),
    ("eagervm (every op handed to a worker)", "vm_bench_handoff:BM_EvmInFlight/", "tab:cyan", "s"),
    ("libtorch add_ (synchronous)", "torch_peer_bench:BM_TorchInFlight/", "tab:red", "^"),
    ("StarPU tasks", "starpu_peer_bench:BM_StarpuInFlight/", "tab:green", "v"),
]


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    out = sys.argv[2] if len(sys.argv) == 3 else os.path.join(
        os.path.dirname(__file__), "..", "docs", "images", "ns_per_op_vs_inflight.png")
    res = load(sys.argv[1])
    fig, ax = plt.subplots(figsize=(7, 4.5), dpi=120)
    plotted = 0
    for label, prefix, color, marker in SERIES:
        points = sorted((int(k[len(prefix):]), v["ns_per_op"]) for k, v in res.items()
                        if k.startswith(prefix) and "ns_per_op" in v)
        if not points:
            continue
        xs, ys = zip(*points)
        ax.plot(xs, ys, marker=marker, color=color, label=label)
        plotted += 1
    if plotted == 0:
        sys.exit(f"no BM_*InFlight results in {sys.argv[1]}")
    ax.set_xscale("log", base=4)
    ax.set_yscale("log")
    ax.set_xlabel("ops in flight (dependent chain of N 1-float adds, then one sync)")
    ax.set_ylabel("ns per op, end to end")
    ax.set_title("Per-op cost vs ops in flight (same run, 2-vCPU machine)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    fig.savefig(out)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
