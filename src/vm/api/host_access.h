// Blocking host access to a tensor's storage: the path of Wait, Item,
// ToVector and CopyToHost. The read is queued on the stream that last wrote
// the storage (no cross-stream edge in the common case) and the user thread
// spins briefly, then parks, until the VM thread hands the result over.
#include "vm/internal_only.h"  // not exported: src/vm/README.md
#ifndef EAGERVM_VM_API_HOST_ACCESS_H_
#define EAGERVM_VM_API_HOST_ACCESS_H_

#include <cstddef>

#include "absl/status/status.h"
#include "eagervm/tensor.h"

namespace eagervm::internal {

// Blocks until `t` is computed; copies `bytes` of it to `dst` when dst is not
// null. Returns the tensor's rejection or runtime error (marking it reported).
absl::Status ReadToHost(const Tensor& t, void* dst, size_t bytes, const char* what);

}  // namespace eagervm::internal

#endif  // EAGERVM_VM_API_HOST_ACCESS_H_
