// Gelu and LayerNorm. LayerNorm normalises each row of the last axis with its
// mean and (biased) variance, both computed in double in two passes, so
// rows with a large mean lose no digits.
#include <cmath>
#include <type_traits>

#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/vec_map_row.h"
#include "kernels/cpu/vec_normal_cdf.h"

namespace eagervm::kernels {
namespace {

// float32 erf form: x Phi(x), Phi by vec_normal_cdf.h (vec_map_row.h: 8
// lanes under AVX2; the same bits at every width and for the tail).
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

template <typename T>
struct LayerNorm {
  static absl::Status Run(KernelContext& ctx) {
    const Shape& shape = ctx.input_meta(0).shape;
    const int64_t d = shape[shape.rank() - 1];
    const int64_t rows = d == 0 ? 0 : shape.numel() / d;
    const T* x = ctx.input<T>(0);
    const T* w = ctx.input<T>(1);
    const T* b = ctx.input<T>(2);
    T* out = ctx.output<T>(0);
    const double eps = ctx.scalar(0).to<double>();
    for (int64_t r = 0; r < rows; ++r) {
      const T* row = x + r * d;
      double sum = 0;
      for (int64_t k = 0; k < d; ++k) sum += static_cast<double>(row[k]);
      const double mean = sum / static_cast<double>(d);
      double sq = 0;
      for (int64_t k = 0; k < d; ++k) {
        const double c = static_cast<double>(row[k]) - mean;
        sq += c * c;
      }
      const double inv = 1.0 / std::sqrt(sq / static_cast<double>(d) + eps);
      T* orow = out + r * d;
      for (int64_t k = 0; k < d; ++k) {
        orow[k] =
            static_cast<T>((static_cast<double>(row[k]) - mean) * inv * static_cast<double>(w[k]) +
                           static_cast<double>(b[k]));
      }
    }
    return absl::OkStatus();
  }
};

}  // namespace

void RegisterNnCpuKernels(internal::OpRegistry& r) {
  RegisterCpu<Gelu>(r, builtin::kGelu, kFloatDTypes);
  RegisterCpu<LayerNorm>(r, builtin::kLayerNorm, kFloatDTypes);
}

}  // namespace eagervm::kernels
