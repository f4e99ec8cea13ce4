#!/usr/bin/env bash
# Run HERE (no GPU needed, same CUDA 13 toolkit as the GPU machine): builds
# the CUDA test binaries, dlpack_test and the CUDA benchmark for sm_90 (the
# H200) in BUILD_DIR (default build-gpubin; configured if it is not yet),
# checks that each needs no shared library the GPU machine lacks, and packs
# them stripped and xz-compressed into .gpubin/bins.tar.xz (ignored by git)
# for scripts/gpu_check.sh to run there without building. The configure:
#   cmake -S . -B build-gpubin -G Ninja -DCMAKE_BUILD_TYPE=Release -DEAGERVM_CUDA=ON \
#     -DCMAKE_CUDA_ARCHITECTURES=90 -DEAGERVM_MPI=OFF -DEAGERVM_BUILD_BENCHMARKS=ON \
#     -DEAGERVM_BUILD_EXAMPLES=OFF
# MPI (and with it NCCL) is off: the GPU machine has neither Open MPI nor
# NCCL in its loader path, and a binary that needs them does not start there.
# Carry it with the dependencies: device run with carry [".gpudeps", ".gpubin"]
# (64 MiB in all: the script prints the sizes and fails above that).
#
# Usage: scripts/gpu_pack.sh [BUILD_DIR] [-j JOBS]
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build-gpubin}"
jobs="${2:-2}"
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DEAGERVM_CUDA=ON \
    -DCMAKE_CUDA_ARCHITECTURES=90 -DEAGERVM_MPI=OFF -DEAGERVM_BUILD_BENCHMARKS=ON \
    -DEAGERVM_BUILD_EXAMPLES=OFF -DEAGERVM_INSTALL=OFF
fi
grep -q '^CMAKE_CUDA_ARCHITECTURES:[A-Z]*=.*90' "$build/CMakeCache.txt" ||
  { echo "error: $build does not build sm_90 code (CMAKE_CUDA_ARCHITECTURES)"; exit 1; }
grep -q '^EAGERVM_MPI:[A-Z]*=OFF' "$build/CMakeCache.txt" ||
  { echo "error: $build was configured without -DEAGERVM_MPI=OFF (its binaries need libmpi/libnccl)"; exit 1; }
tests=$(cd tests && ls cuda_*_test.cc | sed 's/\.cc$//')
# dlpack_test for its CUDA case, when this configure has it (it needs
# libdlpack-dev). cuda_conformance_test is the conformance suite's CUDA
# instance.
if grep -q "build tests/dlpack_test:" "$build/build.ninja"; then tests="$tests dlpack_test"
else echo "warning: $build has no dlpack_test target: not packed"; fi
targets="$tests"
grep -q 'build bench/cuda_vm_bench:' "$build/build.ninja" && targets="$targets cuda_vm_bench"
# shellcheck disable=SC2086
ninja -C "$build" -j "$jobs" $targets

# Every NEEDED entry must be one the GPU machine has (its CUDA toolkit and
# C/C++ runtime) or one .gpudeps carries (scripts/gpu_deps.sh): anything else
# (libmpi, libnccl, ...) would make the binary fail to start there.
allowed='^(libcudart\.so|libcublas\.so|libcublasLt\.so|libabsl_[a-z0-9_]+\.so|libfmt\.so|libopenblas\.so|libblas\.so|liblapack\.so|libgfortran\.so|libquadmath\.so|libbenchmark\.so|libbenchmark_main\.so|libgtest\.so|libgtest_main\.so|libgmock\.so|libstdc\+\+\.so|libm\.so|libgcc_s\.so|libc\.so|libpthread\.so|libdl\.so|librt\.so|ld-linux-x86-64\.so)'
rm -f .gpubin/bins.tar.xz  # models.tar.xz (scripts/models_gpu_pack.sh) stays
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/tests" "$stage/bench" .gpubin
bad=0
pack() {  # pack SRC DST
  local unexpected
  unexpected=$(readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | grep -Ev "$allowed" || true)
  if [ -n "$unexpected" ]; then
    echo "error: $1 needs libraries the GPU machine lacks: ${unexpected//$'\n'/ }"
    bad=1
  fi
  strip -o "$2" "$1"
}
for t in $tests; do
  pack "$build/tests/$t" "$stage/tests/$t"
done
if [ -x "$build/bench/cuda_vm_bench" ]; then
  pack "$build/bench/cuda_vm_bench" "$stage/bench/cuda_vm_bench"
else
  echo "warning: no bench/cuda_vm_bench (Google Benchmark missing?): the check will skip it"
fi
[ $bad -eq 0 ] || { echo "not packed"; exit 1; }
tar -C "$stage" -cf - tests bench | xz -T2 -6 >.gpubin/bins.tar.xz
du -cb "$stage"/tests/* "$stage"/bench/* 2>/dev/null | tail -1 |
  awk '{printf "stripped binaries: %.1f MB uncompressed\n", $1 / 1e6}'
du -sh .gpubin .gpudeps 2>/dev/null || true
total=$(du -sbc .gpubin .gpudeps 2>/dev/null | tail -1 | cut -f1)
if [ "$total" -ge $((64 * 1024 * 1024)) ]; then
  echo "error: .gpubin + .gpudeps = $total bytes, over the 64 MiB carry limit"
  exit 1
fi
echo "carry: $total bytes of 67108864"
