// WrittenRanges: the byte ranges of a storage that writes have covered, kept
// only while a storage is partly written (a write through a view allocated
// it, and no write has covered all of it since). A read of bytes outside them
// fails with "never written" instead of returning whatever the allocator's
// block held before (another tensor's freed bytes). Rare, so simple: a sorted
// vector of disjoint half-open ranges, merged on insert.
#include "vm/internal_only.h"  // not exported: src/vm/README.md
#ifndef EAGERVM_VM_WRITTEN_RANGES_H_
#define EAGERVM_VM_WRITTEN_RANGES_H_

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

namespace eagervm::vm {

class WrittenRanges {
 public:
  // Adds [begin, end); returns true once [0, size) is covered.
  bool Add(size_t begin, size_t end, size_t size) {
    if (begin >= end) return Covers(0, size);
    std::vector<std::pair<size_t, size_t>> merged;
    merged.reserve(ranges_.size() + 1);
    bool placed = false;
    for (const auto& r : ranges_) {
      if (r.second < begin) {
        merged.push_back(r);
      } else if (end < r.first) {
        if (!placed) merged.emplace_back(begin, end), placed = true;
        merged.push_back(r);
      } else {  // overlaps or touches: absorb it
        begin = std::min(begin, r.first);
        end = std::max(end, r.second);
      }
    }
    if (!placed) merged.emplace_back(begin, end);
    ranges_ = std::move(merged);
    return Covers(0, size);
  }
  // Whether every byte of [begin, end) was written.
  bool Covers(size_t begin, size_t end) const {
    if (begin >= end) return true;
    for (const auto& r : ranges_) {
      if (r.first <= begin && end <= r.second) return true;
    }
    return false;
  }
  // The disjoint ranges written, in order.
  const std::vector<std::pair<size_t, size_t>>& ranges() const { return ranges_; }

 private:
  std::vector<std::pair<size_t, size_t>> ranges_;
};

}  // namespace eagervm::vm

#endif  // EAGERVM_VM_WRITTEN_RANGES_H_
