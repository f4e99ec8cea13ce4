#!/usr/bin/env bash
# The soak run (docs/reliability.md): random multi-threaded programs checked
# against a sequential reference, ops/s and RSS printed per minute; fails on
# a mismatch or on RSS growth after the warm-up. Not part of CI.
# Usage: scripts/soak.sh [minutes=10] [threads=4]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh
dir=build/soak
cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DEAGERVM_CUDA=OFF \
  -DEAGERVM_BUILD_BENCHMARKS=OFF >/dev/null
cmake --build "$dir" --target eagervm_soak -j "$(nproc)"
exec "$dir/tests/eagervm_soak" "${1:-10}" "${2:-4}"
