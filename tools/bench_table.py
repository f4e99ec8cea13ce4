#!/usr/bin/env python3
"""Prints the peer table of ratios (eagervm vs peers, same run) as Markdown.

Usage: tools/bench_table.py RESULT_DIR   (written by scripts/bench_peers.sh)
"""
import sys

from bench_results import counter, load

EVM = "vm_bench"
HANDOFF = "vm_bench_handoff"  # EAGERVM_INLINE_MAX_BYTES=0: every op handed to a worker
TORCH = "torch_peer_bench"
STARPU = "starpu_peer_bench"
TBB = "tbb_peer_bench"

# (case, numerator key, denominator key, goal, goal test, numerator counter,
#  denominator counter); a ratio is numerator / denominator unless marked speed-up.
ROWS = [
    ("tiny op chain: 20k AddInplace on 1 float + Sync, vs libtorch add_",
     f"{EVM}:BM_EvmChain", f"{TORCH}:BM_TorchChain/0", "<= 0.5x", lambda r: r <= 0.5),
    ("same, independent ops over 64 tensors on 2 streams, vs libtorch add_",
     f"{EVM}:BM_EvmIndependent", f"{TORCH}:BM_TorchIndependent", "<= 0.5x", lambda r: r <= 0.5),
    ("submit-side cost (user-thread CPU per op), vs libtorch add_",
     f"{EVM}:BM_EvmSubmit", f"{TORCH}:BM_TorchChain/0", "<= 0.25x", lambda r: r <= 0.25),
    ("dependent chain of empty custom-op tasks, vs StarPU chain on one RW handle",
     f"{EVM}:BM_EvmEmptyChain", f"{STARPU}:BM_StarpuEmptyChain", "<= 0.1x", lambda r: r <= 0.1),
    ("one op + Item(), VM warm, vs StarPU submit + wait",
     f"{EVM}:BM_EvmItem", f"{STARPU}:BM_StarpuSubmitWait", "<= 0.05x", lambda r: r <= 0.05),
    ("one op + Item(), VM warm, vs libtorch add_ + item",
     f"{EVM}:BM_EvmItem", f"{TORCH}:BM_TorchItem", "<= 1.5x", lambda r: r <= 1.5),
    ("1M-float add, vs direct kernel call",
     f"{EVM}:BM_EvmAdd1M", f"{EVM}:BM_DirectAdd1M", "<= 1.05x", lambda r: r <= 1.05),
    ("two chains of 1M-float adds: 2 streams vs 1 stream (speed-up)",
     f"{EVM}:BM_EvmTwoChains/2", f"{EVM}:BM_EvmTwoChains/1", ">= 1.7x speed-up",
     lambda r: r >= 1.7, "speedup"),
]

# Context rows: no goal, same run.
EXTRA = [
    ("tiny op chain, vs direct kernel call", f"{EVM}:BM_EvmChain", f"{EVM}:BM_DirectChain"),
    ("tiny op chain, vs libtorch add_ under InferenceMode",
     f"{EVM}:BM_EvmChain", f"{TORCH}:BM_TorchChain/1"),
    ("tiny op chain, vs StarPU chain of adds", f"{EVM}:BM_EvmChain", f"{STARPU}:BM_StarpuChain"),
    ("tiny op chain, vs oneTBB prebuilt flow-graph chain (no dependence inference)",
     f"{EVM}:BM_EvmChain", f"{TBB}:BM_TbbPrebuiltChain"),
    ("tiny op chain, vs oneTBB build + run + destroy of the chain",
     f"{EVM}:BM_EvmChain", f"{TBB}:BM_TbbBuildRunChain"),
    ("submit-side cost, vs StarPU submission loop (CPU)",
     f"{EVM}:BM_EvmSubmit", f"{STARPU}:BM_StarpuSubmit"),
    ("1M-float add, vs direct calls writing two outputs in turn (the loop's allocation pattern)",
     f"{EVM}:BM_EvmAdd1M", f"{EVM}:BM_DirectAdd1MTwoOutputs"),
    ("1M-float add, vs libtorch (1 thread)", f"{EVM}:BM_EvmAdd1M", f"{TORCH}:BM_TorchAdd1M"),
    ("every op handed to a worker (inline_max_bytes=0): tiny op chain, vs libtorch add_",
     f"{HANDOFF}:BM_EvmChain", f"{TORCH}:BM_TorchChain/0"),
    ("every op handed to a worker: one op + Item(), vs libtorch add_ + item",
     f"{HANDOFF}:BM_EvmItem", f"{TORCH}:BM_TorchItem"),
    ("every op handed to a worker: empty-task chain, vs StarPU",
     f"{HANDOFF}:BM_EvmEmptyChain", f"{STARPU}:BM_StarpuEmptyChain"),
]


def fmt_ns(v):
    if v is None:
        return "n/a"
    if v >= 1e6:
        return f"{v / 1e6:.2f} ms"
    if v >= 1e3:
        return f"{v / 1e3:.2f} µs"
    return f"{v:.0f} ns"


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    res = load(sys.argv[1])
    print("| case | eagervm | peer / baseline | ratio | goal | met |")
    print("|---|---:|---:|---:|---|:---:|")
    for row in ROWS:
        label, num_key, den_key, goal, test = row[:5]
        speedup = len(row) > 5
        num, den = counter(res, num_key), counter(res, den_key)
        if num is None or den is None:
            print(f"| {label} | {fmt_ns(num)} | {fmt_ns(den)} | n/a | {goal} | not run |")
            continue
        ratio = (den / num) if not speedup else (counter(res, den_key) / num)
        ratio = num / den if not speedup else den / num
        # For the speed-up row the numerator is the 2-stream time.
        met = "yes" if test(ratio) else "**no**"
        print(f"| {label} | {fmt_ns(num)} | {fmt_ns(den)} | {ratio:.3f}x | {goal} | {met} |")
    idle = counter(res, f"{EVM}:BM_EvmIdle", "cpu_percent")
    if idle is not None:
        met = "yes" if idle < 1 else "**no**"
        print(f"| idle after work (whole process, 300 ms after Sync) | {idle:.3f}% of a core "
              f"| — | — | < 1% of a core | {met} |")
    print()
    print("| context (same run) | eagervm | other | ratio |")
    print("|---|---:|---:|---:|")
    for label, num_key, den_key in EXTRA:
        num, den = counter(res, num_key), counter(res, den_key)
        if num is None or den is None:
            continue
        print(f"| {label} | {fmt_ns(num)} | {fmt_ns(den)} | {num / den:.3f}x |")
    for key, what in [(f"{EVM}:BM_EvmChain", "tiny op chain"),
                      (f"{EVM}:BM_EvmIndependent", "independent ops"),
                      (f"{EVM}:BM_EvmItem", "op + Item()")]:
        w = counter(res, key, "wakeups_per_op")
        if w is not None:
            print(f"| thread wake-ups per op, {what} | {w:.4f} | | |")


if __name__ == "__main__":
    main()
