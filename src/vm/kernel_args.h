// KernelArgs: the operands of an OpCall instruction, as its kernel sees them
// through KernelContext. Stored inline in the instruction (no heap per op for
// up to 3 inputs and 2 outputs).
#ifndef EAGERVM_VM_KERNEL_ARGS_H_
#define EAGERVM_VM_KERNEL_ARGS_H_

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "eagervm/custom_op.h"
#include "vm/blob_object.h"

namespace eagervm::vm {
class VmStream;
}

namespace eagervm::internal {

// `blob` is not owned: the storage outlives every instruction that names it
// because its release instruction is ordered after each of them (the WAR/WAW
// rule on the storage; docs/architecture.md, "Who keeps a storage alive").
// A storage no write was ever submitted to has no release instruction; an op
// reading one keeps it alive through KernelArgs::keep_alive instead.
struct Operand {
  Operand() = default;
  // For emplace_back: clang 14 has no parenthesised aggregate initialisation.
  Operand(vm::BlobObject* b, const TensorMeta& m, int64_t off, void* d)
      : blob(b), meta(m), offset(off), data(d) {}

  vm::BlobObject* blob = nullptr;
  TensorMeta meta;
  int64_t offset = 0;    // bytes from the start of the storage (views)
  void* data = nullptr;  // resolved just before the kernel runs
};

// Kernel temporaries from memory a graph plan reserved (its arena) instead of
// the stream's allocator. A kernel's requests are bump-allocated from `base`
// while they fit; `requested` counts what it asked for (the plan sizes the
// region from it after its first run). Reset by the plan before each kernel.
struct TempRegion {
  char* base = nullptr;  // null: nothing reserved yet; count only
  size_t size = 0;
  size_t used = 0;
  size_t requested = 0;
  size_t alignment = 64;
  // While a device graph is recorded: no allocator fallback (a block from
  // the allocator would be baked into the graph and then reused).
  bool strict = false;
};

struct KernelArgs {
  static constexpr int kMaxScalars = 2;

  absl::InlinedVector<Operand, 3> inputs;
  absl::InlinedVector<Operand, 2> outputs;
  Scalar scalars[kMaxScalars];
  std::shared_ptr<const Attrs> attrs;  // null when there are none
  uint64_t mutated_mask = 0;
  vm::VmStream* stream = nullptr;
  absl::InlinedVector<std::pair<void*, size_t>, 1> temps;  // freed after the kernel
  TempRegion* temp_region = nullptr;                       // graph plans only
  // Storages read before any write to them was submitted (an error the
  // kernel reports: "never written"): nothing else keeps them alive.
  std::vector<std::shared_ptr<vm::BlobObject>> keep_alive;
};

// The instruction behind a KernelContext, for the runtime and its backends
// (a backend's accessor, e.g. the CUDA cuBLAS handle, finds its stream here).
struct KernelContextAccess {
  static KernelArgs& Args(const KernelContext& ctx) { return *ctx.args_; }
};

}  // namespace eagervm::internal

#endif  // EAGERVM_VM_KERNEL_ARGS_H_
