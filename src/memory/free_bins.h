// FreeBins: free blocks binned by size with two-level segregated fit (TLSF):
// one bin per (power of two, eighth of it), a bitmap of non-empty bins, so
// finding a block is O(1) and inserting/removing is a few pointer writes. No
// heap allocation: the lists run through the blocks themselves.
#ifndef EAGERVM_MEMORY_FREE_BINS_H_
#define EAGERVM_MEMORY_FREE_BINS_H_

#include <cstddef>
#include <cstdint>

#include "memory/block.h"

namespace eagervm::memory {

class FreeBins {
 public:
  static constexpr int kSubBits = 3;
  static constexpr int kSub = 1 << kSubBits;  // bins per power of two
  static constexpr int kLevels = 64;

  // Sizes are >= 64 (multiples of the allocator's alignment).
  void Insert(Block* b);
  void Remove(Block* b);
  // A free block of at least `size` bytes, preferring the smallest size class;
  // nullptr if none. Within the request's own bin it takes the first that fits
  // (recently freed first: warm in cache), so an exact-size block freed
  // earlier is found even though its bin also holds smaller ones.
  Block* FindFit(size_t size) const;
  size_t count() const { return count_; }

  // Calls fn(Block*) on every free block; fn may Remove() the block it gets.
  template <typename F>
  void ForEach(F&& fn) {
    for (int fl = 0; fl < kLevels; ++fl) {
      if (sl_bitmap_[fl] == 0) continue;
      for (int sl = 0; sl < kSub; ++sl) {
        for (Block* b = heads_[fl][sl]; b != nullptr;) {
          Block* next = b->bin_next;
          fn(b);
          b = next;
        }
      }
    }
  }

 private:
  static void Mapping(size_t size, int* fl, int* sl);

  uint64_t fl_bitmap_ = 0;
  uint32_t sl_bitmap_[kLevels] = {};
  Block* heads_[kLevels][kSub] = {};
  size_t count_ = 0;
};

}  // namespace eagervm::memory

#endif  // EAGERVM_MEMORY_FREE_BINS_H_
