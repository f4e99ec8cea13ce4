#!/usr/bin/env bash
# Builds eagervm and runs the main example.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build/release -j "$(nproc)" --target linear_regression
./build/release/examples/linear_regression "$@"
