#!/usr/bin/env bash
# The models suite: builds bench/models and runs it (the MLP on the digits
# data set, in every mode, one alternating run; the transformer language
# model on /usr/share/common-licenses/GPL-3 from base-files; then the
# linear-regression example, eager vs graph). Installs the data set and
# libtorch if missing (python3-sklearn, libtorch-dev).
#
# Usage: scripts/models.sh [mlp_bench flags...]   e.g. --sizes=small --reps=9
# Env:   BUILD_DIR  build folder (default build/bench)
#        TRANSFORMER_FLAGS  transformer_bench flags (default none), e.g.
#                           "--check-steps=300 --reps=5"; SKIP_TRANSFORMER=1 skips it
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${BUILD_DIR:-build/bench}"
scripts/install_deps.sh libtorch-dev python3-sklearn
flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DEAGERVM_BUILD_BENCHMARKS=ON -DEAGERVM_CUDA=OFF)
[ -f "$dir/CMakeCache.txt" ] || flags+=(-DEAGERVM_BUILD_TESTS=OFF)
cmake -S . -B "$dir" -G Ninja "${flags[@]}" >/dev/null
cmake --build "$dir" --target mlp_bench transformer_bench linear_regression
echo "models suite, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
"$dir/bench/models/mlp_bench" "$@"
if [ -z "${SKIP_TRANSFORMER:-}" ]; then
  # shellcheck disable=SC2086
  "$dir/bench/models/transformer_bench" ${TRANSFORMER_FLAGS:-}
fi
echo
echo "== linear regression (examples/linear_regression.cc: 4096 x 8, full batch)"
"$dir/examples/linear_regression" --steps=300 | grep -E "time per step|final loss"
