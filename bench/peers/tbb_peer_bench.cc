// oneTBB flow graph (Debian libtbb-dev) on a dependent chain of tiny adds.
// A flow graph is built ahead of time with explicit edges: it does no
// dependence inference, so it is a lower bound for "run a known DAG of tiny
// tasks", not a like-for-like eager runtime. Two cases: a prebuilt chain
// replayed (the graph-mode cost) and build + run + destroy per chain (closer
// to what an eager runtime does per op).
#include <oneapi/tbb/flow_graph.h>

#include <memory>
#include <vector>

#include "common/bench_util.h"

namespace eagervm::bench {
namespace {

namespace flow = oneapi::tbb::flow;
constexpr int kNodes = 1000;

using Node = flow::continue_node<flow::continue_msg>;

struct Chain {
  flow::graph g;
  std::vector<std::unique_ptr<Node>> nodes;
  Chain(float* x, const float* one) {
    nodes.reserve(kNodes);
    for (int i = 0; i < kNodes; ++i) {
      nodes.push_back(std::make_unique<Node>(g, [x, one](const flow::continue_msg&) {
        *x += *one;
        return flow::continue_msg();
      }));
      if (i > 0) flow::make_edge(*nodes[i - 1], *nodes[i]);
    }
  }
  void Run() {
    nodes[0]->try_put(flow::continue_msg());
    g.wait_for_all();
  }
};

void BM_TbbPrebuiltChain(benchmark::State& state) {
  float x = 0, one = 1;
  Chain chain(&x, &one);
  OpTimer timer;
  for (auto _ : state) {
    const int64_t t0 = WallNanos();
    chain.Run();
    timer.Add(WallNanos() - t0, kNodes);
  }
  timer.Report(state);
  if (x != static_cast<float>(state.iterations()) * kNodes) state.SkipWithError("wrong result");
}
BENCHMARK(BM_TbbPrebuiltChain)->UseRealTime();

void BM_TbbBuildRunChain(benchmark::State& state) {
  float x = 0, one = 1;
  OpTimer timer;
  for (auto _ : state) {
    const int64_t t0 = WallNanos();
    {
      Chain chain(&x, &one);
      chain.Run();
    }
    timer.Add(WallNanos() - t0, kNodes);
  }
  timer.Report(state);
}
BENCHMARK(BM_TbbBuildRunChain)->UseRealTime();

}  // namespace
}  // namespace eagervm::bench

int main(int argc, char** argv) {
  return eagervm::bench::RunWithRatios(
      argc, argv,
      {{"build+run+destroy / prebuilt replay", "BM_TbbBuildRunChain", "BM_TbbPrebuiltChain", ""}});
}
