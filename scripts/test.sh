#!/usr/bin/env bash
# Builds eagervm and runs the whole test suite.
# Usage: scripts/test.sh [release|asan|tsan]   (default: release)
set -euo pipefail
cd "$(dirname "$0")/.."
mode="${1:-release}"
scripts/install_deps.sh
case "$mode" in
  release) dir=build/release; flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo) ;;
  # Sanitizer builds skip the CUDA backend: with no GPU its code never runs
  # here, and the release build already proves it compiles.
  asan)    dir=build/asan;    flags=(-DCMAKE_BUILD_TYPE=Debug -DEAGERVM_SANITIZER=asan -DEAGERVM_CUDA=OFF) ;;
  tsan)    dir=build/tsan;    flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DEAGERVM_SANITIZER=tsan -DEAGERVM_CUDA=OFF) ;;
  *) echo "usage: $0 [release|asan|tsan]" >&2; exit 2 ;;
esac
cmake -S . -B "$dir" -G Ninja "${flags[@]}" -DEAGERVM_BUILD_BENCHMARKS=OFF >/dev/null
cmake --build "$dir" -j "$(nproc)"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1
ctest --test-dir "$dir" --output-on-failure -j "$(nproc)"
