#!/usr/bin/env bash
# One prepared command for a GPU machine (built for sm_90; works without
# network when .gpudeps/ and .gpubin/ were prepared elsewhere). Runs every CUDA test binary (60 s each), a short
# compute-sanitizer pass and the CUDA benchmark, then prints ONE table:
# tests passed/failed/skipped per binary and each benchmark ratio.
#
# Worst case <= 8 minutes in total: every step's limit is cut to what is left
# of a global budget (EAGERVM_GPU_BUDGET_S, default 450 s), so a hanging test
# costs at most 60 s and the later steps are skipped (and say so) rather than
# overrunning. The order puts what teaches the most first: tests, then the
# sanitizer, then the benchmark.
#
# Usage: scripts/gpu_check.sh [-b build-dir] [-p prebuilt-dir] [log-dir]
#   log-dir      full logs; default $EAGERVM_GPU_LOGS, else $OUT if set,
#                else <build-dir>/gpu-logs
#   -p DIR       binaries built elsewhere (scripts/gpu_pack.sh: DIR/tests/
#                cuda_*_test, DIR/bench/cuda_vm_bench); default .gpubin if it
#                exists. Used when they start here; else the script builds.
#   -b DIR       build directory for building here (default build-gpu)
#
# Dependencies: whatever the machine has; for the rest, Debian packages
# carried in .gpudeps/ (scripts/gpu_deps.sh) are unpacked into /tmp/evm-deps
# -- never into /, and nothing is installed. docs/cuda.md has the commands.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
dir=build-gpu
prebuilt=""
[ -d .gpubin ] && prebuilt=.gpubin
while getopts "b:p:" opt; do
  case $opt in
    b) dir=$OPTARG ;;
    p) prebuilt=$OPTARG ;;
    *) echo "usage: $0 [-b build-dir] [-p prebuilt-dir] [log-dir]"; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
logs="${1:-${EAGERVM_GPU_LOGS:-${OUT:-$dir/gpu-logs}}}"
mkdir -p "$logs"
budget=${EAGERVM_GPU_BUDGET_S:-450}
t_start=$(date +%s)
elapsed() { echo $(($(date +%s) - t_start)); }
left() { echo $((budget - $(elapsed))); }
# limit WANT: WANT seconds, or what is left of the budget if less (>= 0),
# less the kill grace of `timeout -k $grace` that a hang adds on top.
grace=5
limit() {
  local l
  l=$(($(left) - grace))
  [ "$l" -lt "$1" ] && echo $((l > 0 ? l : 0)) || echo "$1"
}
step() { echo "== [$(elapsed)s] $*" | tee -a "$logs/check.log"; }
table=()  # rows of the final table
row() { table+=("$(printf '| %s | %s | %s | %s | %s |' "$@")"); }

step "machine"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | head -2 |
  tee -a "$logs/check.log"
have_gpu=0
nvidia-smi -L 2>/dev/null | grep -q '^GPU ' && have_gpu=1
[ $have_gpu -eq 1 ] || echo "no GPU seen (nvidia-smi -L): the tests will skip; sanitizer and benchmark are not run"
command -v nvcc >/dev/null || export PATH=/usr/local/cuda/bin:$PATH
# The toolkit is where nvcc really lies (a symlink in /usr/bin, a versioned
# /usr/local/cuda-13.0, ...); its runtime libraries (libcudart, libcublas)
# are in lib64, lib or targets/x86_64-linux/lib depending on the layout.
cuda_home=/usr/local/cuda
command -v nvcc >/dev/null && cuda_home=$(dirname "$(dirname "$(readlink -f "$(command -v nvcc)")")")
export CUDA_HOME=${CUDA_HOME:-$cuda_home}
command -v compute-sanitizer >/dev/null ||
  export PATH=$PATH:$CUDA_HOME/bin:$CUDA_HOME/compute-sanitizer:/usr/local/cuda/compute-sanitizer
echo "CUDA_HOME=$CUDA_HOME"
nvcc --version 2>&1 | tail -1
for tool in cmake ninja nvcc c++; do command -v $tool >/dev/null || echo "missing tool: $tool"; done
export LD_LIBRARY_PATH="$CUDA_HOME/lib64:$CUDA_HOME/lib:$CUDA_HOME/targets/x86_64-linux/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

# MPI (and NCCL) off: not needed here, and absent on the GPU machine.
cmake_args=(-G Ninja -DCMAKE_BUILD_TYPE=Release -DEAGERVM_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90
            -DEAGERVM_MPI=OFF -DEAGERVM_BUILD_EXAMPLES=OFF -DEAGERVM_INSTALL=OFF)
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
  export LD_LIBRARY_PATH="$lib:$lib/openblas-pthread:$LD_LIBRARY_PATH"
  blas="$lib/openblas-pthread/libopenblas.so"
  [ -e "$blas" ] || blas=$(ls "$lib"/openblas-pthread/libopenblas.so* 2>/dev/null | head -1)
  cmake_args+=(-DBLAS_LIBRARIES="$blas"
               "-DCMAKE_CXX_FLAGS=-isystem $deps/usr/include/x86_64-linux-gnu/openblas-pthread -isystem $deps/usr/include")
fi

tests=$(cd tests && ls cuda_*_test.cc | sed 's/\.cc$//')
# Prebuilt binaries: use them if every test binary exists and starts (lists
# its tests) here; a missing library or a wrong architecture shows at once.
bin=""
if [ -n "$prebuilt" ] && [ -f "$prebuilt/bins.tar.xz" ]; then  # scripts/gpu_pack.sh's archive
  step "unpacking $prebuilt/bins.tar.xz"
  rm -rf /tmp/evm-gpubin && mkdir -p /tmp/evm-gpubin &&
    xz -dc "$prebuilt/bins.tar.xz" | tar -C /tmp/evm-gpubin -xf - && prebuilt=/tmp/evm-gpubin
fi
if [ -n "$prebuilt" ]; then
  step "checking prebuilt binaries in $prebuilt"
  bin=$prebuilt
  for t in $tests; do
    if ! timeout "$(limit 10)" "$prebuilt/tests/$t" --gtest_list_tests >>"$logs/prebuilt.log" 2>&1; then
      echo "prebuilt $t does not start (see prebuilt.log): building here"
      tail -3 "$logs/prebuilt.log"
      ldd "$prebuilt/tests/$t" 2>&1 | grep 'not found' | tee -a "$logs/prebuilt.log"
      bin=""
      break
    fi
  done
fi
if [ -z "$bin" ]; then
  step "configure"
  if ! timeout "$(limit 120)" cmake -S . -B "$dir" "${cmake_args[@]}" -DEAGERVM_BUILD_BENCHMARKS=ON \
      >"$logs/configure.log" 2>&1; then
    echo "configure with benchmarks failed (Google Benchmark missing?); retrying without"
    tail -5 "$logs/configure.log"
    timeout "$(limit 90)" cmake -S . -B "$dir" "${cmake_args[@]}" -DEAGERVM_BUILD_BENCHMARKS=OFF \
      >"$logs/configure.log" 2>&1 || { tail -30 "$logs/configure.log"; echo "FAILED: configure"; exit 1; }
  fi
  grep "eagervm:" "$logs/configure.log"
  step "build"
  targets="$tests"
  grep -q "cuda_vm_bench" "$dir/build.ninja" 2>/dev/null && targets="$targets cuda_vm_bench"
  grep -q "dlpack_test" "$dir/build.ninja" 2>/dev/null && targets="$targets dlpack_test"
  # shellcheck disable=SC2086
  if ! timeout "$(limit 300)" cmake --build "$dir" -j "$(nproc)" --target $targets \
      >"$logs/build.log" 2>&1; then
    grep -E "error|FAILED" -A3 "$logs/build.log" | head -40
    echo "FAILED: build (or out of time at $(elapsed)s)"
    exit 1
  fi
  bin=$dir
fi

# The one CUDA case outside the cuda_* binaries (cuda_conformance_test is the
# backend conformance suite's CUDA instance): a CUDA DLPack import's release,
# when dlpack_test was built (it needs libdlpack-dev).
[ -x "$bin/tests/dlpack_test" ] && tests="$tests dlpack_test"
gtest_filter() { [ "$1" = dlpack_test ] && echo "--gtest_filter=DLPack.ACuda*"; }

step "CUDA tests (60 s each)"
: >"$logs/tests.log"
test_rc=0
for t in $tests; do
  l=$(limit 60)
  if [ "$l" -lt 5 ]; then
    row "$t" "-" "-" "-" "not run: out of time"
    test_rc=1
    continue
  fi
  echo "=== $t (limit ${l}s)" >>"$logs/tests.log"
  # shellcheck disable=SC2046
  timeout -k $grace "$l" "$bin/tests/$t" $(gtest_filter "$t") >"$logs/$t.log" 2>&1
  rc=$?
  cat "$logs/$t.log" >>"$logs/tests.log"
  ok=$(grep -c '^\[       OK \] .*ms)' "$logs/$t.log")
  bad=$(grep -c '^\[  FAILED  \] .*ms)' "$logs/$t.log")
  skip=$(grep -c '^\[  SKIPPED \] .*ms)' "$logs/$t.log")
  note=""
  [ $rc -ne 0 ] && test_rc=1 && note="rc=$rc"
  [ $rc -eq 124 ] || [ $rc -eq 137 ] && note="TIMEOUT after ${l}s"
  row "$t" "$ok" "$bad" "$skip" "$note"
done
grep -h -A6 ': Failure$' "$logs"/cuda_*_test.log "$logs"/dlpack_test.log 2>/dev/null | head -60
# Skips for want of a GPU mean no GPU was seen: say so plainly, it is not a
# pass. Every other skip is listed with its reason (two GPUs needed, not
# under mpirun, an op the backend lacks: the last one is a finding).
grep -qh 'needs a CUDA GPU: CudaDeviceCount() is 0' "$logs"/cuda_*_test.log 2>/dev/null &&
  echo "WARNING: CUDA tests were SKIPPED for want of a GPU (no GPU seen?)"
grep -h -A1 ': Skipped$' "$logs"/cuda_*_test.log 2>/dev/null | grep -v -e ': Skipped$' -e '^--$' |
  sort | uniq -c | sed 's/^/skip reason: /'

# compute-sanitizer (memcheck) on the small kernel tests: out-of-bounds and
# misaligned accesses, and racecheck on the tiled kernels.
san_rc=0
if [ $have_gpu -eq 0 ]; then
  row "compute-sanitizer" "-" "-" "-" "skipped: no GPU"
elif command -v compute-sanitizer >/dev/null; then
  # tool binary filter seconds: memcheck on the small kernel tests; racecheck
  # on the small reductions only (the 70,000-row ones would take minutes;
  # cuBLAS's Hopper kernels may be misreported); memcheck on the conformance
  # suite's reductions past the grid and chunk limits and odd transposes.
  runs=("memcheck cuda_ops_test CudaOps.*:-CudaOps.TensorsOverTwoToThe31Elements:CudaOps.FullSizeSumAndMeanNumerics:CudaOps.TransposeOfMoreThanTwoMillionRows 60"
        "racecheck cuda_ops_test CudaOps.Reductions 30"
        "memcheck cuda_conformance_test Cuda/BackendConformance.ReductionsAndTransposesPastGridAndChunkLimits/* 40")
  for r in "${runs[@]}"; do
    read -r tool sbin f want <<<"$r"
    l=$(limit "$want")
    name="compute-sanitizer $tool $sbin"
    if [ "$l" -lt 20 ]; then row "$name" "-" "-" "-" "not run: out of time"; continue; fi
    [ -x "$bin/tests/$sbin" ] || { row "$name" "-" "-" "-" "not run: no $sbin"; continue; }
    step "$name (${l}s)"
    slog="$logs/sanitizer-$tool-$sbin.log"
    timeout -k $grace "$l" compute-sanitizer --tool "$tool" --error-exitcode 9 \
      "$bin/tests/$sbin" --gtest_filter="$f" >"$slog" 2>&1
    rc=$?
    # Racecheck's summary line ("RACECHECK SUMMARY: 0 hazards displayed")
    # names hazards too: a zero there is not a report.
    errs=$(grep -E '^========= (Invalid|Race|Error|.*hazard)' "$slog" | grep -vc 'SUMMARY: 0 hazards')
    note="rc=$rc"
    if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
      # Out of time is not a finding: incomplete, unless it reported one.
      note="incomplete: timeout after ${l}s"
      [ "$errs" -gt 0 ] && san_rc=1
    elif [ $rc -ne 0 ]; then
      san_rc=1
    fi
    row "$name" "$(grep -c '^\[       OK \] .*ms)' "$slog")" \
      "$(grep -c '^\[  FAILED  \] .*ms)' "$slog")" "-" "$note, $errs reports"
  done
else
  row "compute-sanitizer" "-" "-" "-" "skipped: not installed"
fi

bench_rc=0
benches=()
if [ $have_gpu -eq 0 ]; then
  row "cuda_vm_bench" "-" "-" "-" "skipped: no GPU"
elif [ ! -x "$bin/bench/cuda_vm_bench" ]; then
  row "cuda_vm_bench" "-" "-" "-" "not found in $bin/bench (built without Google Benchmark?)"
elif [ "$(left)" -lt 60 ]; then
  row "cuda_vm_bench" "-" "-" "-" "skipped: past the time budget at $(elapsed)s"
else
  l=$(limit 120)
  step "GPU benchmarks (${l}s)"
  timeout -k $grace "$l" "$bin/bench/cuda_vm_bench" >"$logs/bench.log" 2>&1
  bench_rc=$?
  # The benchmark's own table: | case | eagervm | raw CUDA | unit | ratio | goal |
  while IFS= read -r line; do benches+=("$line"); done \
    < <(grep -E '^\| .*\| [0-9.]+x \|' "$logs/bench.log")
  [ $bench_rc -ne 0 ] && row "cuda_vm_bench" "-" "-" "-" "rc=$bench_rc (see bench.log)"
fi

step "done in $(elapsed)s (budget ${budget}s); logs in $logs"
{
  echo
  echo "| binary | passed | failed | skipped | note |"
  echo "|---|---:|---:|---:|---|"
  printf '%s\n' "${table[@]}"
  if [ ${#benches[@]} -gt 0 ]; then
    echo
    echo "| case | eagervm | raw CUDA | unit | ratio | goal |"
    echo "|---|---:|---:|---|---:|---|"
    printf '%s\n' "${benches[@]}"
  fi
} | tee "$logs/summary.md"
if [ $have_gpu -eq 0 ]; then
  echo "NO GPU: nothing above ran on a GPU (exit 3)"
  exit 3
fi
[ $test_rc -eq 0 ] && [ $san_rc -eq 0 ] && [ $bench_rc -eq 0 ]
