#include "graph/memory_plan.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <numeric>
#include <queue>

namespace eagervm::graph {
namespace {

bool Overlap(const Lifetime& a, const Lifetime& b) {
  return a.first <= b.last && b.first <= a.last;
}

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

// Places the values in `order`, each into the best-fitting gap among the
// already placed values whose lifetimes overlap its own.
MemoryPlan PlaceInOrder(absl::Span<const Lifetime> values, absl::Span<const size_t> order,
                        size_t alignment) {
  MemoryPlan plan;
  plan.offsets.assign(values.size(), 0);
  struct Range {
    size_t begin, end;
  };
  std::vector<size_t> placed;
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
    std::sort(busy.begin(), busy.end(),
              [](const Range& a, const Range& b) { return a.begin < b.begin; });
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

// The by-start order (the third of PlanMemory's) as a sweep: the values in
// order of first use; only the placed values still live are candidates, kept
// by offset. O(n log n + n x live) instead of O(n^2).
MemoryPlan PlaceSweep(absl::Span<const Lifetime> values, size_t alignment) {
  MemoryPlan plan;
  plan.offsets.assign(values.size(), 0);
  std::vector<size_t> order(values.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return values[a].first != values[b].first ? values[a].first < values[b].first
                                              : values[a].bytes > values[b].bytes;
  });
  std::map<size_t, size_t> live;          // offset -> end, of live placed values (disjoint)
  using Expiry = std::pair<int, size_t>;  // last use, offset
  std::priority_queue<Expiry, std::vector<Expiry>, std::greater<>> expiry;
  for (size_t v : order) {
    const size_t size = AlignUp(values[v].bytes, alignment);
    if (size == 0) continue;
    while (!expiry.empty() && expiry.top().first < values[v].first) {
      live.erase(expiry.top().second);
      expiry.pop();
    }
    size_t best = std::numeric_limits<size_t>::max(), best_gap = std::numeric_limits<size_t>::max();
    size_t cursor = 0;
    for (const auto& [begin, end] : live) {
      if (begin > cursor && begin - cursor >= size && begin - cursor < best_gap) {
        best = cursor;
        best_gap = begin - cursor;
      }
      cursor = std::max(cursor, end);
    }
    plan.offsets[v] = best != std::numeric_limits<size_t>::max() ? best : cursor;
    plan.bytes = std::max(plan.bytes, plan.offsets[v] + size);
    live.emplace(plan.offsets[v], plan.offsets[v] + size);
    expiry.emplace(values[v].last, plan.offsets[v]);
  }
  return plan;
}

}  // namespace

// Greedy placement is order-sensitive: like OneFlow, try a few orders (by
// size; by size x lifetime; by start; by lifetime; by end) and keep the
// smallest arena. O(orders x n^2) at capture time, nothing at run time;
// above kSweepAbove values only the by-start order, as a sweep.
MemoryPlan PlanMemory(absl::Span<const Lifetime> values, size_t alignment) {
  if (values.size() > kSweepAbove) {  // large plans: linear-ish capture first
    MemoryPlan p = PlaceSweep(values, alignment);
    p.lower_bound = LowerBound(values, alignment);
    return p;
  }
  std::vector<size_t> base(values.size());
  std::iota(base.begin(), base.end(), 0);
  auto length = [&](size_t i) { return static_cast<size_t>(values[i].last - values[i].first + 1); };
  const std::vector<std::function<bool(size_t, size_t)>> orders = {
      [&](size_t a, size_t b) { return values[a].bytes > values[b].bytes; },
      [&](size_t a, size_t b) { return values[a].bytes * length(a) > values[b].bytes * length(b); },
      [&](size_t a, size_t b) {
        return values[a].first != values[b].first ? values[a].first < values[b].first
                                                  : values[a].bytes > values[b].bytes;
      },
      [&](size_t a, size_t b) { return length(a) > length(b); },
      [&](size_t a, size_t b) {
        return values[a].last != values[b].last ? values[a].last > values[b].last
                                                : values[a].bytes > values[b].bytes;
      },
  };
  MemoryPlan best;
  for (size_t k = 0; k < orders.size(); ++k) {
    std::vector<size_t> order = base;
    std::stable_sort(order.begin(), order.end(), orders[k]);
    MemoryPlan p = PlaceInOrder(values, order, alignment);
    if (k == 0 || p.bytes < best.bytes) best = std::move(p);
  }
  best.lower_bound = LowerBound(values, alignment);
  return best;
}

}  // namespace eagervm::graph
