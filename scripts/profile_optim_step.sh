#!/usr/bin/env bash
# Instructions per optimizer step (callgrind; independent of machine load),
# fused against unfused, on bench/optim_bench.cc's 12 parameters.
# Usage: scripts/profile_optim_step.sh [adam|sgd] [STEPS]
# Env:   BUILD_DIR (default build/rel, built with EAGERVM_BUILD_BENCHMARKS=ON)
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${BUILD_DIR:-build/rel}"
opt="${1:-adam}"
steps="${2:-20}"
cmake --build "$dir" --target optim_bench >/dev/null
out="$(mktemp -d)"
for mode in fused unfused; do
  for n in 1 "$((steps + 1))"; do  # the difference of two runs: per step, without setup
    valgrind --tool=callgrind --callgrind-out-file="$out/$mode.$n" \
      "$dir/bench/optim_bench" --opt="$opt" --mode="$mode" --steps="$n" >/dev/null 2>&1
  done
done
python3 - "$out" "$steps" <<'PY'
import sys
out, steps = sys.argv[1], int(sys.argv[2])
def total(f):
    for line in open(f, errors="replace"):
        if line.startswith("summary:") or line.startswith("totals:"):
            return int(line.split()[1])
for mode in ("fused", "unfused"):
    per = (total(f"{out}/{mode}.{steps + 1}") - total(f"{out}/{mode}.1")) / steps
    print(f"{mode:8s} {per/1e3:8.0f}k instructions per step")
PY
echo "callgrind files: $out"
