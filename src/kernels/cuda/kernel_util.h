// Helpers for the CUDA kernels' registration files (.cc: may use abseil).
#ifndef EAGERVM_KERNELS_CUDA_KERNEL_UTIL_H_
#define EAGERVM_KERNELS_CUDA_KERNEL_UTIL_H_

#include <initializer_list>
#include <string_view>

#include "device/cuda/cuda_status.h"
#include "eagervm/custom_op.h"
#include "kernels/cuda/launchers.h"
#include "ops/builtin.h"
#include "ops/dtype_sets.h"
#include "ops/op_registry.h"

namespace eagervm::kernels::cuda_impl {

namespace builtin = ::eagervm::internal::builtin;

using cuda::DT;

inline DT ToDT(DType d) { return static_cast<DT>(static_cast<int>(d)); }
inline cudaStream_t StreamOf(const KernelContext& ctx) {
  return static_cast<cudaStream_t>(ctx.cuda_stream());
}
// The scalar in the form the device kernels of `dtype` read.
inline cuda::ScalarArg ToScalarArg(const Scalar& s, DType dtype) {
  cuda::ScalarArg a;
  if (IsFloating(dtype))
    a.f = s.to<double>();
  else if (dtype == DType::kBool)
    a.i = s.to<bool>() ? 1 : 0;
  else
    a.i = s.to<int64_t>();
  return a;
}
inline absl::Status Launched(cudaError_t e, std::string_view what) {
  return device::cuda::CudaStatus(e, what);
}
// Registers `fn` as the CUDA kernel of `op` for each dtype (a dtype the op
// does not exist for yet is skipped: the op library registers ops).
inline void RegisterCuda(internal::OpRegistry& r, const internal::BuiltinOp& op,
                         std::initializer_list<DType> dtypes, const KernelFn& fn) {
  for (DType d : dtypes) (void)r.RegisterTypedKernel(op.name, DeviceType::kCUDA, d, fn);
}

// The dtype sets (ops/dtype_sets.h), shared with the op checks and the CPU.
using internal::kAllDTypes;
using internal::kFloatDTypes;
using internal::kNumericDTypes;
// uint8 alone: registered, beside kNumericDTypes or kAllDTypes, for the
// integer kernels the CPU also runs on uint8.
inline constexpr std::initializer_list<DType> kUInt8 = {DType::kUInt8};
// kAllDTypes and uint8, float16, bfloat16: the ops that store, move or
// convert elements (Fill, Copy, Cast, Transpose, strided copies).
inline constexpr std::initializer_list<DType> kEvery = {
    DType::kBool,    DType::kInt32, DType::kInt64,   DType::kFloat32,
    DType::kFloat64, DType::kUInt8, DType::kFloat16, DType::kBFloat16};

}  // namespace eagervm::kernels::cuda_impl

#endif  // EAGERVM_KERNELS_CUDA_KERNEL_UTIL_H_
