// Softmax, LogSoftmax (the input seen as [outer, n, inner], n along the axis)
// and CrossEntropy over [N, C] logits. Each row subtracts its maximum before
// exp, so no exp overflows; sums accumulate in double. A row holding NaN or
// +inf gives NaN, like the max-subtracting formula in float64.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "base/str_cat.h"
#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/kernel_util.h"

namespace eagervm::kernels {
namespace {

struct SoftmaxExtent {
  int64_t outer = 1, n = 1, inner = 1;
};

SoftmaxExtent SoftmaxExtentOf(const Shape& s, int64_t axis) {
  SoftmaxExtent e;
  for (int d = 0; d < s.rank(); ++d) {
    if (d < axis)
      e.outer *= s[d];
    else if (d == axis)
      e.n = s[d];
    else
      e.inner *= s[d];
  }
  return e;
}

// One row of n elements at stride `st`: its maximum (NaN if any is NaN) and
// the sum of exp(x - max) in double.
template <typename T>
void RowStats(const T* x, int64_t n, int64_t st, T* max_out, double* sum_out) {
  T m = x[0];
  for (int64_t k = 1; k < n; ++k) m = MaxOp::Apply(m, x[k * st]);
  double sum = 0;
  for (int64_t k = 0; k < n; ++k) sum += std::exp(static_cast<double>(x[k * st] - m));
  *max_out = m;
  *sum_out = sum;
}

template <bool kLog>
struct SoftmaxK {
  template <typename T>
  struct Kernel {
    static absl::Status Run(KernelContext& ctx) {
      const SoftmaxExtent e = SoftmaxExtentOf(ctx.input_meta(0).shape, ctx.scalar(0).to<int64_t>());
      if (e.n == 0 || e.outer == 0 || e.inner == 0) return absl::OkStatus();
      const T* x = ctx.input<T>(0);
      T* out = ctx.output<T>(0);
      for (int64_t o = 0; o < e.outer; ++o) {
        for (int64_t i = 0; i < e.inner; ++i) {
          const int64_t base = o * e.n * e.inner + i;
          const T* row = x + base;
          T* orow = out + base;
          const int64_t st = e.inner;
          if constexpr (kLog) {
            T m;
            double sum;
            RowStats(row, e.n, st, &m, &sum);
            const double log_sum = std::log(sum);
            for (int64_t k = 0; k < e.n; ++k) {
              orow[k * st] = static_cast<T>(static_cast<double>(row[k * st] - m) - log_sum);
            }
          } else {
            // exp once per element: kept in the output, then scaled.
            T m = row[0];
            for (int64_t k = 1; k < e.n; ++k) m = MaxOp::Apply(m, row[k * st]);
            double sum = 0;
            for (int64_t k = 0; k < e.n; ++k) {
              const double v = std::exp(static_cast<double>(row[k * st] - m));
              sum += v;
              orow[k * st] = static_cast<T>(v);
            }
            const double inv = 1.0 / sum;
            for (int64_t k = 0; k < e.n; ++k) {
              orow[k * st] = static_cast<T>(static_cast<double>(orow[k * st]) * inv);
            }
          }
        }
      }
      return absl::OkStatus();
    }
  };
};

// mean over rows of log(sum exp(x - max)) + max - x[label]. Every label is
// checked before its row is read.
template <typename T>
struct CrossEntropy {
  static absl::Status Run(KernelContext& ctx) {
    const int64_t n = ctx.input_meta(0).shape[0], c = ctx.input_meta(0).shape[1];
    const T* x = ctx.input<T>(0);
    const int64_t* labels = ctx.input<int64_t>(1);
    double total = 0;
    for (int64_t r = 0; r < n; ++r) {
      const int64_t label = labels[r];
      if (label < 0 || label >= c) {
        return absl::InvalidArgumentError(base::Cat("labels[", r, "] = ", label,
                                                    " is out of range for ", c,
                                                    " classes (valid: [0, ", c, "))"));
      }
      const T* row = x + r * c;
      T m;
      double sum;
      RowStats(row, c, 1, &m, &sum);
      total += std::log(sum) - static_cast<double>(row[label] - m);
    }
    // The mean of nothing is NaN (as numpy's and torch's).
    ctx.output<T>(0)[0] = n == 0 ? std::numeric_limits<T>::quiet_NaN()
                                 : static_cast<T>(total / static_cast<double>(n));
    return absl::OkStatus();
  }
};

}  // namespace

void RegisterSoftmaxCpuKernels(internal::OpRegistry& r) {
  RegisterCpu<SoftmaxK<false>::Kernel>(r, builtin::kSoftmax, kFloatDTypes);
  RegisterCpu<SoftmaxK<true>::Kernel>(r, builtin::kLogSoftmax, kFloatDTypes);
  RegisterCpu<CrossEntropy>(r, builtin::kCrossEntropy, kFloatDTypes);
}

}  // namespace eagervm::kernels
