// KernelArgs: the operands of an OpCall instruction, as its kernel sees them
// through KernelContext. Stored inline in the instruction (no heap per op for
// up to 3 inputs and 2 outputs).
#ifndef EAGERVM_VM_KERNEL_ARGS_H_
#define EAGERVM_VM_KERNEL_ARGS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "base/small_vector.h"
#include "eagervm/kernel.h"
// Exported (src/vm/README.md): what it needs of vm, whatever the includer.
#pragma push_macro("EAGERVM_VM_EXPORTING")
#undef EAGERVM_VM_EXPORTING
#define EAGERVM_VM_EXPORTING 1
#include "vm/blob_object.h"
#include "vm/streams/vm_stream.h"  // KernelContext's stream (ops/kernel_context.cc)
#pragma pop_macro("EAGERVM_VM_EXPORTING")

namespace eagervm::vm {
class VmStream;
}

namespace eagervm::internal {

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

  // Operand (eagervm/custom_op.h) is public only so that KernelContext can
  // read it inline.
  static constexpr uint32_t kInlineInputs = 3, kInlineOutputs = 2, kInlineMetas = 2;
  base::SmallVector<Operand, kInlineInputs> inputs;
  base::SmallVector<Operand, kInlineOutputs> outputs;
  // The metas of operands that are not their storage's whole extent (views,
  // graph values), which Operand::meta points at: StableMeta() reserves room
  // for every operand before the first copy, so a pointer, once taken, never
  // moves while the arguments live.
  base::SmallVector<TensorMeta, kInlineMetas> metas;
  Scalar scalars[kMaxScalars];
  std::shared_ptr<const Attrs> attrs;  // null when there are none
  MutatedMask mutated_mask;
  vm::VmStream* stream = nullptr;
  struct Temp {
    void* ptr;
    size_t bytes;
  };
  base::SmallVector<Temp, 1> temps;   // freed after the kernel
  TempRegion* temp_region = nullptr;  // graph plans only
  // Storages read before any write to them was submitted (an error the
  // kernel reports: "never written"): nothing else keeps them alive.
  std::vector<std::shared_ptr<vm::BlobObject>> keep_alive;

  // True if, the kernel's temporaries aside, destroying these arguments
  // would do nothing: no heap block, no reference held
  // (InstructionPolicy::destructor_is_noop).
  bool HoldsNothingButTemps() const {
    return attrs == nullptr && keep_alive.empty() && inputs.is_inline() && outputs.is_inline() &&
           metas.is_inline();
  }
};

// A meta for an operand of `args` (which has `operands` in all) that lives as
// long as `args`: a copy in args->metas.
inline const TensorMeta* StableMeta(KernelArgs* args, const TensorMeta& meta, uint32_t operands) {
  if (args->metas.empty()) args->metas.reserve(operands);
  args->metas.push_back(meta);
  return &args->metas.back();
}

// Input `i`'s shape as the op's caller passed it, for error messages: a
// strided view's own shape (base/view_attrs.h), not the span its operand
// covers.
std::string InputShapeText(const KernelArgs& args, size_t i);

// The instruction behind a KernelContext, for the runtime and its backends
// (a backend's accessor, e.g. the CUDA cuBLAS handle, finds its stream here).
struct KernelContextAccess {
  static KernelArgs& Args(const KernelContext& ctx) { return *ctx.args_; }
  // The context a kernel gets for `args` (inline: vm and graph run kernels
  // and may not depend on the ops layer).
  static KernelContext Make(KernelArgs* args) {
    return KernelContext(args, args->inputs.data(), static_cast<int>(args->inputs.size()),
                         args->outputs.data(), static_cast<int>(args->outputs.size()),
                         args->mutated_mask);
  }
};

}  // namespace eagervm::internal

#endif  // EAGERVM_VM_KERNEL_ARGS_H_
