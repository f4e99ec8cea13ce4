// LayerNorm over the last axis, and its backward (LayerNormGrad, the
// autograd formula's one instruction: ops/grad_ops.h). Each row's mean and
// (biased) variance are computed in double in two passes, so rows with a
// large mean lose no digits; the backward recomputes them the same way.
//
// Every sum runs 16 double accumulators (element k to accumulator k mod 16),
// then the tail in order, so no row is bound by the dependence chain of one
// add per element. The same code is built three times, 4 double lanes for
// the baseline and AVX2, 8 for AVX-512F (picked once at run time), with no
// multiply-add fused and the accumulators added in one order: all give the
// same bits.
#include <cmath>
#include <cstring>
#include <type_traits>

#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/vec_double.h"
#include "kernels/cpu/vec_exp.h"  // EAGERVM_AVX512_NO_FMA

namespace eagervm::kernels {
namespace {

using namespace vec;  // NOLINT(build/namespaces): the double-vector helpers

struct RowStats {
  double mean, rstd;
};

template <typename D, typename T>
[[gnu::always_inline]] inline RowStats StatsOf(const T* x, int64_t d, double eps) {
  D acc[kAcc<D>] = {};
  int64_t k = 0;
  for (; k + 16 <= d; k += 16)
    for (int j = 0; j < kAcc<D>; ++j) acc[j] += LoadD<D>(x + k + kW<D> * j);
  double sum = Total(acc);
  for (int64_t t = k; t < d; ++t) sum += static_cast<double>(x[t]);
  const double mean = sum / static_cast<double>(d);
  D sq[kAcc<D>] = {};
  for (k = 0; k + 16 <= d; k += 16) {
    for (int j = 0; j < kAcc<D>; ++j) {
      const D c = LoadD<D>(x + k + kW<D> * j) - mean;
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
template <typename D, typename T>
[[gnu::always_inline]] inline void ForwardRows(const T* x, const T* w, const T* b, int64_t rows,
                                               int64_t d, double eps, T* out) {
  for (int64_t r = 0; r < rows; ++r) {
    const T* row = x + r * d;
    T* orow = out + r * d;
    const RowStats st = StatsOf<D>(row, d, eps);
    int64_t k = 0;
    for (; k + kW<D> <= d; k += kW<D>) {
      StoreD(orow + k, (LoadD<D>(row + k) - st.mean) * st.rstd * LoadD<D>(w + k) + LoadD<D>(b + k));
    }
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
template <typename D, typename T>
[[gnu::always_inline]] inline void BackwardRows(const T* x, const T* w, const T* g, int64_t rows,
                                                int64_t d, double eps, T* dx, double* dwb) {
  double* dw = dwb;
  double* db = dwb + d;
  const double inv_d = 1.0 / static_cast<double>(d);
  for (int64_t r = 0; r < rows; ++r) {
    const T* xr = x + r * d;
    const T* gr = g + r * d;
    const RowStats st = StatsOf<D>(xr, d, eps);
    D s1[kAcc<D>] = {}, s2[kAcc<D>] = {};
    int64_t k = 0;
    for (; k + 16 <= d; k += 16) {
      for (int j = 0; j < kAcc<D>; ++j) {
        const int64_t i = k + kW<D> * j;
        const D xh = (LoadD<D>(xr + i) - st.mean) * st.rstd;
        const D gg = LoadD<D>(gr + i);
        const D dxh = gg * LoadD<D>(w + i);
        s1[j] += dxh;
        s2[j] += dxh * xh;
        StoreD(dw + i, LoadD<D>(dw + i) + gg * xh);
        StoreD(db + i, LoadD<D>(db + i) + gg);
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
    for (k = 0; k + kW<D> <= d; k += kW<D>) {
      const D xh = (LoadD<D>(xr + k) - st.mean) * st.rstd;
      const D dxh = LoadD<D>(gr + k) * LoadD<D>(w + k);
      StoreD(dxr + k, (dxh - m1 - xh * m2) * st.rstd);
    }
    for (; k < d; ++k) {
      const double xh = (static_cast<double>(xr[k]) - st.mean) * st.rstd;
      const double dxh = static_cast<double>(gr[k]) * static_cast<double>(w[k]);
      dxr[k] = static_cast<T>((dxh - m1 - xh * m2) * st.rstd);
    }
  }
}

#ifdef EAGERVM_VEC_DOUBLE_X86
template <typename T>
__attribute__((target("avx2"), flatten)) void ForwardAvx2(const T* x, const T* w, const T* b,
                                                          int64_t rows, int64_t d, double eps,
                                                          T* out) {
  ForwardRows<D4>(x, w, b, rows, d, eps, out);
}
template <typename T>
__attribute__((target("avx2"), flatten)) void BackwardAvx2(const T* x, const T* w, const T* g,
                                                           int64_t rows, int64_t d, double eps,
                                                           T* dx, double* dwb) {
  BackwardRows<D4>(x, w, g, rows, d, eps, dx, dwb);
}
template <typename T>
EAGERVM_AVX512_NO_FMA void ForwardAvx512(const T* x, const T* w, const T* b, int64_t rows,
                                         int64_t d, double eps, T* out) {
  ForwardRows<D8>(x, w, b, rows, d, eps, out);
}
template <typename T>
EAGERVM_AVX512_NO_FMA void BackwardAvx512(const T* x, const T* w, const T* g, int64_t rows,
                                          int64_t d, double eps, T* dx, double* dwb) {
  BackwardRows<D8>(x, w, g, rows, d, eps, dx, dwb);
}
#endif

// The rows of the last axis of input 0's shape: their count and length.
void RowsOf(const Shape& shape, int64_t* rows, int64_t* d) {
  *d = shape[shape.rank() - 1];
  *rows = *d == 0 ? 0 : shape.numel() / *d;
}

// Inputs x, weight, bias; scalar eps.
template <typename T>
struct LayerNorm {
  static absl::Status Run(KernelContext& ctx) {
    int64_t rows, d;
    RowsOf(ctx.input_meta(0).shape, &rows, &d);
    const T* x = ctx.input<T>(0);
    const T* w = ctx.input<T>(1);
    const T* b = ctx.input<T>(2);
    T* out = ctx.output<T>(0);
    const double eps = ctx.scalar(0).to<double>();
    switch (vec::ChosenIsa()) {
#ifdef EAGERVM_VEC_DOUBLE_X86
      case vec::Isa::kAvx512:
        return ForwardAvx512(x, w, b, rows, d, eps, out), absl::OkStatus();
      case vec::Isa::kAvx2:
        return ForwardAvx2(x, w, b, rows, d, eps, out), absl::OkStatus();
#endif
      default:
        return ForwardRows<D4>(x, w, b, rows, d, eps, out), absl::OkStatus();
    }
  }
};

// Inputs x, weight, the output's gradient g; scalar eps; outputs dx, dw, db.
template <typename T>
struct LayerNormGrad {
  static absl::Status Run(KernelContext& ctx) {
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
    switch (vec::ChosenIsa()) {
#ifdef EAGERVM_VEC_DOUBLE_X86
      case vec::Isa::kAvx512:
        BackwardAvx512(x, w, g, rows, d, eps, dx, dwb);
        break;
      case vec::Isa::kAvx2:
        BackwardAvx2(x, w, g, rows, d, eps, dx, dwb);
        break;
#endif
      default:
        BackwardRows<D4>(x, w, g, rows, d, eps, dx, dwb);
    }
    T* dw = ctx.output<T>(1);
    T* db = ctx.output<T>(2);
    for (int64_t k = 0; k < d; ++k) {
      dw[k] = static_cast<T>(dwb[k]);
      db[k] = static_cast<T>(dwb[d + k]);
    }
    return absl::OkStatus();
  }
};

}  // namespace

void RegisterLayerNormCpuKernels(internal::OpRegistry& r) {
  RegisterCpuTyped<LayerNorm, float, double>(r, builtin::kLayerNorm);
  RegisterCpuTyped<LayerNormGrad, float, double>(r, builtin::kLayerNormGrad);
}

}  // namespace eagervm::kernels
