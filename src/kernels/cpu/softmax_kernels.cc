// Softmax, LogSoftmax (the input seen as [outer, n, inner], n along the axis)
// and CrossEntropy over [N, C] logits. Each row subtracts its maximum before
// exp, so no exp overflows; sums accumulate in double. A row holding NaN or
// +inf gives NaN, like the max-subtracting formula in float64. float32 rows
// use the 4-lane float exp of vec_exp.h (contiguous rows: whole vectors;
// rows along a strided axis: one lane); float64 uses std::exp.
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "base/str_cat.h"
#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/vec_exp.h"

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

// exp(v) in T's precision, as a double.
template <typename T>
double ExpOf(T v) {
  if constexpr (std::is_same_v<T, float>) {
    return vec::Exp(v);
  } else {
    return std::exp(static_cast<double>(v));
  }
}

// The maximum of a contiguous float row of n > 0 elements, NaN skipped (a
// NaN element still makes its row NaN through exp).
float ContiguousMax(const float* x, int64_t n) {
  vec::F4 m = vec::Splat(-std::numeric_limits<float>::infinity());
  int64_t k = 0;
  for (; k + vec::kLanes <= n; k += vec::kLanes) {
    const vec::F4 v = vec::Load(x + k);
    m = v > m ? v : m;
  }
  float r = vec::MaxLane(m);
  for (; k < n; ++k) r = x[k] > r ? x[k] : r;
  return r;
}

// The sum of exp(x[k] - max) over a row, as the count of terms that are 1
// (the maximum, and any within float rounding of it) and the sum of the
// rest: log(sum) = log1p(rest) when the maximum is alone, accurate to float
// precision even where the rest is below 1e-7 (LogSoftmax of the largest
// logit).
struct ExpSum {
  double ones = 0, rest = 0;
  double Total() const { return ones + rest; }
  double Log() const { return ones == 1 ? std::log1p(rest) : std::log(ones + rest); }
};

// The terms of one group of exps: 1s counted in `ones`, the others (NaN
// included) added to `rest`.
inline void AddTerms(vec::F4 e, vec::F4* ones, vec::F4* rest) {
  const auto one = e == vec::Splat(1.0f);
  *ones += one ? vec::Splat(1.0f) : vec::Splat(0.0f);
  *rest += one ? vec::Splat(0.0f) : e;
}

// ExpSum of exp(x[k] - m) over a contiguous float row, in double (each group
// of 16 added in float first); the exps are stored to `out` unless it is
// null.
ExpSum ContiguousExpSum(const float* x, int64_t n, float m, float* out) {
  const vec::F4 mv = vec::Splat(m);
  vec::D2 lo = {0, 0}, hi = {0, 0};
  vec::F4 ones = vec::Splat(0.0f);
  int64_t k = 0;
  for (; k + 4 * vec::kLanes <= n; k += 4 * vec::kLanes) {
    const vec::F4 e0 = vec::Exp(vec::Load(x + k) - mv);
    const vec::F4 e1 = vec::Exp(vec::Load(x + k + 4) - mv);
    const vec::F4 e2 = vec::Exp(vec::Load(x + k + 8) - mv);
    const vec::F4 e3 = vec::Exp(vec::Load(x + k + 12) - mv);
    if (out != nullptr) {
      vec::Store(out + k, e0);
      vec::Store(out + k + 4, e1);
      vec::Store(out + k + 8, e2);
      vec::Store(out + k + 12, e3);
    }
    vec::F4 rest = vec::Splat(0.0f);
    AddTerms(e0, &ones, &rest);
    AddTerms(e1, &ones, &rest);
    AddTerms(e2, &ones, &rest);
    AddTerms(e3, &ones, &rest);
    vec::AddWide(rest, &lo, &hi);
  }
  for (; k < n; k += vec::kLanes) {
    const int64_t len = n - k < vec::kLanes ? n - k : vec::kLanes;
    // Padding lanes are -inf: exp gives 0, nothing added.
    const vec::F4 e =
        vec::Exp(vec::LoadPartial(x + k, len, -std::numeric_limits<float>::infinity()) - mv);
    if (out != nullptr) vec::StorePartial(out + k, e, len);
    vec::F4 rest = vec::Splat(0.0f);
    AddTerms(e, &ones, &rest);
    vec::AddWide(rest, &lo, &hi);
  }
  const vec::D2 s = lo + hi;
  ExpSum r;
  r.rest = s[0] + s[1];
  // Whole counts below 2^24: exact in float.
  r.ones = static_cast<double>(ones[0]) + ones[1] + ones[2] + ones[3];
  return r;
}

// One row of n elements at stride `st`: its maximum (NaN if any is NaN, or
// with NaN skipped for contiguous float rows) and the log of the sum of
// exp(x - max), summed in double.
template <typename T>
void RowStats(const T* x, int64_t n, int64_t st, T* max_out, double* log_sum_out) {
  if constexpr (std::is_same_v<T, float>) {
    if (st == 1) {
      *max_out = ContiguousMax(x, n);
      *log_sum_out = ContiguousExpSum(x, n, *max_out, nullptr).Log();
      return;
    }
  }
  T m = x[0];
  for (int64_t k = 1; k < n; ++k) m = MaxOp::Apply(m, x[k * st]);
  ExpSum sum;
  for (int64_t k = 0; k < n; ++k) {
    const double v = ExpOf<T>(x[k * st] - m);
    if (v == 1) {
      sum.ones += 1;
    } else {
      sum.rest += v;
    }
  }
  *max_out = m;
  *log_sum_out = sum.Log();
}

// Softmax / LogSoftmax of one contiguous float row.
template <bool kLog>
void ContiguousRow(const float* x, int64_t n, float* out) {
  const float m = ContiguousMax(x, n);
  if constexpr (kLog) {
    const float log_sum = static_cast<float>(ContiguousExpSum(x, n, m, nullptr).Log());
    // (x - m) <= 0 and log_sum >= 0: no cancellation in float.
    for (int64_t k = 0; k < n; ++k) out[k] = (x[k] - m) - log_sum;
  } else {
    const float inv = static_cast<float>(1.0 / ContiguousExpSum(x, n, m, out).Total());
    for (int64_t k = 0; k < n; ++k) out[k] *= inv;
  }
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
      if constexpr (std::is_same_v<T, float>) {
        if (e.inner == 1) {
          for (int64_t o = 0; o < e.outer; ++o)
            ContiguousRow<kLog>(x + o * e.n, e.n, out + o * e.n);
          return absl::OkStatus();
        }
      }
      for (int64_t o = 0; o < e.outer; ++o) {
        for (int64_t i = 0; i < e.inner; ++i) {
          const int64_t base = o * e.n * e.inner + i;
          const T* row = x + base;
          T* orow = out + base;
          const int64_t st = e.inner;
          if constexpr (kLog) {
            T m;
            double log_sum;
            RowStats(row, e.n, st, &m, &log_sum);
            for (int64_t k = 0; k < e.n; ++k) {
              orow[k * st] = static_cast<T>(static_cast<double>(row[k * st] - m) - log_sum);
            }
          } else {
            // exp once per element: kept in the output, then scaled.
            T m = row[0];
            for (int64_t k = 1; k < e.n; ++k) m = MaxOp::Apply(m, row[k * st]);
            double sum = 0;
            for (int64_t k = 0; k < e.n; ++k) {
              const double v = ExpOf<T>(row[k * st] - m);
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
      double log_sum;
      RowStats(row, c, 1, &m, &log_sum);
      total += log_sum - static_cast<double>(row[label] - m);
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
