"""Loads Google Benchmark JSON files written by scripts/bench_peers.sh.

Files are named <program>.<round>.json (program: vm_bench, vm_bench_handoff,
torch_peer_bench, ...). Each benchmark's counter is taken from its "median"
aggregate when the file has repetitions, else from its single run, and the
median over rounds is kept: the rounds interleave the programs, so slow
phases of a noisy machine hit every program alike.
"""
import glob
import json
import os
import re
import statistics


def base_name(name):
    """BM_X/2/real_time, BM_X/iterations:1/real_time -> BM_X/2, BM_X."""
    parts = [p for p in name.split("/") if p != "real_time" and ":" not in p]
    return "/".join(parts)


def load(result_dir):
    """{"program:BM_name": {counter: median over rounds}}."""
    samples = {}
    for path in sorted(glob.glob(os.path.join(result_dir, "*.json"))):
        m = re.match(r"(.+)\.(\d+)\.json$", os.path.basename(path))
        if not m:
            continue
        program = m.group(1)
        with open(path) as f:
            data = json.load(f)
        per_file = {}
        for b in data.get("benchmarks", []):
            if b.get("error_occurred"):
                continue
            is_median = b.get("run_type") == "aggregate" and b.get("aggregate_name") == "median"
            if b.get("run_type") == "aggregate" and not is_median:
                continue
            key = program + ":" + base_name(b.get("run_name", b["name"]))
            if key in per_file and not is_median:
                continue
            per_file[key] = {k: v for k, v in b.items() if isinstance(v, (int, float))}
        for key, counters in per_file.items():
            for c, v in counters.items():
                samples.setdefault(key, {}).setdefault(c, []).append(v)
    return {k: {c: statistics.median(v) for c, v in cs.items()} for k, cs in samples.items()}


def counter(results, key, name="ns_per_op"):
    return results.get(key, {}).get(name)
