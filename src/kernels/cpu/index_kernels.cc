// Argmax/Argmin (first occurrence; a NaN wins, as in numpy), OneHot,
// IndexSelect and IndexAdd. Every index is checked before it is used.
#include <cstring>

#include "base/str_cat.h"
#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/kernel_util.h"

namespace eagervm::kernels {
namespace {

template <bool kMax>
struct ArgReduce {
  template <typename T>
  struct Kernel {
    static absl::Status Run(KernelContext& ctx) {
      const Shape& shape = ctx.input_meta(0).shape;
      const int64_t axis = ctx.scalar(0).to<int64_t>();
      int64_t outer = 1, inner = 1;
      const int64_t n = shape[static_cast<int>(axis)];  // >= 1, checked by the op
      for (int d = 0; d < shape.rank(); ++d) {
        if (d < axis) outer *= shape[d];
        if (d > axis) inner *= shape[d];
      }
      const T* x = ctx.input<T>(0);
      int64_t* out = ctx.output<int64_t>(0);
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t i = 0; i < inner; ++i) {
          const T* row = x + o * n * inner + i;
          int64_t best = 0;
          T v = row[0];
          if (v == v) {  // not NaN
            for (int64_t k = 1; k < n; ++k) {
              const T y = row[k * inner];
              if (y != y) {  // the first NaN is the answer
                best = k;
                break;
              }
              if (kMax ? y > v : y < v) {
                v = y;
                best = k;
              }
            }
          }
          out[o * inner + i] = best;
        }
      }
      return absl::OkStatus();
    }
  };
};

absl::Status OutOfRange(const char* what, int64_t pos, int64_t value, int64_t n) {
  return absl::InvalidArgumentError(
      base::Cat(what, "[", pos, "] = ", value, " is out of range (valid: [0, ", n, "))"));
}

// out[..., k] = (k == index[...]); kernel dtype is the output's.
template <typename T>
struct OneHot {
  static absl::Status Run(KernelContext& ctx) {
    const Shape& out_shape = ctx.output_meta(0).shape;
    const int64_t classes = out_shape[out_shape.rank() - 1];
    const int64_t n = ctx.input_meta(0).shape.numel();
    const int64_t* index = ctx.input<int64_t>(0);
    T* out = ctx.output<T>(0);
    for (int64_t i = 0; i < n; ++i) {
      if (index[i] < 0 || index[i] >= classes) return OutOfRange("index", i, index[i], classes);
    }
    if (n * classes > 0) std::memset(out, 0, static_cast<size_t>(n * classes) * sizeof(T));
    for (int64_t i = 0; i < n; ++i) out[i * classes + index[i]] = T(1);
    return absl::OkStatus();
  }
};

// IndexSelect's and IndexAdd's operands: x (input 0) seen as [outer, n,
// inner] around the axis (scalar 0); the index (input 1) of m entries, each
// checked to lie in [0, n) (status: the first that does not).
struct Take {
  int64_t outer = 1, n = 0, inner = 1, m = 0;
  const int64_t* index = nullptr;
  absl::Status status;
};
Take TakeOf(KernelContext& ctx) {
  const Shape& shape = ctx.input_meta(0).shape;
  const int64_t axis = ctx.scalar(0).to<int64_t>();
  Take t;
  t.n = shape[static_cast<int>(axis)];
  for (int d = 0; d < shape.rank(); ++d) {
    if (d < axis) t.outer *= shape[d];
    if (d > axis) t.inner *= shape[d];
  }
  t.m = ctx.input_meta(1).shape.numel();
  t.index = ctx.input<int64_t>(1);
  for (int64_t j = 0; j < t.m; ++j) {
    if (t.index[j] < 0 || t.index[j] >= t.n) {
      t.status = OutOfRange("index", j, t.index[j], t.n);
      break;
    }
  }
  return t;
}

// numpy.take(x, index, axis): x seen as [outer, n, inner]; the output as
// [outer, index.numel(), inner]. Rows of `inner` elements are copied whole.
template <typename T>
struct IndexSelect {
  static absl::Status Run(KernelContext& ctx) {
    const Take t = TakeOf(ctx);
    if (!t.status.ok()) return t.status;
    const int64_t outer = t.outer, n = t.n, inner = t.inner, m = t.m;
    const int64_t* index = t.index;
    if (inner == 0 || outer == 0) return absl::OkStatus();
    const T* x = ctx.input<T>(0);
    T* out = ctx.output<T>(0);
    const size_t row_bytes = static_cast<size_t>(inner) * sizeof(T);
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t j = 0; j < m; ++j) {
        std::memcpy(out + (o * m + j) * inner, x + (o * n + index[j]) * inner, row_bytes);
      }
    }
    return absl::OkStatus();
  }
};

// IndexSelect's inverse: out = x, then each source row of `inner` elements
// added to the row of out its index names, in index order (deterministic;
// integers wrap, as Add's do).
template <typename T>
struct IndexAdd {
  static absl::Status Run(KernelContext& ctx) {
    const Take t = TakeOf(ctx);
    if (!t.status.ok()) return t.status;
    const int64_t outer = t.outer, n = t.n, inner = t.inner, m = t.m;
    const int64_t* index = t.index;
    const T* x = ctx.input<T>(0);
    const T* src = ctx.input<T>(2);
    T* out = ctx.output<T>(0);
    const int64_t total = ctx.input_meta(0).shape.numel();
    if (total > 0 && out != x) std::memcpy(out, x, static_cast<size_t>(total) * sizeof(T));
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t j = 0; j < m; ++j) {
        T* row = out + (o * n + index[j]) * inner;
        const T* add = src + (o * m + j) * inner;
        for (int64_t k = 0; k < inner; ++k) row[k] = WrapAdd(row[k], add[k]);
      }
    }
    return absl::OkStatus();
  }
};

}  // namespace

void RegisterIndexCpuKernels(internal::OpRegistry& r) {
  RegisterCpu<ArgReduce<true>::Kernel>(r, builtin::kArgmax, kNumericDTypes);
  RegisterCpu<ArgReduce<false>::Kernel>(r, builtin::kArgmin, kNumericDTypes);
  RegisterCpu<OneHot>(r, builtin::kOneHot, kAllDTypes);
  RegisterCpu<IndexSelect>(r, builtin::kIndexSelect, kAllDTypes);
  RegisterCpu<IndexAdd>(r, builtin::kIndexAdd, kNumericDTypes);
  RegisterCpuTyped<ArgReduce<true>::Kernel, uint8_t>(r, builtin::kArgmax);
  RegisterCpuTyped<ArgReduce<false>::Kernel, uint8_t>(r, builtin::kArgmin);
  RegisterCpuTyped<OneHot, uint8_t, Half, BFloat16>(r, builtin::kOneHot);
  RegisterCpuTyped<IndexSelect, uint8_t, Half, BFloat16>(r, builtin::kIndexSelect);
}

}  // namespace eagervm::kernels
