// KernelCall: what the VM knows of an op call: a name, the kernel to run,
// which inputs it writes and whether it may run inline on the scheduler. The
// ops layer fills one in from its op definition; the VM knows kernels, not ops.
#ifndef EAGERVM_VM_KERNEL_CALL_H_
#define EAGERVM_VM_KERNEL_CALL_H_

#include <cstdint>

#include "eagervm/kernel.h"

namespace eagervm::vm {

struct KernelCall {
  // Both live as long as the process (the op registry never forgets an op).
  const char* name = nullptr;
  const KernelFn* kernel = nullptr;
  internal::MutatedMask mutated_mask;      // the inputs the kernel writes
  internal::MutatedMask overwritten_mask;  // ... without reading them (a subset)
  bool may_run_inline = false;             // OpOptions::small_runs_inline
  bool pure = false;                       // OpOptions::pure (graph mode may drop or hoist it)
  bool never_blocks = false;            // OpDef::never_blocks: an idle VM may run it on the caller
  internal::MutatedMask gathered_mask;  // OpDef::gathered_mask: inputs not counted in the cost
};

}  // namespace eagervm::vm

#endif  // EAGERVM_VM_KERNEL_CALL_H_
