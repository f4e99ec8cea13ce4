// libtorch (Debian libtorch-dev) on bench/vm_bench.cc's workloads. libtorch's
// CPU ops are synchronous: the calling thread runs the kernel, so end-to-end
// time and submit-side time are the same thing. One intra-op thread, as the
// tiny ops would get anyway. Benchmark names mirror vm_bench's ("Torch" for
// "Evm") so tools/bench_table.py can pair them.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <c10/core/InferenceMode.h>

#include <memory>
#include <vector>

#include "common/bench_util.h"

namespace eagervm::bench {
namespace {

constexpr int kChainOps = 20'000;
constexpr int64_t kBig = 1 << 20;
constexpr int kBigOps = 8;

at::Tensor Scalar1(float v) { return at::full({1}, v, at::kFloat); }

// 20k dependent add_ on a 1-float tensor. range(0): 1 = under
// c10::InferenceMode (skips autograd bookkeeping), 0 = default mode.
void BM_TorchChain(benchmark::State& state) {
  std::unique_ptr<c10::InferenceMode> guard;
  if (state.range(0) == 1) guard = std::make_unique<c10::InferenceMode>();
  at::Tensor t = Scalar1(0), one = Scalar1(1);
  OpTimer wall, cpu;
  for (auto _ : state) {
    const int64_t w0 = WallNanos(), c0 = ThreadCpuNanos();
    for (int i = 0; i < kChainOps; ++i) t.add_(one);
    wall.Add(WallNanos() - w0, kChainOps);
    cpu.Add(ThreadCpuNanos() - c0, kChainOps);
  }
  wall.Report(state);
  cpu.Report(state, "cpu_ns_per_op");
}
BENCHMARK(BM_TorchChain)->Arg(0)->Arg(1)->UseRealTime();

// 20k add_ over 64 tensors (libtorch has no streams on CPU).
void BM_TorchIndependent(benchmark::State& state) {
  std::vector<at::Tensor> ts;
  for (int k = 0; k < 64; ++k) ts.push_back(Scalar1(0));
  at::Tensor one = Scalar1(1);
  OpTimer timer;
  for (auto _ : state) {
    const int64_t t0 = WallNanos();
    for (int i = 0; i < kChainOps; ++i) ts[i & 63].add_(one);
    timer.Add(WallNanos() - t0, kChainOps);
  }
  timer.Report(state);
}
BENCHMARK(BM_TorchIndependent)->UseRealTime();

// add_ then item<float>(): both synchronous.
void BM_TorchItem(benchmark::State& state) {
  at::Tensor t = Scalar1(0), one = Scalar1(1);
  OpTimer timer;
  for (auto _ : state) {
    const int64_t t0 = WallNanos();
    t.add_(one);
    float v = t.item<float>();
    timer.Add(WallNanos() - t0, 1);
    benchmark::DoNotOptimize(v);
  }
  timer.Report(state);
}
BENCHMARK(BM_TorchItem)->UseRealTime();

// Dependent chain of N add_: constant per op (nothing is ever in flight).
void BM_TorchInFlight(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  at::Tensor t = Scalar1(0), one = Scalar1(1);
  OpTimer timer;
  for (auto _ : state) {
    const int64_t t0 = WallNanos();
    for (int i = 0; i < n; ++i) t.add_(one);
    timer.Add(WallNanos() - t0, n);
  }
  timer.Report(state);
}
BENCHMARK(BM_TorchInFlight)->RangeMultiplier(4)->Range(1, 16384)->UseRealTime();

// 8 out-of-place 1M-float adds, one thread.
void BM_TorchAdd1M(benchmark::State& state) {
  at::Tensor a = at::full({kBig}, 1.0f, at::kFloat), b = at::full({kBig}, 2.0f, at::kFloat);
  at::Tensor c;
  OpTimer timer;
  for (auto _ : state) {
    const int64_t t0 = WallNanos();
    for (int i = 0; i < kBigOps; ++i) c = a + b;
    timer.Add(WallNanos() - t0, kBigOps);
  }
  timer.Report(state);
}
BENCHMARK(BM_TorchAdd1M)->UseRealTime();

}  // namespace
}  // namespace eagervm::bench

int main(int argc, char** argv) {
  at::set_num_threads(1);
  return eagervm::bench::RunWithRatios(
      argc, argv, {{"add_: default / InferenceMode", "BM_TorchChain/0", "BM_TorchChain/1", ""}});
}
