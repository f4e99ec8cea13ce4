#include "memory/free_bins.h"

#include <bit>

namespace eagervm::memory {
namespace {
// Blocks scanned in the request's own bin before moving to larger bins.
constexpr int kMaxScan = 32;
}  // namespace

void FreeBins::Mapping(size_t size, int* fl, int* sl) {
  const int f = std::bit_width(size) - 1;  // size >= 64, so f >= 6 > kSubBits
  *fl = f;
  *sl = static_cast<int>((size >> (f - kSubBits)) & (kSub - 1));
}

void FreeBins::Insert(Block* b) {
  int fl, sl;
  Mapping(b->size, &fl, &sl);
  Block*& head = heads_[fl][sl];
  b->bin_prev = nullptr;
  b->bin_next = head;
  if (head != nullptr) head->bin_prev = b;
  head = b;
  fl_bitmap_ |= uint64_t{1} << fl;
  sl_bitmap_[fl] |= 1u << sl;
  ++count_;
}

void FreeBins::Remove(Block* b) {
  int fl, sl;
  Mapping(b->size, &fl, &sl);
  if (b->bin_prev != nullptr) {
    b->bin_prev->bin_next = b->bin_next;
  } else {
    heads_[fl][sl] = b->bin_next;
  }
  if (b->bin_next != nullptr) b->bin_next->bin_prev = b->bin_prev;
  b->bin_prev = b->bin_next = nullptr;
  if (heads_[fl][sl] == nullptr) {
    sl_bitmap_[fl] &= ~(1u << sl);
    if (sl_bitmap_[fl] == 0) fl_bitmap_ &= ~(uint64_t{1} << fl);
  }
  --count_;
}

Block* FreeBins::FindFit(size_t size) const {
  int fl, sl;
  Mapping(size, &fl, &sl);
  int scanned = 0;
  for (Block* b = heads_[fl][sl]; b != nullptr && scanned < kMaxScan; b = b->bin_next, ++scanned) {
    if (b->size >= size) return b;
  }
  // Every block in a higher bin is large enough.
  uint32_t sl_map = sl + 1 < kSub ? sl_bitmap_[fl] & (~0u << (sl + 1)) : 0;
  if (sl_map == 0) {
    const uint64_t fl_map = fl + 1 < kLevels ? fl_bitmap_ & (~uint64_t{0} << (fl + 1)) : 0;
    if (fl_map == 0) return nullptr;
    fl = std::countr_zero(fl_map);
    sl_map = sl_bitmap_[fl];
  }
  return heads_[fl][std::countr_zero(sl_map)];
}

}  // namespace eagervm::memory
