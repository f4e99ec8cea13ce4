// Graph mode's capture cost and the per-run cost of a training-like step:
// Capture of an N-node chain of out-of-place ops (N = 1k, 4k,
// 16k; the passes are linear), and Run of a step that reads an input and
// updates P parameters in place (P = 1, 16, 64), 32 runs queued per Sync.
//
//   build/rel/bench/graph_capture_bench --benchmark_repetitions=3
#include <vector>

#include "benchmark/benchmark.h"
#include "eagervm/eagervm.h"

namespace eagervm::bench {
namespace {

const TensorMeta kVec{Shape{8}, DType::kFloat32, Device::Cpu()};

void BM_GraphCapture(benchmark::State& state) {
  const int nodes = static_cast<int>(state.range(0));
  auto fn = [&](const std::vector<Tensor>& in) {
    Tensor t = in[0];
    for (int i = 0; i < nodes; ++i) t = ops::AddScalar(t, 1.0);
    return std::vector<Tensor>{t};
  };
  for (auto _ : state) {
    absl::StatusOr<Graph> g = Graph::Capture({kVec}, fn);
    if (!g.ok()) state.SkipWithError(std::string(g.status().message()).c_str());
    benchmark::DoNotOptimize(g);
  }
  state.counters["nodes"] = nodes;
}
BENCHMARK(BM_GraphCapture)
    ->Arg(1000)
    ->Arg(4000)
    ->Arg(16000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_GraphStep(benchmark::State& state) {
  const int params = static_cast<int>(state.range(0));
  std::vector<Tensor> p;
  for (int i = 0; i < params; ++i) p.push_back(Full({8}, 0.5, DType::kFloat32));
  absl::StatusOr<Graph> g = Graph::Capture({kVec}, [&](const std::vector<Tensor>& in) {
    Tensor loss = ops::Sum(ops::Mul(in[0], p[0]));
    for (int i = 1; i < params; ++i) loss = ops::Add(loss, ops::Sum(ops::Mul(in[0], p[i])));
    for (const Tensor& w : p) (void)ops::AddInplace(w, ops::MulScalar(in[0], -1e-6));
    return std::vector<Tensor>{loss};
  });
  if (!g.ok()) {
    state.SkipWithError(std::string(g.status().message()).c_str());
    return;
  }
  const Tensor x = Full({8}, 1.0, DType::kFloat32);
  constexpr int kQueued = 32;
  for (auto _ : state) {
    for (int r = 0; r < kQueued; ++r) benchmark::DoNotOptimize(g->Run({x}));
    if (!Sync().ok()) state.SkipWithError("Sync failed");
  }
  state.SetItemsProcessed(state.iterations() * kQueued);
  state.counters["segments"] = static_cast<double>(g->GetStats().segments);
  state.counters["run_ns"] =
      benchmark::Counter(static_cast<double>(state.iterations() * kQueued),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_GraphStep)->Arg(1)->Arg(16)->Arg(64)->UseRealTime();

}  // namespace
}  // namespace eagervm::bench

BENCHMARK_MAIN();
