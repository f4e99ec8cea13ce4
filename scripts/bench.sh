#!/usr/bin/env bash
# Builds and runs eagervm's own benchmarks (no peers): per-op costs next to a
# direct kernel-call baseline in the same run, then a table of ratios.
# Usage: scripts/bench.sh [Google Benchmark flags, e.g. --benchmark_filter=Chain]
# Env:   BUILD_DIR (default build/bench), BUILD_TYPE (default Release)
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${BUILD_DIR:-build/bench}"
scripts/install_deps.sh
flags=(-DCMAKE_BUILD_TYPE="${BUILD_TYPE:-Release}" -DEAGERVM_BUILD_BENCHMARKS=ON -DEAGERVM_CUDA=OFF)
[ -f "$dir/CMakeCache.txt" ] || flags+=(-DEAGERVM_BUILD_TESTS=OFF -DEAGERVM_BUILD_EXAMPLES=OFF)
cmake -S . -B "$dir" -G Ninja "${flags[@]}" >/dev/null
cmake --build "$dir" --target vm_bench
"$dir/bench/vm_bench" "$@"
