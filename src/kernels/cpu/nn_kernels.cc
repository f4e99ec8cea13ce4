// Gelu, and the backward kernels of Gelu and Relu (LayerNorm:
// layer_norm_kernels.cc).
#include <cmath>
#include <type_traits>

#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/vec_map_row.h"
#include "kernels/cpu/vec_normal_cdf.h"

namespace eagervm::kernels {
namespace {

// float32 erf form: x Phi(x), Phi by vec_normal_cdf.h (vec_map_row.h: 16
// lanes under AVX-512F, 8 under AVX2; the same bits at every width and for
// the tail).
struct GeluErfLanes {
  template <typename V>
  static void Lanes(V* v) {
    V phi = *v;
    vec::NormalCdfInPlace(&phi);
    *v = *v * phi;
  }
};

// 0.5 x (1 + erf(x / sqrt 2)) (float32: x Phi(x), above), or the tanh approximation
// 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))); scalar(0) picks it.
template <typename T>
struct Gelu {
  static absl::Status Run(KernelContext& ctx) {
    if constexpr (std::is_floating_point_v<T>) {
      const T* x = ctx.input<T>(0);
      T* out = ctx.output<T>(0);
      const int64_t n = ctx.output_meta(0).shape.numel();
      if (ctx.scalar(0).to<bool>()) {
        const T k = static_cast<T>(0.7978845608028654);  // sqrt(2 / pi)
        for (int64_t i = 0; i < n; ++i) {
          const T v = x[i];
          out[i] = T(0.5) * v * (T(1) + std::tanh(k * (v + T(0.044715) * v * v * v)));
        }
      } else if constexpr (std::is_same_v<T, float>) {
        vec::MapRow<GeluErfLanes>(x, out, n);
      } else {
        const T r = static_cast<T>(0.7071067811865476);  // 1 / sqrt(2)
        for (int64_t i = 0; i < n; ++i) out[i] = T(0.5) * x[i] * (T(1) + std::erf(x[i] * r));
      }
    }
    return absl::OkStatus();
  }
};

// g * Gelu'(x) for float32's erf form, from x and y = Gelu(x) = x Phi(x):
// Phi(x) + x phi(x) with Phi(x) = y / x (a division, not a second Phi;
// 0.5 near 0, where y / x would be 0 / 0 or lose digits to subnormals) and
// phi(x) = exp(-x^2 / 2) / sqrt(2 pi). Where phi underflows (|x| > 14.4,
// and at +-inf, where y / x is inf / inf or NaN) the derivative is 1 for
// x > 0 and 0 for x < 0.
struct GeluErfGradLanes {
  template <typename V>
  static void Lanes(V* v, const V& y, const V& g) {
    const V zero = {};
    const V x = *v;
    V pdf = (x * x) * -0.5f;
    vec::ExpInPlace(&pdf);
    pdf = pdf * 0.3989422804014327f;
    const V ax = x < zero ? zero - x : x;
    const V cdf = ax < 1e-30f ? zero + 0.5f : y / x;
    const V tail = x > zero ? zero + 1.0f : zero;
    const V d = pdf == zero ? tail : cdf + x * pdf;
    *v = g * d;
  }
};

// Relu's backward (ReluGrad, ops/grad_ops.h): inputs y = Relu(x) and the
// output's gradient g; g where y > 0, else 0 (NaN y: 0). A select, no branch.
// float32: vec::MapRows, 16 lanes where the CPU has AVX-512F.
struct ReluGradLanes {
  template <typename V>
  static void Lanes(V* y, const V& g) {
    const V zero = {};
    *y = *y > zero ? g : zero;
  }
};
template <typename T>
struct ReluGrad {
  static absl::Status Run(KernelContext& ctx) {
    const T* y = ctx.input<T>(0);
    const T* g = ctx.input<T>(1);
    T* out = ctx.output<T>(0);
    const int64_t n = ctx.output_meta(0).shape.numel();
    if constexpr (std::is_same_v<T, float>) {
      const float* in[] = {y, g};
      vec::MapRows<ReluGradLanes, 2>(in, out, n);
      return absl::OkStatus();
    }
    // Both operands read unconditionally, so the compiler selects (and
    // vectorises) instead of branching on the sign: a ReLU mask mispredicts
    // half the time (7x slower on the large MLP's [256, 512]).
    for (int64_t i = 0; i < n; ++i) {
      const T gi = g[i];
      out[i] = y[i] > T(0) ? gi : T(0);
    }
    return absl::OkStatus();
  }
};

// Gelu's backward (GeluGrad, ops/grad_ops.h): inputs x, y = Gelu(x) and
// the output's gradient g, scalar(0) the tanh form; the output g * Gelu'(x).
// float64 and the tanh form compute from x alone.
template <typename T>
struct GeluGrad {
  static absl::Status Run(KernelContext& ctx) {
    if constexpr (std::is_floating_point_v<T>) {
      const T* x = ctx.input<T>(0);
      const T* g = ctx.input<T>(2);
      T* out = ctx.output<T>(0);
      const int64_t n = ctx.output_meta(0).shape.numel();
      if (ctx.scalar(0).to<bool>()) {
        // 0.5 (1 + t) + 0.5 x (1 - t^2) k (1 + 3 0.044715 x^2), t = tanh(u).
        const T k = static_cast<T>(0.7978845608028654);
        for (int64_t i = 0; i < n; ++i) {
          const T v = x[i];
          const T t = std::tanh(k * (v + T(0.044715) * v * v * v));
          const T du = k * (T(1) + T(3 * 0.044715) * v * v);
          out[i] = g[i] * (T(0.5) * (T(1) + t) + T(0.5) * v * (T(1) - t * t) * du);
        }
      } else if constexpr (std::is_same_v<T, float>) {
        const float* in[] = {x, ctx.input<float>(1), g};
        vec::MapRows<GeluErfGradLanes, 3>(in, out, n);
      } else {
        const T r = static_cast<T>(0.7071067811865476);  // 1 / sqrt(2)
        const T c = static_cast<T>(0.3989422804014327);  // 1 / sqrt(2 pi)
        for (int64_t i = 0; i < n; ++i) {
          const T v = x[i];
          const T pdf = c * std::exp(T(-0.5) * v * v);
          out[i] = g[i] * (T(0.5) * std::erfc(-v * r) + (pdf == 0 ? T(0) : v * pdf));
        }
      }
    }
    return absl::OkStatus();
  }
};

}  // namespace

void RegisterNnCpuKernels(internal::OpRegistry& r) {
  RegisterCpu<Gelu>(r, builtin::kGelu, kFloatDTypes);
  RegisterCpu<GeluGrad>(r, builtin::kGeluGrad, kFloatDTypes);
  RegisterCpuTyped<ReluGrad, float, double>(r, builtin::kReluGrad);
}

}  // namespace eagervm::kernels
