// float16 and bfloat16 on CUDA: each op below runs its float32 CUDA kernel on
// float32 copies of the 16-bit operands (converted by the Cast kernel on the
// call's stream) and rounds its 16-bit results once, to nearest even
// (ops/widen.h): compute and accumulation in float32. Fill, Copy, Cast,
// Transpose and the strided copies take every dtype natively. Other ops have
// no 16-bit CUDA kernel: InvalidArgument at the call.
#include "kernels/cuda/kernel_util.h"
#include "ops/widen.h"

namespace eagervm::kernels::cuda_impl {
namespace {

absl::Status WidenOnDevice(KernelContext& ctx, DType half, const void* src, float* dst, int64_t n) {
  return Launched(cuda::LaunchCast(ToDT(half), cuda::DT::kFloat32, dst, src, n, StreamOf(ctx)),
                  "16-bit to float32 conversion");
}
absl::Status NarrowOnDevice(KernelContext& ctx, DType half, const float* src, void* dst,
                            int64_t n) {
  return Launched(cuda::LaunchCast(cuda::DT::kFloat32, ToDT(half), dst, src, n, StreamOf(ctx)),
                  "float32 to 16-bit conversion");
}

struct Widened {
  const internal::BuiltinOp* op;
  bool round_scalars;
};

constexpr Widened kWidened[] = {
    {&builtin::kAdd, false},
    {&builtin::kSub, false},
    {&builtin::kMul, false},
    {&builtin::kDiv, false},
    {&builtin::kMaximum, false},
    {&builtin::kAddInplace, false},
    {&builtin::kAddScalar, true},
    {&builtin::kSubScalar, true},
    {&builtin::kMulScalar, true},
    {&builtin::kDivScalar, true},
    {&builtin::kMulScalarInplace, true},
    {&builtin::kSubInplace, false},
    {&builtin::kAxpy, true},
    {&builtin::kDivScalarInplace, true},
    {&builtin::kRelu, false},
    {&builtin::kNeg, false},
    {&builtin::kExp, false},
    {&builtin::kLog, false},
    {&builtin::kSigmoid, false},
    {&builtin::kTanh, false},
    {&builtin::kSqrt, false},
    {&builtin::kSum, false},
    {&builtin::kMean, false},
    {&builtin::kMax, false},
    {&builtin::kMin, false},
    {&builtin::kArgmax, false},
    {&builtin::kArgmin, false},
    {&builtin::kEq, false},
    {&builtin::kNe, false},
    {&builtin::kLt, false},
    {&builtin::kLe, false},
    {&builtin::kGt, false},
    {&builtin::kGe, false},
    {&builtin::kMinimum, false},
    {&builtin::kWhere, false},
    {&builtin::kAbs, false},
    {&builtin::kPow, true},
    {&builtin::kSoftmax, false},
    {&builtin::kLogSoftmax, false},
    {&builtin::kGelu, false},
    {&builtin::kLayerNorm, false},
    {&builtin::kMatMul, false},
    {&builtin::kMatMulTransposed, false},
    {&builtin::kBatchMatMul, false},
    {&builtin::kRandomNormal, false},
    {&builtin::kRandomUniform, false},
};

}  // namespace

void RegisterHalfKernels(internal::OpRegistry& r) {
  const internal::HalfConverter convert{WidenOnDevice, NarrowOnDevice};
  for (const Widened& w : kWidened) {
    const KernelFn* f32 = r.MustFind(w.op->name).FindKernel(DeviceType::kCUDA, DType::kFloat32);
    if (f32 == nullptr) continue;
    for (DType half : {DType::kFloat16, DType::kBFloat16}) {
      (void)r.RegisterTypedKernel(w.op->name, DeviceType::kCUDA, half,
                                  internal::WidenedKernel(f32, half, w.round_scalars, convert));
    }
  }
}

}  // namespace eagervm::kernels::cuda_impl
