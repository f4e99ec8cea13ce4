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

// The kernel F<T>::Run, F a class template, T an element type.
template <template <typename> class F, typename T>
KernelFn KernelOf() {
  return [](KernelContext& c) { return F<T>::Run(c); };
}

// F<T>::Run for the dtype `d`, one of the five dtypes every kernel template
// compiles for (bool, int32, int64, float32, float64); an empty KernelFn for
// the others, which are registered by type (RegisterCpuTyped), so that a
// kernel template is instantiated only for the types it is written for.
template <template <typename> class F>
KernelFn KernelFor(DType d) {
  switch (d) {
    case DType::kBool:
      return KernelOf<F, bool>();
    case DType::kInt32:
      return KernelOf<F, int32_t>();
    case DType::kInt64:
      return KernelOf<F, int64_t>();
    case DType::kFloat32:
      return KernelOf<F, float>();
    case DType::kFloat64:
      return KernelOf<F, double>();
    case DType::kUInt8:
    case DType::kFloat16:
    case DType::kBFloat16:
      break;
  }
  return KernelFn();
}

// Registers F<T> as the CPU kernel of `op` for each dtype in `dtypes` (of
// the five above).
template <template <typename> class F>
void RegisterCpu(internal::OpRegistry& r, const internal::BuiltinOp& op,
                 std::initializer_list<DType> dtypes) {
  for (DType d : dtypes) {
    if (KernelFn k = KernelFor<F>(d)) (void)r.RegisterTypedKernel(op.name, DeviceType::kCPU, d, k);
  }
}
// Registers F<T> as the CPU kernel of `op` for each element type T of Ts
// (uint8_t, Half, BFloat16 among them).
template <template <typename> class F, typename... Ts>
void RegisterCpuTyped(internal::OpRegistry& r, const internal::BuiltinOp& op) {
  ((void)r.RegisterTypedKernel(op.name, DeviceType::kCPU, DTypeOf<Ts>(), KernelOf<F, Ts>()), ...);
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
void RegisterLayerNormCpuKernels(internal::OpRegistry& r);
void RegisterSoftmaxGradCpuKernels(internal::OpRegistry& r);
void RegisterIndexCpuKernels(internal::OpRegistry& r);
void RegisterMatMulTransposedCpuKernels(internal::OpRegistry& r);
void RegisterInplaceCpuKernels(internal::OpRegistry& r);
void RegisterConcatCpuKernels(internal::OpRegistry& r);
void RegisterMinCpuKernels(internal::OpRegistry& r);
void RegisterStridedCpuKernels(internal::OpRegistry& r);
void RegisterOptimCpuKernels(internal::OpRegistry& r);
// Last: float16/bfloat16 kernels over the float32 ones registered before.
void RegisterHalfCpuKernels(internal::OpRegistry& r);

}  // namespace eagervm::kernels

#endif  // EAGERVM_KERNELS_CPU_KERNEL_UTIL_H_
