#!/usr/bin/env bash
# Where the time per op goes, in instructions per op on each thread
# (callgrind: independent of machine load, unlike timings on 2 shared cores).
# Runs a dependent chain of tiny AddInplace ops (vm_bench's in-flight case,
# 4096 ops per Sync) under callgrind, then prints per-thread costs and the top
# self-cost functions per op.
# Usage: scripts/profile_hot_path.sh [BENCHMARK_REGEX]   (default ^BM_EvmInFlight/4096)
# Env:   BUILD_DIR (default build/bench), OP (default "ops::AddInplace(")
#        EAGERVM_* VM options, e.g. EAGERVM_COMPUTE_ON_SCHEDULER_THREAD=1
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${BUILD_DIR:-build/bench}"
filter="${1:-^BM_EvmInFlight/4096}"
scripts/install_deps.sh valgrind
flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DEAGERVM_BUILD_BENCHMARKS=ON -DEAGERVM_CUDA=OFF)
[ -f "$dir/CMakeCache.txt" ] || flags+=(-DEAGERVM_BUILD_TESTS=OFF -DEAGERVM_BUILD_EXAMPLES=OFF)
cmake -S . -B "$dir" -G Ninja "${flags[@]}" >/dev/null
cmake --build "$dir" --target vm_bench
out="$(mktemp -d)"
valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$out/cg.out" \
  "$dir/bench/vm_bench" --benchmark_filter="$filter" --benchmark_min_time=1 >"$out/log.txt" 2>&1
python3 tools/callgrind_per_op.py "${OP:-ops::AddInplace(}" "$out"/cg.out-*
echo "callgrind files: $out"
