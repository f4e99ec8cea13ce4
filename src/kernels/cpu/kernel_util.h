// Helpers for writing CPU kernels and registering them per dtype.
#ifndef EAGERVM_KERNELS_CPU_KERNEL_UTIL_H_
#define EAGERVM_KERNELS_CPU_KERNEL_UTIL_H_

#include <cstdint>
#include <string_view>

#include "eagervm/custom_op.h"
#include "ops/op_registry.h"

namespace eagervm::kernels {

// Calls F<T>::Run(ctx) for the dtype `d`; F is a class template.
template <template <typename> class F>
KernelFn KernelFor(DType d) {
  switch (d) {
    case DType::kBool:
      return [](KernelContext& c) { return F<bool>::Run(c); };
    case DType::kInt32:
      return [](KernelContext& c) { return F<int32_t>::Run(c); };
    case DType::kInt64:
      return [](KernelContext& c) { return F<int64_t>::Run(c); };
    case DType::kFloat32:
      return [](KernelContext& c) { return F<float>::Run(c); };
    case DType::kFloat64:
      return [](KernelContext& c) { return F<double>::Run(c); };
  }
  return nullptr;
}

// Registers F<T> as the CPU kernel of `op` for each dtype in `dtypes`.
template <template <typename> class F>
void RegisterCpu(internal::OpRegistry& r, std::string_view op,
                 std::initializer_list<DType> dtypes) {
  for (DType d : dtypes) (void)r.RegisterTypedKernel(op, DeviceType::kCPU, d, KernelFor<F>(d));
}

inline constexpr std::initializer_list<DType> kNumericTypes = {DType::kInt32, DType::kInt64,
                                                               DType::kFloat32, DType::kFloat64};
inline constexpr std::initializer_list<DType> kFloatTypes = {DType::kFloat32, DType::kFloat64};
inline constexpr std::initializer_list<DType> kAllTypes = {
    DType::kBool, DType::kInt32, DType::kInt64, DType::kFloat32, DType::kFloat64};

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
