#!/usr/bin/env bash
# Builds eagervm and runs the whole test suite.
# Usage: scripts/test.sh [release|asan|tsan|thread-safety|fuzz]   (default: release)
#   thread-safety: builds the library with clang++ and -Wthread-safety
#   -Werror (the ABSL_GUARDED_BY annotations, all in src/, checked), one
#   source a translation unit (each includes what it uses); it runs
#   nothing, the other modes run the same code.
#   fuzz: builds only the library and the fuzz targets (fuzz/) with clang++,
#   ASan+UBSan, -O1, and runs each target's deterministic replay: the
#   checked-in corpus plus FUZZ_GENERATE (default 2000) inputs from the fixed
#   FUZZ_SEED (docs/fuzzing.md). With FUZZ_EXPLORE_SECONDS set (scripts/fuzz.sh)
#   it runs the coverage-guided libFuzzer binaries that long instead.
# The library builds as a unity build (CMAKE_UNITY_BUILD: a layer's sources
# compiled 16 to a translation unit), which cuts its compile time ~3.5x on the
# CI machine's two cores; tests are one source each, so it does not touch them.
set -euo pipefail
cd "$(dirname "$0")/.."
mode="${1:-release}"
run_tests=1
case "$mode" in
  release) dir=build/release; flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo) ;;
  # Sanitizer builds skip the CUDA backend: with no GPU its code never runs
  # here, and the release build already proves it compiles.
  asan)    dir=build/asan;    flags=(-DCMAKE_BUILD_TYPE=Debug -DEAGERVM_SANITIZER=asan -DEAGERVM_CUDA=OFF) ;;
  tsan)    dir=build/tsan;    flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DEAGERVM_SANITIZER=tsan -DEAGERVM_CUDA=OFF) ;;
  # Debug without -g: the analysis runs in the front end, so the cheapest
  # code generation will do (no -O3 kernels, no debug info).
  thread-safety)
    dir=build/thread-safety; run_tests=0
    flags=(-DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-O0 -DCMAKE_CXX_COMPILER=clang++
           "-DCMAKE_CXX_FLAGS=-Wthread-safety -Werror" -DEAGERVM_CUDA=OFF) ;;
  # -O1 -g, no tests or examples: the CI budget buys fuzzing time, not builds.
  fuzz)
    dir=build/fuzz; run_tests=0
    flags=(-DCMAKE_BUILD_TYPE=Debug "-DCMAKE_CXX_FLAGS_DEBUG=-O1 -g" -DCMAKE_CXX_COMPILER=clang++
           -DEAGERVM_SANITIZER=asan -DEAGERVM_FUZZ=ON -DEAGERVM_CUDA=OFF -DEAGERVM_BUILD_TESTS=OFF
           -DEAGERVM_BUILD_EXAMPLES=OFF -DEAGERVM_INSTALL=OFF) ;;
  *) echo "usage: $0 [release|asan|tsan|thread-safety|fuzz]" >&2; exit 2 ;;
esac
if [ "$mode" = thread-safety ] || [ "$mode" = fuzz ]; then
  scripts/install_deps.sh clang
else
  scripts/install_deps.sh
fi
# The thread-safety build compiles each library source on its own (no
# unity): a source that leans on an include only its unity neighbours have
# fails there.
unity=ON
[ "$mode" = thread-safety ] && unity=OFF
cmake -S . -B "$dir" -G Ninja "${flags[@]}" -DEAGERVM_BUILD_BENCHMARKS=OFF \
  -DCMAKE_UNITY_BUILD=$unity -DCMAKE_UNITY_BUILD_BATCH_SIZE=16 >/dev/null
if [ "$mode" = thread-safety ]; then
  cmake --build "$dir" -j "$(nproc)" --target eagervm
else
  cmake --build "$dir" -j "$(nproc)"
fi
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
if [ "$mode" = fuzz ]; then
  targets=(program validation graph)
  if [ -n "${FUZZ_EXPLORE_SECONDS:-}" ]; then
    # Open-ended, coverage-guided exploration (scripts/fuzz.sh; not CI: what
    # it finds depends on timing). New inputs go to the build's corpus (first
    # directory); the checked-in seeds (second) are only read. A crash leaves
    # crash-* in the build dir.
    for t in "${targets[@]}"; do
      mkdir -p "$dir/corpus/$t"
      "$dir/fuzz/${t}_fuzzer" -max_total_time="$FUZZ_EXPLORE_SECONDS" -timeout=10 -max_len=2048 \
        -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$dir/" "$dir/corpus/$t" \
        "fuzz/corpus/$t"
    done
    exit 0
  fi
  # CI: deterministic. Each target replays the checked-in corpus, then
  # FUZZ_GENERATE inputs drawn from a fixed seed: the same tree always gives
  # the same verdict. A failure leaves the input in $dir/failing-<target>.
  for t in "${targets[@]}"; do
    "$dir/fuzz/${t}_fuzzer_replay" --seed="${FUZZ_SEED:-20261202}" \
      --generate="${FUZZ_GENERATE:-2000}" --max_len=2048 \
      --artifact="$dir/failing-$t" "fuzz/corpus/$t"
    rm -f "$dir/failing-$t"
  done
  exit 0
fi
[ "$run_tests" = 1 ] || exit 0
export TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1
ctest --test-dir "$dir" --output-on-failure -j "$(nproc)"
