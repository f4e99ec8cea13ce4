// The optimizers' fused updates (ops/optim_ops.h), float32 and float64. Each
// element goes through exactly the float operations of the unfused ops, in
// their order, each rounded to T: MulScalar, Add, MulScalarInplace,
// AddInplace and Axpy for Sgd; MulScalarInplace, Axpy, Mul, Sqrt, Div,
// AddScalar and SubInplace for Adam. The scalars are rounded to T as those
// ops round them (Scalar::to<T>; those beyond an instruction's two scalars
// come as a small tensor rounded the same way, FusedHyperparameters). This folder builds without
// FMA contraction (src/CMakeLists.txt), so `a + b * c` stays two roundings here as in Axpy. 16-bit
// dtypes have no fused kernel: the optimizers run their unfused ops, each rounding to 16 bits.
#include <cmath>

#include "kernels/cpu/kernel_util.h"

namespace eagervm::kernels {
namespace {

// scalars: weight_decay, -lr. inputs: param (written), grad.
template <typename T>
struct SgdStep {
  static absl::Status Run(KernelContext& ctx) {
    T* p = ctx.mutable_input<T>(0);
    const T* g = ctx.input<T>(1);
    const int64_t n = ctx.input_meta(0).shape.numel();
    const T neg_lr = ctx.scalar(1).to<T>();
    if (ctx.scalar(0).to<double>() != 0) {
      const T wd = ctx.scalar(0).to<T>();
      for (int64_t i = 0; i < n; ++i) {
        const T d = g[i] + p[i] * wd;
        p[i] = p[i] + neg_lr * d;
      }
    } else {
      for (int64_t i = 0; i < n; ++i) p[i] = p[i] + neg_lr * g[i];
    }
    return absl::OkStatus();
  }
};

// scalars: weight_decay, -lr. inputs: param (written), grad, momentum
// buffer (written), {momentum}.
template <typename T>
struct SgdMomentumStep {
  static absl::Status Run(KernelContext& ctx) {
    T* p = ctx.mutable_input<T>(0);
    const T* g = ctx.input<T>(1);
    T* buf = ctx.mutable_input<T>(2);
    const int64_t n = ctx.input_meta(0).shape.numel();
    const T momentum = ctx.input<T>(3)[0];
    const T neg_lr = ctx.scalar(1).to<T>();
    if (ctx.scalar(0).to<double>() != 0) {
      const T wd = ctx.scalar(0).to<T>();
      for (int64_t i = 0; i < n; ++i) {
        const T d = g[i] + p[i] * wd;
        const T b = buf[i] * momentum + d;
        buf[i] = b;
        p[i] = p[i] + neg_lr * b;
      }
    } else {
      for (int64_t i = 0; i < n; ++i) {
        const T b = buf[i] * momentum + g[i];
        buf[i] = b;
        p[i] = p[i] + neg_lr * b;
      }
    }
    return absl::OkStatus();
  }
};

// scalars: eps. inputs: param (written), grad, m (written), v (written), c1
// and c2 (0-d), {beta1, 1 - beta1, beta2, 1 - beta2}.
template <typename T>
struct AdamStep {
  static absl::Status Run(KernelContext& ctx) {
    T* p = ctx.mutable_input<T>(0);
    const T* g = ctx.input<T>(1);
    T* m = ctx.mutable_input<T>(2);
    T* v = ctx.mutable_input<T>(3);
    const T c1 = ctx.input<T>(4)[0];
    const T c2 = ctx.input<T>(5)[0];
    const T* betas = ctx.input<T>(6);
    const T beta1 = betas[0], one_minus_beta1 = betas[1], beta2 = betas[2],
            one_minus_beta2 = betas[3];
    const T eps = ctx.scalar(0).to<T>();
    const int64_t n = ctx.input_meta(0).shape.numel();
    for (int64_t i = 0; i < n; ++i) {
      const T gi = g[i];
      T mi = m[i] * beta1;
      mi = mi + one_minus_beta1 * gi;
      const T gg = gi * gi;
      T vi = v[i] * beta2;
      vi = vi + one_minus_beta2 * gg;
      m[i] = mi;
      v[i] = vi;
      const T denom = static_cast<T>(std::sqrt(vi)) / c2 + eps;
      const T update = mi / denom / c1;
      p[i] = p[i] - update;
    }
    return absl::OkStatus();
  }
};

}  // namespace

void RegisterOptimCpuKernels(internal::OpRegistry& r) {
  RegisterCpuTyped<SgdStep, float, double>(r, builtin::kSgdStep);
  RegisterCpuTyped<SgdMomentumStep, float, double>(r, builtin::kSgdMomentumStep);
  RegisterCpuTyped<AdamStep, float, double>(r, builtin::kAdamStep);
}

}  // namespace eagervm::kernels
