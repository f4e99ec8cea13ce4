// LayerNorm over the last axis, and its backward (LayerNormGrad, the
// autograd formula's one instruction: ops/grad_ops.h). Each row's mean and
// (biased) variance are computed in double in two passes, so rows with a
// large mean lose no digits; the backward recomputes them the same way.
//
// Every sum runs 16 double accumulators (element k to accumulator k mod 16,
// as four 4-lane vectors), then the tail in order, so no row is bound by the
// dependence chain of one add per element; elementwise steps run 4 lanes.
// The same code is built twice, for the baseline and for AVX2 (picked once
// at run time), with no multiply-add fused: both give the same bits.
#include <cmath>
#include <cstring>
#include <type_traits>

#include "kernels/cpu/kernel_util.h"

// The 4-double vectors pass between always-inlined helpers of this file
// only: no call crosses an ABI, which GCC's note would be about.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

namespace eagervm::kernels {
namespace {

typedef double D4 __attribute__((vector_size(32)));
typedef float F4 __attribute__((vector_size(16)));

template <typename T>
[[gnu::always_inline]] inline D4 Load4(const T* p) {
  if constexpr (std::is_same_v<T, float>) {
    F4 f;
    std::memcpy(&f, p, sizeof f);
    return __builtin_convertvector(f, D4);
  } else {
    D4 d;
    std::memcpy(&d, p, sizeof d);
    return d;
  }
}

template <typename T>
[[gnu::always_inline]] inline void Store4(T* p, D4 v) {
  if constexpr (std::is_same_v<T, float>) {
    const F4 f = __builtin_convertvector(v, F4);
    std::memcpy(p, &f, sizeof f);
  } else {
    std::memcpy(p, &v, sizeof v);
  }
}

[[gnu::always_inline]] inline double Total(const D4* acc) {
  const D4 s = (acc[0] + acc[1]) + (acc[2] + acc[3]);
  return (s[0] + s[1]) + (s[2] + s[3]);
}

struct RowStats {
  double mean, rstd;
};

template <typename T>
[[gnu::always_inline]] inline RowStats StatsOf(const T* x, int64_t d, double eps) {
  D4 acc[4] = {};
  int64_t k = 0;
  for (; k + 16 <= d; k += 16)
    for (int j = 0; j < 4; ++j) acc[j] += Load4(x + k + 4 * j);
  double sum = Total(acc);
  for (int64_t t = k; t < d; ++t) sum += static_cast<double>(x[t]);
  const double mean = sum / static_cast<double>(d);
  D4 sq[4] = {};
  for (k = 0; k + 16 <= d; k += 16) {
    for (int j = 0; j < 4; ++j) {
      const D4 c = Load4(x + k + 4 * j) - mean;
      sq[j] += c * c;
    }
  }
  double s2 = Total(sq);
  for (int64_t t = k; t < d; ++t) {
    const double c = static_cast<double>(x[t]) - mean;
    s2 += c * c;
  }
  return {mean, 1.0 / std::sqrt(s2 / static_cast<double>(d) + eps)};
}

// y = (x - mean) * rstd * w + b, row by row.
template <typename T>
[[gnu::always_inline]] inline void ForwardRows(const T* x, const T* w, const T* b, int64_t rows,
                                               int64_t d, double eps, T* out) {
  for (int64_t r = 0; r < rows; ++r) {
    const T* row = x + r * d;
    T* orow = out + r * d;
    const RowStats st = StatsOf(row, d, eps);
    int64_t k = 0;
    for (; k + 4 <= d; k += 4)
      Store4(orow + k, (Load4(row + k) - st.mean) * st.rstd * Load4(w + k) + Load4(b + k));
    for (; k < d; ++k) {
      orow[k] = static_cast<T>((static_cast<double>(row[k]) - st.mean) * st.rstd *
                                   static_cast<double>(w[k]) +
                               static_cast<double>(b[k]));
    }
  }
}

// With xhat = (x - mean) * rstd and dxhat = g * w, per row:
// dx = rstd * (dxhat - mean(dxhat) - xhat * mean(dxhat * xhat)); over the
// rows, in order: dw += g * xhat, db += g (dwb: 2 d doubles, zeroed).
template <typename T>
[[gnu::always_inline]] inline void BackwardRows(const T* x, const T* w, const T* g, int64_t rows,
                                                int64_t d, double eps, T* dx, double* dwb) {
  double* dw = dwb;
  double* db = dwb + d;
  const double inv_d = 1.0 / static_cast<double>(d);
  for (int64_t r = 0; r < rows; ++r) {
    const T* xr = x + r * d;
    const T* gr = g + r * d;
    const RowStats st = StatsOf(xr, d, eps);
    D4 s1[4] = {}, s2[4] = {};
    int64_t k = 0;
    for (; k + 16 <= d; k += 16) {
      for (int j = 0; j < 4; ++j) {
        const int64_t i = k + 4 * j;
        const D4 xh = (Load4(xr + i) - st.mean) * st.rstd;
        const D4 gg = Load4(gr + i);
        const D4 dxh = gg * Load4(w + i);
        s1[j] += dxh;
        s2[j] += dxh * xh;
        Store4(dw + i, Load4(dw + i) + gg * xh);
        Store4(db + i, Load4(db + i) + gg);
      }
    }
    double sum1 = Total(s1), sum2 = Total(s2);
    for (int64_t t = k; t < d; ++t) {
      const double xh = (static_cast<double>(xr[t]) - st.mean) * st.rstd;
      const double gg = static_cast<double>(gr[t]);
      const double dxh = gg * static_cast<double>(w[t]);
      sum1 += dxh;
      sum2 += dxh * xh;
      dw[t] += gg * xh;
      db[t] += gg;
    }
    const double m1 = sum1 * inv_d, m2 = sum2 * inv_d;
    T* dxr = dx + r * d;
    for (k = 0; k + 4 <= d; k += 4) {
      const D4 xh = (Load4(xr + k) - st.mean) * st.rstd;
      const D4 dxh = Load4(gr + k) * Load4(w + k);
      Store4(dxr + k, (dxh - m1 - xh * m2) * st.rstd);
    }
    for (; k < d; ++k) {
      const double xh = (static_cast<double>(xr[k]) - st.mean) * st.rstd;
      const double dxh = static_cast<double>(gr[k]) * static_cast<double>(w[k]);
      dxr[k] = static_cast<T>((dxh - m1 - xh * m2) * st.rstd);
    }
  }
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define EAGERVM_LAYER_NORM_AVX2 1
template <typename T>
__attribute__((target("avx2"), flatten)) void ForwardAvx2(const T* x, const T* w, const T* b,
                                                          int64_t rows, int64_t d, double eps,
                                                          T* out) {
  ForwardRows(x, w, b, rows, d, eps, out);
}
template <typename T>
__attribute__((target("avx2"), flatten)) void BackwardAvx2(const T* x, const T* w, const T* g,
                                                           int64_t rows, int64_t d, double eps,
                                                           T* dx, double* dwb) {
  BackwardRows(x, w, g, rows, d, eps, dx, dwb);
}
#endif

bool UseAvx2() {
#ifdef EAGERVM_LAYER_NORM_AVX2
  static const bool avx2 = __builtin_cpu_supports("avx2");
  return avx2;
#else
  return false;
#endif
}

// The rows of the last axis of input 0's shape: their count and length.
void RowsOf(const Shape& shape, int64_t* rows, int64_t* d) {
  *d = shape[shape.rank() - 1];
  *rows = *d == 0 ? 0 : shape.numel() / *d;
}

// Inputs x, weight, bias; scalar eps.
template <typename T>
absl::Status Forward(KernelContext& ctx) {
  int64_t rows, d;
  RowsOf(ctx.input_meta(0).shape, &rows, &d);
  const T* x = ctx.input<T>(0);
  const T* w = ctx.input<T>(1);
  const T* b = ctx.input<T>(2);
  T* out = ctx.output<T>(0);
  const double eps = ctx.scalar(0).to<double>();
#ifdef EAGERVM_LAYER_NORM_AVX2
  if (UseAvx2()) return ForwardAvx2(x, w, b, rows, d, eps, out), absl::OkStatus();
#endif
  ForwardRows(x, w, b, rows, d, eps, out);
  return absl::OkStatus();
}

// Inputs x, weight, the output's gradient g; scalar eps; outputs dx, dw, db.
template <typename T>
absl::Status Backward(KernelContext& ctx) {
  int64_t rows, d;
  RowsOf(ctx.input_meta(0).shape, &rows, &d);
  absl::StatusOr<void*> tmp = ctx.AllocateTemp(static_cast<size_t>(2 * d) * sizeof(double));
  if (!tmp.ok()) return tmp.status();
  double* dwb = static_cast<double*>(*tmp);
  for (int64_t k = 0; k < 2 * d; ++k) dwb[k] = 0;
  const T* x = ctx.input<T>(0);
  const T* w = ctx.input<T>(1);
  const T* g = ctx.input<T>(2);
  T* dx = ctx.output<T>(0);
  const double eps = ctx.scalar(0).to<double>();
#ifdef EAGERVM_LAYER_NORM_AVX2
  if (UseAvx2()) {
    BackwardAvx2(x, w, g, rows, d, eps, dx, dwb);
  } else
#endif
  {
    BackwardRows(x, w, g, rows, d, eps, dx, dwb);
  }
  T* dw = ctx.output<T>(1);
  T* db = ctx.output<T>(2);
  for (int64_t k = 0; k < d; ++k) {
    dw[k] = static_cast<T>(dwb[k]);
    db[k] = static_cast<T>(dwb[d + k]);
  }
  return absl::OkStatus();
}

// Registered for float32 and float64 only (RegisterCpu compiles all five).
template <typename T>
struct LayerNorm {
  static absl::Status Run(KernelContext& ctx) {
    if constexpr (std::is_floating_point_v<T>) {
      return Forward<T>(ctx);
    } else {
      return absl::InternalError("LayerNorm: no kernel for this dtype");
    }
  }
};

template <typename T>
struct LayerNormGrad {
  static absl::Status Run(KernelContext& ctx) {
    if constexpr (std::is_floating_point_v<T>) {
      return Backward<T>(ctx);
    } else {
      return absl::InternalError("LayerNormGrad: no kernel for this dtype");
    }
  }
};

}  // namespace

void RegisterLayerNormCpuKernels(internal::OpRegistry& r) {
  RegisterCpu<LayerNorm>(r, builtin::kLayerNorm, kFloatDTypes);
  RegisterCpu<LayerNormGrad>(r, builtin::kLayerNormGrad, kFloatDTypes);
}

}  // namespace eagervm::kernels
