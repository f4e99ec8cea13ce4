// Helpers for writing CPU kernels and registering them per dtype.
#ifndef EAGERVM_KERNELS_CPU_KERNEL_UTIL_H_
#define EAGERVM_KERNELS_CPU_KERNEL_UTIL_H_

#include <cstdint>
#include <string_view>

#include "eagervm/custom_op.h"
#include "ops/builtin.h"
#include "ops/dtype_sets.h"
#include "ops/op_registry.h"

namespace eagervm::kernels {

namespace builtin = ::eagervm::internal::builtin;

// Calls F<T>::Run(ctx) for the dtype `d`; F is a class template.
template <template <typename> class F>
KernelFn KernelFor(DType d) {
  return VisitDType(d, [](auto zero) -> KernelFn {
    using T = decltype(zero);
    return [](KernelContext& c) { return F<T>::Run(c); };
  });
}

// Registers F<T> as the CPU kernel of `op` for each dtype in `dtypes`.
template <template <typename> class F>
void RegisterCpu(internal::OpRegistry& r, const internal::BuiltinOp& op,
                 std::initializer_list<DType> dtypes) {
  for (DType d : dtypes) (void)r.RegisterTypedKernel(op.name, DeviceType::kCPU, d, KernelFor<F>(d));
}

// The dtype sets (ops/dtype_sets.h), shared with the op checks and CUDA.
using internal::kAllDTypes;
using internal::kFloatDTypes;
using internal::kNumericDTypes;

// One per kernel file (basic_kernels.cc, ...): its kernels. Only
// RegisterCpuKernels (kernels/cpu/register.h) calls them.
void RegisterBasicCpuKernels(internal::OpRegistry& r);
void RegisterBinaryCpuKernels(internal::OpRegistry& r);
void RegisterUnaryCpuKernels(internal::OpRegistry& r);
void RegisterReduceCpuKernels(internal::OpRegistry& r);
void RegisterMatMulCpuKernels(internal::OpRegistry& r);
void RegisterCastCpuKernels(internal::OpRegistry& r);
void RegisterRandomCpuKernels(internal::OpRegistry& r);
void RegisterCompareCpuKernels(internal::OpRegistry& r);
void RegisterSoftmaxCpuKernels(internal::OpRegistry& r);
void RegisterNnCpuKernels(internal::OpRegistry& r);
void RegisterIndexCpuKernels(internal::OpRegistry& r);
void RegisterMatMulTransposedCpuKernels(internal::OpRegistry& r);
void RegisterInplaceCpuKernels(internal::OpRegistry& r);
void RegisterConcatCpuKernels(internal::OpRegistry& r);
void RegisterMinCpuKernels(internal::OpRegistry& r);
void RegisterStridedCpuKernels(internal::OpRegistry& r);

}  // namespace eagervm::kernels

#endif  // EAGERVM_KERNELS_CPU_KERNEL_UTIL_H_
