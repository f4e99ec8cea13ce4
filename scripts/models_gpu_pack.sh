#!/usr/bin/env bash
# Run HERE (no GPU needed, the same CUDA 13 toolkit as the GPU machine): builds
# the models suite (mlp_bench, transformer_bench, linear_regression) for sm_90
# in BUILD_DIR (default build-gpum; configured if it has no cache yet),
# checks that each binary needs no shared library the GPU machine lacks, and
# packs them stripped, with their data, into .gpubin/models.tar.xz (ignored
# by git) for scripts/models_gpu.sh to run there without building:
#   bin/      mlp_bench transformer_bench linear_regression
#   data/     digits.csv.gz (python3-sklearn's), GPL-3 (base-files': the
#             transformer's corpus)
#   lib/      libz.so.1 (digits.cc reads the gzip file; used there only if
#             the machine has no zlib of its own)
# The configure (libtorch left out: its libraries are not on the GPU machine,
# and its CPU build is no CUDA peer; bench/models/peers/mlp_torch_cuda.py is):
#   cmake -S . -B build-gpum -G Ninja -DCMAKE_BUILD_TYPE=Release -DEAGERVM_CUDA=ON \
#     -DCMAKE_CUDA_ARCHITECTURES=90 -DEAGERVM_MPI=OFF -DEAGERVM_BUILD_BENCHMARKS=ON \
#     -DEAGERVM_BUILD_EXAMPLES=ON -DEAGERVM_BUILD_TESTS=OFF -DEAGERVM_INSTALL=OFF \
#     -DCMAKE_DISABLE_FIND_PACKAGE_Torch=ON
# Carry it with the dependencies (scripts/gpu_deps.sh): device run with carry
# [".gpudeps", ".gpubin"], 64 MiB in all (the script prints the sizes and
# fails above that). scripts/gpu_pack.sh's bins.tar.xz may sit beside it.
#
# Usage: scripts/models_gpu_pack.sh [BUILD_DIR] [JOBS (default 1)]
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build-gpum}"
jobs="${2:-1}"
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DEAGERVM_CUDA=ON \
    -DCMAKE_CUDA_ARCHITECTURES=90 -DEAGERVM_MPI=OFF -DEAGERVM_BUILD_BENCHMARKS=ON \
    -DEAGERVM_BUILD_EXAMPLES=ON -DEAGERVM_BUILD_TESTS=OFF -DEAGERVM_INSTALL=OFF \
    -DCMAKE_DISABLE_FIND_PACKAGE_Torch=ON
fi
cache="$build/CMakeCache.txt"
grep -q '^CMAKE_CUDA_ARCHITECTURES:[A-Z]*=.*90' "$cache" ||
  { echo "error: $build does not build sm_90 code (CMAKE_CUDA_ARCHITECTURES)"; exit 1; }
grep -q '^EAGERVM_MPI:[A-Z]*=OFF' "$cache" ||
  { echo "error: $build was configured without -DEAGERVM_MPI=OFF (its binaries need libmpi/libnccl)"; exit 1; }
grep -q '^EAGERVM_BUILD_EXAMPLES:[A-Z]*=ON' "$cache" ||
  { echo "error: $build has no examples (-DEAGERVM_BUILD_EXAMPLES=ON): no linear_regression"; exit 1; }
digits=/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz
corpus=/usr/share/common-licenses/GPL-3
[ -f "$digits" ] || { echo "error: no $digits (apt install python3-sklearn)"; exit 1; }
[ -f "$corpus" ] || { echo "error: no $corpus (base-files)"; exit 1; }
ninja -C "$build" -j "$jobs" mlp_bench transformer_bench linear_regression

# Every NEEDED entry must be one the GPU machine has (its CUDA toolkit, the
# C/C++ runtime, zlib) or one .gpudeps carries (abseil, fmt, OpenBLAS):
# libtorch or libmpi would make the binary fail to start there.
allowed='^(libcudart\.so|libcublas\.so|libcublasLt\.so|libabsl_[a-z0-9_]+\.so|libfmt\.so|libopenblas\.so|libblas\.so|liblapack\.so|libgfortran\.so|libquadmath\.so|libz\.so|libstdc\+\+\.so|libm\.so|libgcc_s\.so|libc\.so|libpthread\.so|libdl\.so|librt\.so|ld-linux-x86-64\.so)'
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bin" "$stage/data" "$stage/lib" .gpubin
bad=0
for b in bench/models/mlp_bench bench/models/transformer_bench examples/linear_regression; do
  unexpected=$(readelf -d "$build/$b" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | grep -Ev "$allowed" || true)
  if [ -n "$unexpected" ]; then
    echo "error: $build/$b needs libraries the GPU machine lacks: ${unexpected//$'\n'/ }"
    bad=1
  fi
  strip -o "$stage/bin/$(basename "$b")" "$build/$b"
done
[ $bad -eq 0 ] || { echo "not packed"; exit 1; }
cp "$digits" "$stage/data/digits.csv.gz"
cp "$corpus" "$stage/data/GPL-3"
cp -L "$(ldconfig -p | sed -n 's/.*libz\.so\.1 (libc6,x86-64) => \(.*\)/\1/p' | head -1)" \
  "$stage/lib/libz.so.1"
tar -C "$stage" -cf - bin data lib | xz -T2 -6 >.gpubin/models.tar.xz
du -cb "$stage"/bin/* | tail -1 | awk '{printf "stripped binaries: %.1f MB uncompressed\n", $1 / 1e6}'
du -sh .gpubin/models.tar.xz; du -sh .gpubin; du -sh .gpudeps 2>/dev/null || true
total=$(du -sbc .gpubin .gpudeps 2>/dev/null | tail -1 | cut -f1)
if [ "$total" -ge $((64 * 1024 * 1024)) ]; then
  echo "error: .gpubin + .gpudeps = $total bytes, over the 64 MiB carry limit"
  exit 1
fi
[ -d .gpudeps ] || echo "warning: no .gpudeps here (scripts/gpu_deps.sh): the GPU machine needs abseil, fmt and OpenBLAS from it"
echo "carry: $total bytes of 67108864; on the GPU machine: scripts/models_gpu.sh"
