// Small helpers shared by the executor and device replay.
#ifndef EAGERVM_GRAPH_PLAN_UTIL_H_
#define EAGERVM_GRAPH_PLAN_UTIL_H_

#include <cstdint>

#include "vm/blob_object.h"

namespace eagervm::graph {

// `offset` bytes into `b`'s memory, or null if it has none yet.
inline void* At(const vm::BlobObject* b, int64_t offset) {
  return b->data() == nullptr ? nullptr : static_cast<char*>(b->data()) + offset;
}

}  // namespace eagervm::graph

#endif  // EAGERVM_GRAPH_PLAN_UTIL_H_
