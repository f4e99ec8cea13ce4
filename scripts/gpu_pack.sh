#!/usr/bin/env bash
# Run HERE (no GPU needed, same CUDA 13 toolkit as the GPU machine): copies the
# CUDA test binaries and the CUDA benchmark of a build directory, stripped,
# into .gpubin/ (ignored by git), for scripts/gpu_check.sh to run on a GPU
# machine without building there. The build must target sm_90 (the H200):
#   cmake -S . -B build-gpubin -G Ninja -DCMAKE_BUILD_TYPE=Release -DEAGERVM_CUDA=ON \
#     -DCMAKE_CUDA_ARCHITECTURES=90 -DEAGERVM_BUILD_BENCHMARKS=ON
#   ninja -C build-gpubin -j2 $(cd tests && ls cuda_*_test.cc | sed 's/\.cc$//') cuda_vm_bench
#   scripts/gpu_pack.sh build-gpubin
# Copy it with .gpudeps/ to the GPU machine (the script prints the sizes).
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:?usage: scripts/gpu_pack.sh BUILD_DIR}"
grep -q 'CMAKE_CUDA_ARCHITECTURES:STRING=.*90' "$build/CMakeCache.txt" ||
  echo "warning: $build does not build sm_90 code (CMAKE_CUDA_ARCHITECTURES): the H200 may reject it"
# Stripped binaries are ~5 MB each (they link the CUDA kernels) and there
# are ten: compressed (xz, ~7x) they are ~3 MB, next to ~15 MB of
# .gpudeps. gpu_check.sh unpacks .gpubin/bins.tar.xz into /tmp.
rm -rf .gpubin
stage=$(mktemp -d)
mkdir -p "$stage/tests" "$stage/bench" .gpubin
for t in $(cd tests && ls cuda_*_test.cc | sed 's/\.cc$//'); do
  strip -o "$stage/tests/$t" "$build/tests/$t"
done
[ -x "$build/bench/cuda_vm_bench" ] && strip -o "$stage/bench/cuda_vm_bench" "$build/bench/cuda_vm_bench"
# Its CUDA DLPack case (gpu_check.sh runs only that one).
[ -x "$build/tests/dlpack_test" ] && strip -o "$stage/tests/dlpack_test" "$build/tests/dlpack_test"
tar -C "$stage" -cf - tests bench | xz -T2 -6 >.gpubin/bins.tar.xz
rm -rf "$stage"
du -sh .gpubin .gpudeps 2>/dev/null || true
