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
#include <cstring>

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

// Adam's update of elements [begin, end): the unfused ops' float operations
// in their order.
template <typename T>
inline void AdamElements(T* p, const T* g, T* m, T* v, int64_t begin, int64_t end, T s1, T r2,
                         T beta1, T one_minus_beta1, T beta2, T one_minus_beta2, T eps) {
  for (int64_t i = begin; i < end; ++i) {
    const T gi = g[i];
    T mi = m[i] * beta1;
    mi = mi + one_minus_beta1 * gi;
    const T gg = gi * gi;
    T vi = v[i] * beta2;
    vi = vi + one_minus_beta2 * gg;
    m[i] = mi;
    v[i] = vi;
    const T denom = static_cast<T>(std::sqrt(vi)) * r2 + eps;
    const T update = (mi / denom) * s1;
    p[i] = p[i] - update;
  }
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define EAGERVM_ADAM_AVX2 1
// 32-byte lanes: sqrt(ps|pd) is correctly rounded like std::sqrt, and with
// no FMA (avx2 alone, and no contraction in this folder) every lane rounds
// as the scalar loop does: the same bits.
typedef float AdamF8 __attribute__((vector_size(32)));
typedef double AdamD4 __attribute__((vector_size(32)));
__attribute__((target("avx2"))) inline AdamF8 VecSqrt(AdamF8 x) {
  return __builtin_ia32_sqrtps256(x);
}
__attribute__((target("avx2"))) inline AdamD4 VecSqrt(AdamD4 x) {
  return __builtin_ia32_sqrtpd256(x);
}
template <typename T>
struct AdamLanes {
  using V = AdamF8;
};
template <>
struct AdamLanes<double> {
  using V = AdamD4;
};

// The whole lanes of n elements; returns how many elements it did.
template <typename T>
__attribute__((target("avx2"))) int64_t AdamAvx2(T* p, const T* g, T* m, T* v, int64_t n, T s1,
                                                 T r2, T beta1, T one_minus_beta1, T beta2,
                                                 T one_minus_beta2, T eps) {
  using V = typename AdamLanes<T>::V;
  constexpr int64_t kLanes = sizeof(V) / sizeof(T);
  const int64_t lanes = n / kLanes;
  for (int64_t i = 0; i < lanes; ++i) {
    V pi, gi, mi, vi;
    std::memcpy(&pi, p + i * kLanes, sizeof(V));
    std::memcpy(&gi, g + i * kLanes, sizeof(V));
    std::memcpy(&mi, m + i * kLanes, sizeof(V));
    std::memcpy(&vi, v + i * kLanes, sizeof(V));
    mi = mi * beta1;
    mi = mi + one_minus_beta1 * gi;
    const V gg = gi * gi;
    vi = vi * beta2;
    vi = vi + one_minus_beta2 * gg;
    const V denom = VecSqrt(vi) * r2 + eps;
    const V update = (mi / denom) * s1;
    pi = pi - update;
    std::memcpy(m + i * kLanes, &mi, sizeof(V));
    std::memcpy(v + i * kLanes, &vi, sizeof(V));
    std::memcpy(p + i * kLanes, &pi, sizeof(V));
  }
  return lanes * kLanes;
}
#endif

// scalars: eps. inputs: param (written), grad, m (written), v (written), s1
// and r2 (0-d), {beta1, 1 - beta1, beta2, 1 - beta2}.
template <typename T>
struct AdamStep {
  static absl::Status Run(KernelContext& ctx) {
    T* p = ctx.mutable_input<T>(0);
    const T* g = ctx.input<T>(1);
    T* m = ctx.mutable_input<T>(2);
    T* v = ctx.mutable_input<T>(3);
    const T s1 = ctx.input<T>(4)[0];
    const T r2 = ctx.input<T>(5)[0];
    const T* betas = ctx.input<T>(6);
    const T beta1 = betas[0], one_minus_beta1 = betas[1], beta2 = betas[2],
            one_minus_beta2 = betas[3];
    const T eps = ctx.scalar(0).to<T>();
    const int64_t n = ctx.input_meta(0).shape.numel();
    int64_t done = 0;
#ifdef EAGERVM_ADAM_AVX2
    static const bool avx2 = __builtin_cpu_supports("avx2");
    if (avx2) {
      done =
          AdamAvx2<T>(p, g, m, v, n, s1, r2, beta1, one_minus_beta1, beta2, one_minus_beta2, eps);
    }
#endif
    AdamElements<T>(p, g, m, v, done, n, s1, r2, beta1, one_minus_beta1, beta2, one_minus_beta2,
                    eps);
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
