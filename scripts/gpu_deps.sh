#!/usr/bin/env bash
# Run HERE (a project machine with Debian's package lists), not on the GPU
# machine: downloads the Debian packages eagervm builds with into .gpudeps/
# (ignored by git), so scripts/gpu_check.sh can unpack them on a GPU machine
# that has the CUDA toolkit but no abseil/fmt/gtest/benchmark/OpenBLAS and no
# network. Copy the folder to the GPU machine with the repository.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .gpudeps
cd .gpudeps
pkgs=(libabsl-dev libabsl20220623 libfmt-dev libfmt9 libgtest-dev libgmock-dev libbenchmark-dev
      libbenchmark1debian libopenblas-dev libopenblas-pthread-dev libopenblas0-pthread libopenblas0
      libgfortran5 libquadmath0 nlohmann-json3-dev libdlpack-dev)
apt-get download "${pkgs[@]}" >/dev/null
ls -la
du -sh .
