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
  uint64_t mutated_mask = 0;      // bit i: the kernel writes input i
  uint64_t overwritten_mask = 0;  // bit i: ... without reading it (a subset)
  bool may_run_inline = false;    // OpOptions::small_runs_inline
  bool pure = false;              // OpOptions::pure (graph mode may drop or hoist it)
  bool never_blocks = false;      // OpDef::never_blocks: an idle VM may run it on the caller

  // Inputs at index 64 and up are never written (RegisterOp takes mutated
  // indices in [0, 64)); the test keeps the shift defined for them.
  bool mutates(int input) const { return input < 64 && ((mutated_mask >> input) & 1); }
};

}  // namespace eagervm::vm

#endif  // EAGERVM_VM_KERNEL_CALL_H_
