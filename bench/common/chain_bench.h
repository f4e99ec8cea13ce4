// Pieces the eagervm benchmarks share: checking a benchmark's status and
// result, a 1-float tensor, and the direct kernel-call chain that is their
// baseline. Header-only, like direct_kernel.h, so bench/common stays free of
// eagervm.
#ifndef EAGERVM_BENCH_COMMON_CHAIN_BENCH_H_
#define EAGERVM_BENCH_COMMON_CHAIN_BENCH_H_

#include "common/bench_util.h"
#include "common/direct_kernel.h"
#include "eagervm/eagervm.h"

namespace eagervm::bench {

inline void Check(benchmark::State& state, const absl::Status& s) {
  if (!s.ok()) state.SkipWithError(s.ToString().c_str());
}

inline Tensor Scalar1(float v) { return Full({1}, v, DType::kFloat32); }

// Checks a chain's value once, outside the timing: a benchmark of wrong
// results measures nothing.
inline void ExpectValue(benchmark::State& state, const Tensor& t, float want) {
  absl::StatusOr<float> v = t.Item<float>();
  if (!v.ok()) return Check(state, v.status());
  if (*v != want) state.SkipWithError("wrong result");
}

// `ops` AddInplace calls on one float through the registered kernel,
// called directly (no VM): the physical limit of a chain of tiny ops.
inline void RunDirectChain(benchmark::State& state, int ops) {
  float t = 0, one = 1;
  DirectKernel k("AddInplace", {1}, {&t, &one}, {});
  OpTimer timer;
  for (auto _ : state) {
    const int64_t t0 = WallNanos();
    for (int i = 0; i < ops; ++i) {
      if (!k.Call()) state.SkipWithError("kernel failed");
    }
    benchmark::DoNotOptimize(t);
    timer.Add(WallNanos() - t0, ops);
  }
  timer.Report(state);
}

}  // namespace eagervm::bench

#endif  // EAGERVM_BENCH_COMMON_CHAIN_BENCH_H_
