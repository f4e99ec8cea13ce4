// Memory planning by lifetime intervals: each value (a buffer of the plan)
// is live from the node that first touches it to the node that last does,
// and two values share bytes only if their intervals do not overlap.
// Greedy with best fit (TFLite's and OneFlow's planner): values in some
// order (largest first, ...), each into the smallest gap left by the placed
// values it overlaps; five orders are tried and the smallest arena kept.
#ifndef EAGERVM_GRAPH_MEMORY_PLAN_H_
#define EAGERVM_GRAPH_MEMORY_PLAN_H_

#include <cstddef>
#include <vector>

#include "absl/types/span.h"

namespace eagervm::graph {

struct Lifetime {
  size_t bytes = 0;
  int first = 0;  // node indices, inclusive
  int last = 0;
};

struct MemoryPlan {
  std::vector<size_t> offsets;  // per value, aligned
  size_t bytes = 0;             // the arena: the end of the highest value
  size_t lower_bound = 0;       // peak of the aligned bytes live at one node
};

inline size_t AlignUp(size_t n, size_t alignment) {
  return (n + alignment - 1) / alignment * alignment;
}

// Above this many values, one order only (by first use, as a sweep line):
// the five-order search is quadratic.
inline constexpr size_t kSweepAbove = 2048;

MemoryPlan PlanMemory(absl::Span<const Lifetime> values, size_t alignment);

}  // namespace eagervm::graph

#endif  // EAGERVM_GRAPH_MEMORY_PLAN_H_
