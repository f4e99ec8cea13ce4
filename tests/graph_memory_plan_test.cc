// The memory planner alone: placements never overlap in bytes while they
// overlap in time, and on random DAG programs the arena stays within 1.25x
// of the lower bound (the peak of live bytes). Also through Graph::stats on
// captured random DAGs.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "eagervm/eagervm.h"
#include "graph/memory_plan.h"

namespace eagervm::graph {
namespace {

void ExpectValid(absl::Span<const Lifetime> v, const MemoryPlan& p, size_t align) {
  for (size_t i = 0; i < v.size(); ++i) {
    EXPECT_EQ(p.offsets[i] % align, 0u);
    EXPECT_LE(p.offsets[i] + v[i].bytes, p.bytes);
    for (size_t j = i + 1; j < v.size(); ++j) {
      const bool time = v[i].first <= v[j].last && v[j].first <= v[i].last;
      const bool space = p.offsets[i] < p.offsets[j] + AlignUp(v[j].bytes, align) &&
                         p.offsets[j] < p.offsets[i] + AlignUp(v[i].bytes, align);
      EXPECT_FALSE(time && space) << "values " << i << " and " << j;
    }
  }
  EXPECT_GE(p.bytes, p.lower_bound);
}

TEST(MemoryPlan, ChainOfEqualValuesNeedsTwo) {
  std::vector<Lifetime> v;
  for (int i = 0; i < 20; ++i) v.push_back({1000, i, i + 1});
  const MemoryPlan p = PlanMemory(v, 64);
  ExpectValid(v, p, 64);
  EXPECT_EQ(p.bytes, 2 * 1024u);
  EXPECT_EQ(p.lower_bound, 2 * 1024u);
}

// Above kSweepAbove values the planner sweeps by first use: still valid,
// still two buffers for a chain, and within 1.25x of the bound on random
// lifetimes.
TEST(MemoryPlan, LargePlansAreSweptAndStayValid) {
  std::vector<Lifetime> chain;
  for (int i = 0; i < static_cast<int>(kSweepAbove) + 500; ++i) chain.push_back({1000, i, i + 1});
  const MemoryPlan p = PlanMemory(chain, 64);
  EXPECT_EQ(p.bytes, 2 * 1024u);
  std::mt19937_64 rng(7);
  std::vector<Lifetime> v;
  for (int i = 0; i < static_cast<int>(kSweepAbove) + 100; ++i) {
    const int first = static_cast<int>(rng() % 4000);
    v.push_back({64 * (1 + rng() % 8), first, first + static_cast<int>(rng() % 20)});
  }
  const MemoryPlan q = PlanMemory(v, 64);
  ExpectValid(v, q, 64);
  EXPECT_LE(q.bytes, q.lower_bound * 5 / 4 + 8 * 64);
}

// Random DAGs as programs produce them: each node defines one value of a
// random size, read by 1-3 later nodes.
std::vector<Lifetime> RandomDag(std::mt19937_64& rng, int nodes) {
  std::vector<Lifetime> v;
  for (int n = 0; n < nodes; ++n) {
    const size_t bytes = 64 * (1 + rng() % 64);
    int last = n;
    const int uses = 1 + static_cast<int>(rng() % 3);
    for (int u = 0; u < uses; ++u) last = std::max(last, n + 1 + static_cast<int>(rng() % 8));
    v.push_back({bytes, n, std::min(last, nodes)});
  }
  return v;
}

TEST(MemoryPlan, RandomDagsWithinAQuarterOfTheLowerBound) {
  std::mt19937_64 rng(11);
  double worst = 0;
  for (int t = 0; t < 200; ++t) {
    const std::vector<Lifetime> v = RandomDag(rng, 20 + static_cast<int>(rng() % 200));
    const MemoryPlan p = PlanMemory(v, 64);
    ExpectValid(v, p, 64);
    worst = std::max(worst, static_cast<double>(p.bytes) / static_cast<double>(p.lower_bound));
  }
  EXPECT_LE(worst, 1.25);
  std::printf("worst arena / lower bound over 200 random DAGs: %.3f\n", worst);
}

// The same through capture: random DAGs of elementwise ops on tensors of
// a few sizes, then the plan's own stats.
TEST(MemoryPlan, CapturedRandomDagsWithinAQuarterOfTheLowerBound) {
  std::mt19937_64 rng(5);
  for (int t = 0; t < 30; ++t) {
    absl::StatusOr<Graph> g = Graph::Capture(
        {TensorMeta{Shape{512}, DType::kFloat32, Device::Cpu()}},
        [&](const std::vector<Tensor>& in) {
          std::vector<Tensor> pool = {in[0]};
          for (int n = 0; n < 60; ++n) {
            const Tensor& a = pool[pool.size() - 1 - rng() % std::min<size_t>(pool.size(), 6)];
            const Tensor& b = pool[pool.size() - 1 - rng() % std::min<size_t>(pool.size(), 6)];
            pool.push_back(rng() % 2 ? ops::Add(a, b) : ops::Mul(ops::Relu(a), b));
            if (pool.size() > 8 && rng() % 3 == 0) pool.erase(pool.begin() + 1);  // drop one
          }
          return std::vector<Tensor>{pool.back()};
        });
    ASSERT_TRUE(g.ok()) << g.status();
    const GraphStats s = g->GetStats();
    EXPECT_LE(s.arena_bytes, s.lower_bound_bytes * 5 / 4) << "dag " << t;
  }
}

}  // namespace
}  // namespace eagervm::graph
