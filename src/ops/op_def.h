// OpDef: one registered op: name, inference, options and kernels.
#ifndef EAGERVM_OPS_OP_DEF_H_
#define EAGERVM_OPS_OP_DEF_H_

#include <cstdint>
#include <string>

#include "eagervm/custom_op.h"

namespace eagervm::internal {

struct OpDef {
  std::string name;
  InferFn infer;  // custom ops; built-ins infer in their ops:: function
  OpOptions options;
  uint64_t mutated_mask = 0;  // bit i: input i is written
  // A kernel serving every dtype of a device (custom ops) ...
  KernelFn device_kernel[kNumDeviceTypes];
  // ... or one per (device, dtype) (built-ins). The typed one wins.
  KernelFn typed_kernel[kNumDeviceTypes][kNumDTypes];

  // nullptr if there is none. Kernels are never removed, so the pointer is stable.
  const KernelFn* FindKernel(DeviceType device, DType dtype) const {
    const KernelFn& t = typed_kernel[static_cast<int>(device)][static_cast<int>(dtype)];
    if (t) return &t;
    const KernelFn& d = device_kernel[static_cast<int>(device)];
    return d ? &d : nullptr;
  }
  bool mutates(int input) const { return (mutated_mask >> input) & 1; }
};

// The OpDef behind a public OpHandle (ops layer only).
struct OpHandleAccess {
  static OpHandle Make(const OpDef* def) { return OpHandle(def); }
  static const OpDef& Def(const OpHandle& h) { return *h.def_; }
};

}  // namespace eagervm::internal

#endif  // EAGERVM_OPS_OP_DEF_H_
