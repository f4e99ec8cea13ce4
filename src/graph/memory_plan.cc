#include "graph/memory_plan.h"

#include <algorithm>
#include <limits>
#include <map>
#include <numeric>

namespace eagervm::graph {
namespace {

bool Overlap(const Lifetime& a, const Lifetime& b) { return a.first <= b.last && b.first <= a.last; }

size_t LowerBound(absl::Span<const Lifetime> values, size_t alignment) {
  std::map<int, long long> delta;  // node -> change of live bytes
  for (const Lifetime& v : values) {
    delta[v.first] += static_cast<long long>(AlignUp(v.bytes, alignment));
    delta[v.last + 1] -= static_cast<long long>(AlignUp(v.bytes, alignment));
  }
  long long live = 0, peak = 0;
  for (const auto& [node, d] : delta) {
    live += d;
    peak = std::max(peak, live);
  }
  return static_cast<size_t>(peak);
}

}  // namespace

MemoryPlan PlanMemory(absl::Span<const Lifetime> values, size_t alignment) {
  MemoryPlan plan;
  plan.offsets.assign(values.size(), 0);
  plan.lower_bound = LowerBound(values, alignment);
  std::vector<size_t> order(values.size());
  std::iota(order.begin(), order.end(), 0);
  // Largest first; among equals, the earlier one (keeps chains in order).
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return values[a].bytes > values[b].bytes;
  });
  std::vector<size_t> placed;
  struct Range {
    size_t begin, end;
  };
  std::vector<Range> busy;
  for (size_t v : order) {
    const size_t size = AlignUp(values[v].bytes, alignment);
    if (size == 0) continue;
    busy.clear();
    for (size_t p : placed) {
      if (Overlap(values[p], values[v])) {
        busy.push_back({plan.offsets[p], plan.offsets[p] + AlignUp(values[p].bytes, alignment)});
      }
    }
    std::sort(busy.begin(), busy.end(), [](const Range& a, const Range& b) { return a.begin < b.begin; });
    size_t best = std::numeric_limits<size_t>::max(), best_gap = std::numeric_limits<size_t>::max();
    size_t cursor = 0;
    for (const Range& r : busy) {
      if (r.begin > cursor && r.begin - cursor >= size && r.begin - cursor < best_gap) {
        best = cursor;
        best_gap = r.begin - cursor;
      }
      cursor = std::max(cursor, r.end);
    }
    plan.offsets[v] = best != std::numeric_limits<size_t>::max() ? best : cursor;
    plan.bytes = std::max(plan.bytes, plan.offsets[v] + size);
    placed.push_back(v);
  }
  return plan;
}

}  // namespace eagervm::graph
