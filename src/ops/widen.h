// float16 / bfloat16: an op's float32 kernel, run on float32
// copies of the call's 16-bit operands, with its 16-bit results rounded back
// once (to nearest even) when it returns. So every such op computes and
// accumulates in float32 and rounds once per stored element, and has one
// kernel to maintain. The copies are kernel temporaries (AllocateTemp).
#ifndef EAGERVM_OPS_WIDEN_H_
#define EAGERVM_OPS_WIDEN_H_

#include <cstdint>

#include "eagervm/kernel.h"

namespace eagervm::internal {

// Converts n elements between `half` (kFloat16 or kBFloat16) and float32 on
// the device of the kernel call `ctx` (queued on its stream there).
struct HalfConverter {
  absl::Status (*widen)(KernelContext& ctx, DType half, const void* src, float* dst, int64_t n);
  absl::Status (*narrow)(KernelContext& ctx, DType half, const float* src, void* dst, int64_t n);
};

// As WidenedCpuKernel, on the device `convert` converts on (CUDA).
KernelFn WidenedKernel(const KernelFn* f32, DType half, bool round_scalars, HalfConverter convert);

// A CPU kernel for operands of `half` (kFloat16 or kBFloat16) that runs
// `f32`, a float32 kernel that lives forever (a registered one). Operands of
// other dtypes (a bool condition, int64 labels or indices, a bool or int64
// result) pass through unchanged. With `round_scalars`, the call's floating
// scalars are first rounded to `half` (numpy converts a Python scalar to the
// array's dtype: x * 0.1 multiplies by float16(0.1)). Any VM thread, as the
// kernel it wraps.
KernelFn WidenedCpuKernel(const KernelFn* f32, DType half, bool round_scalars);

}  // namespace eagervm::internal

#endif  // EAGERVM_OPS_WIDEN_H_
