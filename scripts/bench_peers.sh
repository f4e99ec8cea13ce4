#!/usr/bin/env bash
# The side-by-side benchmark against peers: builds bench/vm_bench and the peer
# benchmarks (libtorch, StarPU, oneTBB flow graph; installed by
# scripts/install_peers.sh), runs them in interleaved rounds, and prints the
# table of ratios (median over rounds; every ratio is within one run of this
# script). Also plots ns/op vs ops in flight.
#
# Usage: scripts/bench_peers.sh [ROUNDS]            (default 3 rounds, ~1 min each)
# Env:   BUILD_DIR   build folder               (default build/bench)
#        BUILD_TYPE  CMAKE_BUILD_TYPE            (default Release)
#        MIN_TIME    seconds per benchmark       (default 0.3)
#        OUT         results folder              (default $BUILD_DIR/results/<date-time>)
#        UPDATE_DOCS=1  also writes docs/images/ns_per_op_vs_inflight.png
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${1:-3}"
dir="${BUILD_DIR:-build/bench}"
min_time="${MIN_TIME:-0.3}"
out="${OUT:-$dir/results/$(date +%Y%m%d-%H%M%S)}"

scripts/install_peers.sh
flags=(-DCMAKE_BUILD_TYPE="${BUILD_TYPE:-Release}" -DEAGERVM_BUILD_BENCHMARKS=ON -DEAGERVM_CUDA=OFF)
# A fresh folder gets only what this script needs; an existing one keeps its tests.
[ -f "$dir/CMakeCache.txt" ] || flags+=(-DEAGERVM_BUILD_TESTS=OFF -DEAGERVM_BUILD_EXAMPLES=OFF)
cmake -S . -B "$dir" -G Ninja "${flags[@]}" >/dev/null
cmake --build "$dir" --target vm_bench torch_peer_bench starpu_peer_bench tbb_peer_bench

mkdir -p "$out"
run() {  # run NAME ROUND [ENV=V...] -- BINARY [ARGS...]
  local name="$1" round="$2"; shift 2
  local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  echo "== round $round: $name" >&2
  env "${envs[@]}" "$@" --benchmark_min_time="$min_time" \
      --benchmark_out="$out/$name.$round.json" --benchmark_out_format=json \
      >"$out/$name.$round.txt" 2>&1 || { echo "$name failed; see $out/$name.$round.txt" >&2; exit 1; }
}
for r in $(seq 1 "$rounds"); do
  run vm_bench "$r" EAGERVM_COMPUTE_ON_SCHEDULER_THREAD=0 -- "$dir/bench/vm_bench"
  run vm_bench_handoff "$r" EAGERVM_INLINE_MAX_BYTES=0 -- "$dir/bench/vm_bench" \
      --benchmark_filter='EvmChain|EvmSubmit|EvmEmptyChain|EvmItem|EvmInFlight'
  run torch_peer_bench "$r" OMP_NUM_THREADS=1 -- "$dir/bench/peers/torch_peer_bench"
  run starpu_peer_bench "$r" STARPU_SILENT=1 -- "$dir/bench/peers/starpu_peer_bench"
  run tbb_peer_bench "$r" -- "$dir/bench/peers/tbb_peer_bench"
done

{
  echo "eagervm vs peers: median of $rounds interleaved rounds, $(date -u +%Y-%m-%dT%H:%MZ)"
  echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load $(cut -d' ' -f1-3 /proc/loadavg)"
  echo
  python3 tools/bench_table.py "$out"
} | tee "$out/table.md"
/usr/bin/python3 tools/plot_inflight.py "$out" "$out/ns_per_op_vs_inflight.png"
if [ "${UPDATE_DOCS:-0}" = 1 ]; then
  mkdir -p docs/images
  cp "$out/ns_per_op_vs_inflight.png" docs/images/ns_per_op_vs_inflight.png
  echo "updated docs/images/ns_per_op_vs_inflight.png"
fi
echo "results: $out"
