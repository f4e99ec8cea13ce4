#!/usr/bin/env bash
# Same-run comparison of two builds of bench/vm_bench.cc (e.g. before and
# after a refactor): runs them alternately for ROUNDS rounds, so a noisy
# machine slows both alike, and prints each row's median ns/op and the
# after/before ratio.
# Usage: scripts/bench_before_after.sh BEFORE_BUILD_DIR AFTER_BUILD_DIR [ROUNDS] [FILTER]
#   (each BUILD_DIR has bench/vm_bench built; default 5 rounds, the front-door rows)
set -euo pipefail
cd "$(dirname "$0")/.."
before="$1"; after="$2"; rounds="${3:-5}"
filter="${4:-^BM_(EvmChain|DirectChain|EvmSubmit|EvmItem|EvmEmptyChain)/}"
out="$(mktemp -d)"
for r in $(seq 1 "$rounds"); do
  for side in before after; do
    dir="$before"; [ "$side" = after ] && dir="$after"
    "$dir/bench/vm_bench" --benchmark_filter="$filter" --benchmark_format=json \
      --benchmark_out="$out/$side.$r.json" --benchmark_out_format=json >/dev/null
  done
done
python3 tools/bench_before_after.py "$out"
echo "results: $out"
