// The direct kernel-call baseline: calls a registered CPU kernel of eagervm
// exactly as the VM's OpCall instruction does (same std::function, same
// KernelContext), but on the calling thread with no VM in between. The gap
// between this and an op through the VM is the VM's per-op cost.
// Header-only so bench/common stays free of eagervm.
#ifndef EAGERVM_BENCH_COMMON_DIRECT_KERNEL_H_
#define EAGERVM_BENCH_COMMON_DIRECT_KERNEL_H_

#include <cstdlib>
#include <string_view>
#include <vector>

#include "eagervm/eagervm.h"
#include "ops/op_registry.h"
#include "vm/kernel_args.h"

namespace eagervm::bench {

class DirectKernel {
 public:
  // `op`'s float32 CPU kernel; inputs and outputs all of shape `shape`.
  DirectKernel(std::string_view op, Shape shape, std::vector<void*> inputs,
               std::vector<void*> outputs) {
    const internal::OpDef& def = internal::OpRegistry::Get().MustFind(op);
    kernel_ = def.FindKernel(DeviceType::kCPU, DType::kFloat32);
    if (kernel_ == nullptr) std::abort();
    meta_ = TensorMeta{shape, DType::kFloat32, Device::Cpu()};
    for (void* p : inputs) args_.inputs.push_back(internal::Operand{nullptr, &meta_, 0, p});
    for (void* p : outputs) args_.outputs.push_back(internal::Operand{nullptr, &meta_, 0, p});
    args_.mutated_mask = def.mutated_mask;
  }

  DirectKernel(const DirectKernel&) = delete;  // the operands point at meta_
  DirectKernel& operator=(const DirectKernel&) = delete;

  // One kernel call; false if the kernel failed.
  bool Call() {
    KernelContext ctx = internal::KernelContextAccess::Make(&args_);
    return (*kernel_)(ctx).ok();
  }

 private:
  const KernelFn* kernel_;
  TensorMeta meta_;  // every operand's
  internal::KernelArgs args_;
};

}  // namespace eagervm::bench

#endif  // EAGERVM_BENCH_COMMON_DIRECT_KERNEL_H_
