// float16 and bfloat16 on the CPU: each op below runs its float32 kernel on
// float32 copies of the 16-bit operands and rounds its 16-bit results once
// (ops/widen.h), so it computes and accumulates in float32. Data movement
// (Fill, Copy, Cast, Concat, IndexSelect, ...) is registered per type in its
// own file. An op listed nowhere has no 16-bit kernel: calling it is
// InvalidArgument on the calling thread ("Op: no cpu kernel for dtype float16").
#include "kernels/cpu/kernel_util.h"
#include "ops/widen.h"

namespace eagervm::kernels {
namespace {

struct Widened {
  const internal::BuiltinOp* op;
  bool round_scalars;  // the op's floating scalars are operands (x * s): rounded to the dtype
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
    {&builtin::kAbs, false},
    {&builtin::kPow, true},
    {&builtin::kEq, false},
    {&builtin::kNe, false},
    {&builtin::kLt, false},
    {&builtin::kLe, false},
    {&builtin::kGt, false},
    {&builtin::kGe, false},
    {&builtin::kMinimum, false},
    {&builtin::kSum, false},
    {&builtin::kMean, false},
    {&builtin::kMax, false},
    {&builtin::kMin, false},
    {&builtin::kArgmax, false},
    {&builtin::kArgmin, false},
    {&builtin::kSoftmax, false},
    {&builtin::kLogSoftmax, false},
    {&builtin::kCrossEntropy, false},
    {&builtin::kGelu, false},
    {&builtin::kLayerNorm, false},
    {&builtin::kMatMul, false},
    {&builtin::kMatMulTransposed, false},
    {&builtin::kBatchMatMul, false},
    {&builtin::kRandomNormal, false},
    {&builtin::kRandomUniform, false},
};

}  // namespace

void RegisterHalfCpuKernels(internal::OpRegistry& r) {
  for (const Widened& w : kWidened) {
    const KernelFn* f32 = r.MustFind(w.op->name).FindKernel(DeviceType::kCPU, DType::kFloat32);
    if (f32 == nullptr) continue;
    for (DType half : {DType::kFloat16, DType::kBFloat16}) {
      (void)r.RegisterTypedKernel(w.op->name, DeviceType::kCPU, half,
                                  internal::WidenedCpuKernel(f32, half, w.round_scalars));
    }
  }
}

}  // namespace eagervm::kernels
