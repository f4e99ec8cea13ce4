#!/usr/bin/env bash
# Instructions per MLP training step (callgrind; independent of machine load):
# the hand-written-gradient eager step against the autograd step (forward,
# autograd::Backward, optim::Sgd), per thread and in all.
# Usage: scripts/profile_autograd_step.sh [small|large] [STEPS]
# Env:   BUILD_DIR (default build/rel, built with EAGERVM_BUILD_BENCHMARKS=ON)
#        MODES (default "eager autograd"; also graph, kernel: the graph step
#        and the same kernels called directly, e.g. MODES="kernel graph eager")
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${BUILD_DIR:-build/rel}"
size="${1:-small}"
steps="${2:-100}"
cmake --build "$dir" --target mlp_bench >/dev/null
out="$(mktemp -d)"
modes="${MODES:-eager autograd}"
for mode in $modes; do
  for n in 0 "$steps"; do  # the difference between two runs: per step, without setup
    valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$out/$mode.$n" \
      "$dir/bench/models/mlp_bench" --count="$mode" --sizes="$size" --steps="$((n == 0 ? 1 : n + 1))" \
      >/dev/null 2>&1
  done
done
python3 - "$out" "$steps" $modes <<'PY'
import glob, re, sys
out, steps, modes = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
def totals(prefix):
    t = {}
    for f in glob.glob(prefix + "-*"):
        for line in open(f, errors="replace"):
            if line.startswith("summary:") or line.startswith("totals:"):
                t[f.rsplit("-", 1)[1]] = int(line.split()[1]); break
    return t
for mode in modes:
    a, b = totals(f"{out}/{mode}.0"), totals(f"{out}/{mode}.{steps}")
    per = {k: (b[k] - a.get(k, 0)) / steps for k in b}
    parts = ", ".join(f"thread {k}: {v/1e3:.0f}k" for k, v in sorted(per.items()))
    print(f"{mode:9s} {sum(per.values())/1e3:8.0f}k instructions per step ({parts})")
PY
echo "callgrind files: $out"
