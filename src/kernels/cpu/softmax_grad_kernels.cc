// Softmax's backward (SoftmaxGrad, ops/grad_ops.h): with y = softmax(x)
// along an axis and g the gradient of y, dx = y * (g - sum(g * y)) along
// that axis, computed in double and rounded once per element. Each row's
// sum is in double: on rows along the last axis in 16 accumulators
// (vec_double.h: 4 or 8 lanes by what the CPU has, the same bits at every
// width), along any other axis one element at a time.
#include <cstdint>
#include <type_traits>

#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/softmax_rows.h"
#include "kernels/cpu/vec_double.h"
#include "kernels/cpu/vec_exp.h"  // EAGERVM_AVX512_NO_FMA

namespace eagervm::kernels {
namespace {

using namespace vec;  // NOLINT(build/namespaces): the double-vector helpers

template <typename D, typename T>
[[gnu::always_inline]] inline void LastAxisRows(const T* y, const T* g, int64_t rows, int64_t n,
                                                T* dx) {
  for (int64_t r = 0; r < rows; ++r, y += n, g += n, dx += n) {
    D acc[kAcc<D>] = {};
    int64_t k = 0;
    for (; k + 16 <= n; k += 16)
      for (int j = 0; j < kAcc<D>; ++j) {
        const int64_t i = k + kW<D> * j;
        acc[j] += LoadD<D>(y + i) * LoadD<D>(g + i);
      }
    double s = Total(acc);
    for (; k < n; ++k) s += static_cast<double>(y[k]) * static_cast<double>(g[k]);
    for (k = 0; k + kW<D> <= n; k += kW<D>) StoreD(dx + k, LoadD<D>(y + k) * (LoadD<D>(g + k) - s));
    for (; k < n; ++k)
      dx[k] = static_cast<T>(static_cast<double>(y[k]) * (static_cast<double>(g[k]) - s));
  }
}

#ifdef EAGERVM_VEC_DOUBLE_X86
template <typename T>
__attribute__((target("avx2"), flatten)) void LastAxisAvx2(const T* y, const T* g, int64_t rows,
                                                           int64_t n, T* dx) {
  LastAxisRows<D4>(y, g, rows, n, dx);
}
template <typename T>
EAGERVM_AVX512_NO_FMA void LastAxisAvx512(const T* y, const T* g, int64_t rows, int64_t n, T* dx) {
  LastAxisRows<D8>(y, g, rows, n, dx);
}
#endif

// Inputs y, g; scalar(0) the axis (normalised); output dx.
template <typename T>
struct SoftmaxGrad {
  static absl::Status Run(KernelContext& ctx) {
    const Shape& shape = ctx.input_meta(0).shape;
    const int64_t axis = ctx.scalar(0).to<int64_t>();
    int64_t outer = 1, n = 1, inner = 1;
    for (int d = 0; d < shape.rank(); ++d) (d < axis ? outer : d == axis ? n : inner) *= shape[d];
    if (outer == 0 || n == 0 || inner == 0) return absl::OkStatus();
    const T* y = ctx.input<T>(0);
    const T* g = ctx.input<T>(1);
    T* dx = ctx.output<T>(0);
    if (inner == 1) {
      switch (vec::ChosenIsa()) {
#ifdef EAGERVM_VEC_DOUBLE_X86
        case vec::Isa::kAvx512:
          return LastAxisAvx512(y, g, outer, n, dx), absl::OkStatus();
        case vec::Isa::kAvx2:
          return LastAxisAvx2(y, g, outer, n, dx), absl::OkStatus();
#endif
        default:
          return LastAxisRows<D4>(y, g, outer, n, dx), absl::OkStatus();
      }
    }
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < inner; ++i) {
        const int64_t base = o * n * inner + i;
        double s = 0;
        for (int64_t k = 0; k < n; ++k) {
          s += static_cast<double>(y[base + k * inner]) * static_cast<double>(g[base + k * inner]);
        }
        for (int64_t k = 0; k < n; ++k) {
          const int64_t e = base + k * inner;
          dx[e] = static_cast<T>(static_cast<double>(y[e]) * (static_cast<double>(g[e]) - s));
        }
      }
    }
    return absl::OkStatus();
  }
};

// CrossEntropy's backward (CrossEntropyGrad, ops/grad_ops.h), float32:
// inputs logits [N, C], labels int64 [N], g 0-d. Every label is checked
// before anything is written; then the rows' softmax by the same row kernel
// as Softmax, the label's 1 subtracted and the rows scaled by g / N, each
// step the float operation the composed ops do (the same bits).
template <typename T>
struct CrossEntropyGrad {
  static_assert(std::is_same_v<T, float>, "float32 only: softmax_rows.h");
  static absl::Status Run(KernelContext& ctx) {
    const int64_t n = ctx.input_meta(0).shape[0], c = ctx.input_meta(0).shape[1];
    const float* x = ctx.input<float>(0);
    const int64_t* labels = ctx.input<int64_t>(1);
    float* dx = ctx.output<float>(0);
    if (absl::Status s = softmax_rows::CheckLabels(labels, n, c); !s.ok()) return s;
    if (n == 0 || c == 0) return absl::OkStatus();
    softmax_rows::Rows(softmax_rows::Chosen(), false, x, n, c, dx);
    const float scale = ctx.input<float>(2)[0] / static_cast<float>(n);
    for (int64_t r = 0; r < n; ++r) {
      float* row = dx + r * c;
      row[labels[r]] -= 1.0f;
      for (int64_t k = 0; k < c; ++k) row[k] *= scale;
    }
    return absl::OkStatus();
  }
};

}  // namespace

void RegisterSoftmaxGradCpuKernels(internal::OpRegistry& r) {
  RegisterCpuTyped<SoftmaxGrad, float, double>(r, builtin::kSoftmaxGrad);
  RegisterCpuTyped<CrossEntropyGrad, float>(r, builtin::kCrossEntropyGrad);
}

}  // namespace eagervm::kernels
