// Block: a piece of a segment (one allocation from the backend) that is either
// handed out or free. Blocks of one segment form an address-ordered list
// (prev/next), so a freed block merges with free neighbours; free blocks also
// sit in one size bin (bin_prev/bin_next). A block with no neighbours spans
// its whole segment.
#ifndef EAGERVM_MEMORY_BLOCK_H_
#define EAGERVM_MEMORY_BLOCK_H_

#include <cstddef>

namespace eagervm::memory {

struct Block {
  char* ptr = nullptr;
  size_t size = 0;
  Block* prev = nullptr;  // address neighbours within the segment
  Block* next = nullptr;
  Block* bin_prev = nullptr;  // free list of its size bin (free blocks only)
  Block* bin_next = nullptr;
  bool allocated = false;
  bool large_pool = false;

  bool whole_segment() const { return prev == nullptr && next == nullptr; }
};

}  // namespace eagervm::memory

#endif  // EAGERVM_MEMORY_BLOCK_H_
