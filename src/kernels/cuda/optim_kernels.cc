// Registration of the CUDA kernels of the optimizers' fused updates:
// SgdStep, SgdMomentumStep and AdamStep, float32 and float64, as on the CPU
// (kernels/cpu/optim_kernels.cc; 16-bit params run the unfused ops). The
// host scalars are rounded to the dtype here exactly as the CPU kernels
// round them (Scalar::to<T>); the tensor hyperparameters (momentum, s1, r2,
// betas) stay on the device and the kernels read them there.
#include "kernels/cuda/kernel_util.h"
#include "kernels/cuda/optim_launchers.h"

namespace eagervm::kernels::cuda_impl {
namespace {

// The scalar rounded to `dtype` (float32 or float64), held in a double.
double Rounded(const Scalar& s, DType dtype) {
  return dtype == DType::kFloat32 ? static_cast<double>(s.to<float>()) : s.to<double>();
}

// scalars: weight_decay, -lr. inputs: param (written), grad.
absl::Status SgdStep(KernelContext& ctx) {
  const TensorMeta& pm = ctx.input_meta(0);
  return Launched(
      cuda::LaunchSgdStep(ToDT(pm.dtype), ctx.raw_mutable_input(0), ctx.raw_input(1),
                          ctx.scalar(0).to<double>() != 0, Rounded(ctx.scalar(0), pm.dtype),
                          Rounded(ctx.scalar(1), pm.dtype), pm.shape.numel(), StreamOf(ctx)),
      "SgdStep kernel launch");
}

// scalars: weight_decay, -lr. inputs: param (written), grad, momentum
// buffer (written), {momentum}.
absl::Status SgdMomentumStep(KernelContext& ctx) {
  const TensorMeta& pm = ctx.input_meta(0);
  return Launched(
      cuda::LaunchSgdMomentumStep(
          ToDT(pm.dtype), ctx.raw_mutable_input(0), ctx.raw_input(1), ctx.raw_mutable_input(2),
          ctx.raw_input(3), ctx.scalar(0).to<double>() != 0, Rounded(ctx.scalar(0), pm.dtype),
          Rounded(ctx.scalar(1), pm.dtype), pm.shape.numel(), StreamOf(ctx)),
      "SgdMomentumStep kernel launch");
}

// scalars: eps. inputs: param (written), grad, m (written), v (written), s1
// and r2 (0-d), {beta1, 1 - beta1, beta2, 1 - beta2}.
absl::Status AdamStep(KernelContext& ctx) {
  const TensorMeta& pm = ctx.input_meta(0);
  return Launched(
      cuda::LaunchAdamStep(ToDT(pm.dtype), ctx.raw_mutable_input(0), ctx.raw_input(1),
                           ctx.raw_mutable_input(2), ctx.raw_mutable_input(3), ctx.raw_input(4),
                           ctx.raw_input(5), ctx.raw_input(6), Rounded(ctx.scalar(0), pm.dtype),
                           pm.shape.numel(), StreamOf(ctx)),
      "AdamStep kernel launch");
}

}  // namespace

void RegisterOptimKernels(internal::OpRegistry& r) {
  RegisterCuda(r, builtin::kSgdStep, kFloatDTypes, SgdStep);
  RegisterCuda(r, builtin::kSgdMomentumStep, kFloatDTypes, SgdMomentumStep);
  RegisterCuda(r, builtin::kAdamStep, kFloatDTypes, AdamStep);
}

}  // namespace eagervm::kernels::cuda_impl
