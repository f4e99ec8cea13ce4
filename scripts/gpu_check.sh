#!/usr/bin/env bash
# One prepared command for a GPU machine (the lent H200: sm_90, 16 cores, no
# network): configures eagervm with the CUDA backend, builds the CUDA tests
# and benchmark with every core, runs them, and prints a short table.
# Finishes in a few minutes; each step has its own time limit.
#
# Usage: scripts/gpu_check.sh [build-dir]       (default build-gpu)
# Logs go to $OUT when it is set (the device tool brings that folder back),
# else to the build directory.
#
# Dependencies: whatever the machine has; for the rest, Debian packages
# carried in .gpudeps/ (fetched beforehand by scripts/gpu_deps.sh) are
# unpacked into /tmp/evm-deps -- never into /, and nothing is installed.
set -uo pipefail
cd "$(dirname "$0")/.."
dir="${1:-build-gpu}"
logs="${OUT:-$dir}"
mkdir -p "$dir" "$logs"
t_start=$(date +%s)
elapsed() { echo $(( $(date +%s) - t_start )); }
step() { echo "== [$(elapsed)s] $*"; }

step "machine"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | head -2
command -v nvcc >/dev/null || export PATH=/usr/local/cuda/bin:$PATH
nvcc --version | tail -1
for tool in cmake ninja nvcc c++; do command -v $tool >/dev/null || echo "missing tool: $tool"; done

cmake_args=(-G Ninja -DCMAKE_BUILD_TYPE=Release -DEAGERVM_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90
            -DEAGERVM_BUILD_EXAMPLES=OFF -DEAGERVM_INSTALL=OFF)
deps=/tmp/evm-deps
if ls .gpudeps/*.deb >/dev/null 2>&1; then
  step "unpacking $(ls .gpudeps/*.deb | wc -l) carried packages into $deps"
  mkdir -p "$deps"
  for f in .gpudeps/*.deb; do
    if command -v dpkg-deb >/dev/null; then dpkg-deb -x "$f" "$deps"
    else (cd "$deps" && ar p "$OLDPWD/$f" data.tar.xz | tar -xJ); fi
  done
  lib="$deps/usr/lib/x86_64-linux-gnu"
  export CMAKE_PREFIX_PATH="$deps/usr${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}"
  export LD_LIBRARY_PATH="$lib:$lib/openblas-pthread${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  blas="$lib/openblas-pthread/libopenblas.so"
  [ -e "$blas" ] || blas=$(ls "$lib"/openblas-pthread/libopenblas.so* 2>/dev/null | head -1)
  cmake_args+=(-DBLAS_LIBRARIES="$blas"
               "-DCMAKE_CXX_FLAGS=-isystem $deps/usr/include/x86_64-linux-gnu/openblas-pthread -isystem $deps/usr/include")
fi

step "configure"
if ! timeout 180 cmake -S . -B "$dir" "${cmake_args[@]}" -DEAGERVM_BUILD_BENCHMARKS=ON >"$logs/configure.log" 2>&1; then
  echo "configure with benchmarks failed (Google Benchmark missing?); retrying without"
  tail -5 "$logs/configure.log"
  timeout 180 cmake -S . -B "$dir" "${cmake_args[@]}" -DEAGERVM_BUILD_BENCHMARKS=OFF >"$logs/configure.log" 2>&1 \
    || { tail -30 "$logs/configure.log"; echo "FAILED: configure"; exit 1; }
fi
grep "eagervm:" "$logs/configure.log"

step "build"
targets=$(cd tests && ls cuda_*_test.cc | sed 's/\.cc$//' | tr '\n' ' ')
if grep -q "cuda_vm_bench" "$dir/build.ninja" 2>/dev/null; then targets="$targets cuda_vm_bench"; fi
# shellcheck disable=SC2086
if ! timeout 420 cmake --build "$dir" -j "$(nproc)" --target $targets >"$logs/build.log" 2>&1; then
  grep -E "error|FAILED" -A3 "$logs/build.log" | head -40
  echo "FAILED: build"
  exit 1
fi

step "CUDA tests"
: >"$logs/tests.log"
test_rc=0
printf "| test | passed | failed | skipped |\n|---|---:|---:|---:|\n"
for t in $(cd tests && ls cuda_*_test.cc | sed 's/\.cc$//'); do
  echo "=== $t" >>"$logs/tests.log"
  timeout 180 "$dir/tests/$t" >"$logs/.t.log" 2>&1
  rc=$?
  cat "$logs/.t.log" >>"$logs/tests.log"
  [ $rc -ne 0 ] && test_rc=$rc
  ok=$(grep -c '^\[       OK \] .*ms)' "$logs/.t.log")
  bad=$(grep -c '^\[  FAILED  \] .*ms)' "$logs/.t.log")
  skip=$(grep -c '^\[  SKIPPED \] .*ms)' "$logs/.t.log")
  [ $rc -ne 0 ] && [ "$bad" -eq 0 ] && bad="rc=$rc"
  printf "| %s | %s | %s | %s |\n" "$t" "$ok" "$bad" "$skip"
done
rm -f "$logs/.t.log"
grep -B1 -A6 "Failure" "$logs/tests.log" | head -60
# Skips mean no GPU was seen: say so plainly, it is not a pass. (The
# no-device tests skip on purpose when there is a GPU.)
grep '^\[  SKIPPED \] .*ms)' "$logs/tests.log" | grep -qv NoCudaDevice &&
  echo "WARNING: CUDA tests were SKIPPED (no GPU seen?)"

bench_rc=0
if [ -x "$dir/bench/cuda_vm_bench" ]; then
  step "GPU benchmarks"
  timeout 180 "$dir/bench/cuda_vm_bench" >"$logs/bench.log" 2>&1
  bench_rc=$?
  cat "$logs/bench.log"
else
  echo "cuda_vm_bench not built (no Google Benchmark): no numbers"
fi

step "done: tests rc=$test_rc bench rc=$bench_rc in $(elapsed)s"
[ $test_rc -eq 0 ] && [ $bench_rc -eq 0 ]
