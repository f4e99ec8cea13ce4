// Graph mode against eager execution and a direct kernel loop, in one run:
// a 1000-node chain of 1-float AddInplace (graph Run + Sync, per node), the
// same chain eagerly, the same 1000 kernel calls in a loop, and a 1-node
// plan against one eager op (each + Sync). oneTBB's prebuilt flow-graph
// chain, the peer, runs in its own process (bench/peers/tbb_peer_bench.cc,
// scripts/bench_peers.sh): peers never share a process with eagervm.
#include <string>
#include <vector>

#include "common/chain_bench.h"
#include "eagervm/eagervm.h"

namespace eagervm::bench {
namespace {

constexpr int kNodes = 1000;

const TensorMeta kOneFloat{Shape{1}, DType::kFloat32, Device::Cpu()};

// Resets the chain's value outside the timing (a float sum of 1s stops
// growing at 2^24).
void Restart(benchmark::State& state, const Tensor& t) {
  Check(state, ops::FillInplace(t, 0.0));
  Check(state, Sync());
}

Graph ChainGraph(const Tensor& one, int nodes) {
  absl::StatusOr<Graph> g = Graph::Capture({kOneFloat}, [&](const std::vector<Tensor>& in) {
    for (int i = 0; i < nodes; ++i) (void)ops::AddInplace(in[0], one);
    return std::vector<Tensor>{};
  });
  if (!g.ok()) std::abort();
  return *std::move(g);
}

// Graph::Run of the captured chain, then Sync: time per node.
void BM_GraphChain(benchmark::State& state) {
  Tensor t = Scalar1(0), one = Scalar1(1);
  const Graph g = ChainGraph(one, kNodes);
  OpTimer timer;
  for (auto _ : state) {
    Restart(state, t);
    const int64_t t0 = WallNanos();
    const Tensor in[] = {t};
    Check(state, g.Run(in).status());
    Check(state, Sync());
    timer.Add(WallNanos() - t0, kNodes);
  }
  timer.Report(state);
  ExpectValue(state, t, kNodes);
}
BENCHMARK(BM_GraphChain)->UseRealTime();

// The same 1000 ops eagerly, then Sync.
void BM_EagerChain(benchmark::State& state) {
  Tensor t = Scalar1(0), one = Scalar1(1);
  OpTimer timer;
  for (auto _ : state) {
    Restart(state, t);
    const int64_t t0 = WallNanos();
    for (int i = 0; i < kNodes; ++i) Check(state, ops::AddInplace(t, one));
    Check(state, Sync());
    timer.Add(WallNanos() - t0, kNodes);
  }
  timer.Report(state);
  ExpectValue(state, t, kNodes);
}
BENCHMARK(BM_EagerChain)->UseRealTime();

// The 1000 kernel calls in a direct loop: the physical limit.
void BM_DirectChain(benchmark::State& state) { RunDirectChain(state, kNodes); }
BENCHMARK(BM_DirectChain)->UseRealTime();

// A 1-node plan Run + Sync: the fixed cost of a launch.
void BM_GraphOneNode(benchmark::State& state) {
  Tensor t = Scalar1(0), one = Scalar1(1);
  const Graph g = ChainGraph(one, 1);
  OpTimer timer;
  for (auto _ : state) {
    const int64_t t0 = WallNanos();
    const Tensor in[] = {t};
    Check(state, g.Run(in).status());
    Check(state, Sync());
    timer.Add(WallNanos() - t0, 1);
  }
  timer.Report(state);
  ExpectValue(state, t, static_cast<float>(state.iterations()));
}
BENCHMARK(BM_GraphOneNode)->UseRealTime();

// One eager op + Sync.
void BM_EagerOneOp(benchmark::State& state) {
  Tensor t = Scalar1(0), one = Scalar1(1);
  OpTimer timer;
  for (auto _ : state) {
    const int64_t t0 = WallNanos();
    Check(state, ops::AddInplace(t, one));
    Check(state, Sync());
    timer.Add(WallNanos() - t0, 1);
  }
  timer.Report(state);
  ExpectValue(state, t, static_cast<float>(state.iterations()));
}
BENCHMARK(BM_EagerOneOp)->UseRealTime();

// An elementwise chain over tensors larger than the caches (a bias row,
// scale, shift, Relu: y = relu((x + bias) * 0.5 - 0.25) * 2, on [rows,
// 1024] float32), as one graph: range(0) rows, range(1) 1 = fused
// (GraphOptions::fuse), 0 = the same plan unfused. Per Run + Sync.
void BM_GraphElementwiseChain(benchmark::State& state) {
  const int64_t rows = state.range(0);
  const Shape shape{rows, 1024};
  Tensor x = ops::RandomUniform(shape, DType::kFloat32, Device::Cpu(), 1);
  Tensor bias = ops::RandomUniform({1024}, DType::kFloat32, Device::Cpu(), 2);
  GraphOptions options;
  options.fuse = state.range(1) != 0;
  absl::StatusOr<Graph> g = Graph::Capture(
      {TensorMeta{shape, DType::kFloat32, Device::Cpu()}},
      [&](const std::vector<Tensor>& in) {
        Tensor y = ops::Relu(ops::SubScalar(ops::MulScalar(ops::Add(in[0], bias), 0.5), 0.25));
        return std::vector<Tensor>{ops::MulScalar(y, 2.0)};
      },
      options);
  if (!g.ok()) {
    state.SkipWithError(std::string(g.status().message()).c_str());
    return;
  }
  OpTimer timer;
  for (auto _ : state) {
    const int64_t t0 = WallNanos();
    const Tensor in[] = {x};
    absl::StatusOr<std::vector<Tensor>> out = g->Run(in);
    Check(state, out.status());
    Check(state, (*out)[0].Wait());
    timer.Add(WallNanos() - t0, 1);
  }
  timer.Report(state);
  state.counters["fused_ops"] = static_cast<double>(g->GetStats().fused_ops);
}
BENCHMARK(BM_GraphElementwiseChain)->ArgsProduct({{64, 1024}, {1, 0}})->UseRealTime();

}  // namespace
}  // namespace eagervm::bench

int main(int argc, char** argv) {
  using eagervm::bench::Ratio;
  return eagervm::bench::RunWithRatios(
      argc, argv,
      {
          {"1000-node chain: graph replay / eager, per node", "BM_GraphChain", "BM_EagerChain",
           "<= 0.1x"},
          {"1000-node chain: graph replay / direct kernel loop", "BM_GraphChain", "BM_DirectChain",
           ""},
          {"1000-node chain: eager / direct kernel loop", "BM_EagerChain", "BM_DirectChain", ""},
          {"1-node plan Run+Sync / one eager op + Sync", "BM_GraphOneNode", "BM_EagerOneOp",
           "<= 2x"},
          {"5-op chain on [64,1024]: fused / unfused", "BM_GraphElementwiseChain/64/1",
           "BM_GraphElementwiseChain/64/0", ""},
          {"5-op chain on [1024,1024]: fused / unfused", "BM_GraphElementwiseChain/1024/1",
           "BM_GraphElementwiseChain/1024/0", ""},
      });
}
