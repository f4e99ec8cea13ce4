// Reductions (Sum Mean Max) over everything or along one axis. The input is
// seen as [outer, n, inner] with n the reduced extent; scalar(0) is the axis
// (already normalised by the op) or -1 for "everything".
#include <cstring>
#include <type_traits>

#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/kernel_util.h"

namespace eagervm::kernels {
namespace {

struct Extent {
  int64_t outer = 1, n = 1, inner = 1;
};

Extent ExtentOf(const Shape& in, int64_t axis) {
  Extent e;
  if (axis < 0) {
    e.n = in.numel();
    return e;
  }
  for (int d = 0; d < in.rank(); ++d) {
    if (d < axis)
      e.outer *= in[d];
    else if (d == axis)
      e.n = in[d];
    else
      e.inner *= in[d];
  }
  return e;
}

// float32 sums accumulate in double: a loss over thousands of samples would
// otherwise lose digits. Integers accumulate in their own type, wrapping.
template <typename T>
using SumAcc = std::conditional_t<std::is_same_v<T, float>, double, T>;

struct SumR {
  template <typename T>
  using Acc = SumAcc<T>;
  template <typename A>
  static A Combine(A a, A b) {
    return WrapAdd(a, b);
  }
  template <typename T, typename A>
  static T Finish(A acc, int64_t) {
    return static_cast<T>(acc);
  }
};
struct MeanR : SumR {  // float dtypes only; n == 0 gives NaN, like numpy
  template <typename T, typename A>
  static T Finish(A acc, int64_t n) {
    return static_cast<T>(acc / static_cast<A>(n));
  }
};
struct MaxR {  // n >= 1 is checked by the op
  template <typename T>
  using Acc = T;
  template <typename A>
  static A Combine(A a, A b) {
    return MaxOp::Apply(a, b);
  }
  template <typename T, typename A>
  static T Finish(A acc, int64_t) {
    return acc;
  }
};

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define EAGERVM_REDUCE_AVX2 1
typedef double SumD4 __attribute__((vector_size(32)));
typedef float SumF4 __attribute__((vector_size(16)));
// The float32 sum of a row in double over 16 lanes (element k to lane
// k mod 16), then the lanes added pairwise and the tail in order: the
// dependence chain of one add per element is what bounds a long row.
__attribute__((target("avx2"))) double SumAsDoubleAvx2(const float* x, int64_t n) {
  SumD4 acc[4] = {};
  int64_t k = 0;
  for (; k + 16 <= n; k += 16) {
    for (int j = 0; j < 4; ++j) {
      SumF4 f;
      std::memcpy(&f, x + k + 4 * j, sizeof f);
      acc[j] += __builtin_convertvector(f, SumD4);
    }
  }
  const SumD4 s = (acc[0] + acc[1]) + (acc[2] + acc[3]);
  double total = (s[0] + s[1]) + (s[2] + s[3]);
  for (; k < n; ++k) total += static_cast<double>(x[k]);
  return total;
}
// Column sums of `rows` float32 rows of `cols` contiguous elements (row
// stride cols) into acc[0..cols) in double: acc[j] = x[0][j], then
// x[k][j] added for k = 1, 2, ... in order, as the plain loop adds them (the
// same bits at every width). 8 vectors of columns at a time, their sums held
// in registers down the rows (8 independent chains), not loaded and stored
// once per row: D holds doubles, F as many floats.
template <typename D, typename F>
[[gnu::always_inline]] inline void SumColumnsOf(const float* x, int64_t rows, int64_t cols,
                                                double* acc) {
  constexpr int64_t kLanes = sizeof(F) / sizeof(float), kBlock = 8 * kLanes;
  int64_t j0 = 0;
  for (; j0 + kBlock <= cols; j0 += kBlock) {
    D a[8];
    for (int q = 0; q < 8; ++q) {
      F f;
      std::memcpy(&f, x + j0 + kLanes * q, sizeof f);
      a[q] = __builtin_convertvector(f, D);
    }
    for (int64_t k = 1; k < rows; ++k) {
      const float* row = x + k * cols + j0;
      for (int q = 0; q < 8; ++q) {
        F f;
        std::memcpy(&f, row + kLanes * q, sizeof f);
        a[q] += __builtin_convertvector(f, D);
      }
    }
    std::memcpy(acc + j0, a, sizeof a);
  }
  for (int64_t j = j0; j < cols; ++j) {
    double s = static_cast<double>(x[j]);
    for (int64_t k = 1; k < rows; ++k) s += static_cast<double>(x[k * cols + j]);
    acc[j] = s;
  }
}
__attribute__((target("avx2"))) void SumColumnsAsDoubleAvx2(const float* x, int64_t rows,
                                                            int64_t cols, double* acc) {
  SumColumnsOf<SumD4, SumF4>(x, rows, cols, acc);
}
typedef double SumD8 __attribute__((vector_size(64)));
typedef float SumF8 __attribute__((vector_size(32)));
__attribute__((target("avx512f"))) void SumColumnsAsDoubleAvx512(const float* x, int64_t rows,
                                                                 int64_t cols, double* acc) {
  SumColumnsOf<SumD8, SumF8>(x, rows, cols, acc);
}
#endif

// One contiguous row; four independent accumulators break the dependence
// chain (the order differs from a plain loop only by rounding). A float32
// sum of 64 or more elements on a CPU with AVX2: 16 (SumAsDoubleAvx2).
template <typename R, typename A, typename T>
A ReduceRow(const T* x, int64_t n) {
  if (n == 0) return A{};
#ifdef EAGERVM_REDUCE_AVX2
  if constexpr (std::is_base_of_v<SumR, R> && std::is_same_v<T, float>) {
    static const bool avx2 = __builtin_cpu_supports("avx2");
    if (avx2 && n >= 64) return SumAsDoubleAvx2(x, n);
  }
#endif
  if (n < 4) {
    A acc = static_cast<A>(x[0]);
    for (int64_t k = 1; k < n; ++k) acc = R::Combine(acc, static_cast<A>(x[k]));
    return acc;
  }
  A l0 = x[0], l1 = x[1], l2 = x[2], l3 = x[3];
  int64_t k = 4;
  for (; k + 4 <= n; k += 4) {
    l0 = R::Combine(l0, static_cast<A>(x[k]));
    l1 = R::Combine(l1, static_cast<A>(x[k + 1]));
    l2 = R::Combine(l2, static_cast<A>(x[k + 2]));
    l3 = R::Combine(l3, static_cast<A>(x[k + 3]));
  }
  A acc = R::Combine(R::Combine(l0, l1), R::Combine(l2, l3));
  for (; k < n; ++k) acc = R::Combine(acc, static_cast<A>(x[k]));
  return acc;
}

template <typename R>
struct Reduce {
  template <typename T>
  struct Kernel {
    using A = typename R::template Acc<T>;
    // The float32 sum (or mean) of n >= 1 rows of `inner` columns, in
    // double, by SumColumnsOf where the CPU has AVX-512F or AVX2: true if done.
    static bool SumColumns(const T* x, int64_t n, int64_t inner, A* a) {
#ifdef EAGERVM_REDUCE_AVX2
      if constexpr (std::is_base_of_v<SumR, R> && std::is_same_v<T, float>) {
        static const bool avx512 = __builtin_cpu_supports("avx512f");
        static const bool avx2 = __builtin_cpu_supports("avx2");
        if (n >= 1 && (avx512 || avx2)) {
          (avx512 ? SumColumnsAsDoubleAvx512 : SumColumnsAsDoubleAvx2)(x, n, inner, a);
          return true;
        }
      }
#endif
      return false;
    }
    static absl::Status Run(KernelContext& ctx) {
      const T* x = ctx.input<T>(0);
      T* out = ctx.output<T>(0);
      const Shape& shape = ctx.input_meta(0).shape;
      const int64_t axis = ctx.scalar(0).to<int64_t>();
      const Extent e = ExtentOf(shape, axis);
      if (e.outer == 0 || e.inner == 0) return absl::OkStatus();  // empty output
      // Rows with several accumulators only along the last axis (or over
      // everything): along another one, even with the dims after it all of
      // extent 1 ([n, 1] summed over n), the columns are added in order.
      if (e.inner == 1 && (axis < 0 || axis == shape.rank() - 1)) {
        for (int64_t o = 0; o < e.outer; ++o) {
          out[o] = R::template Finish<T>(ReduceRow<R, A>(x + o * e.n, e.n), e.n);
        }
        return absl::OkStatus();
      }
      // Reduce whole rows of `inner` elements at a time: vectorisable loops.
      A* acc = reinterpret_cast<A*>(out);
      if constexpr (!std::is_same_v<A, T>) {
        absl::StatusOr<void*> tmp = ctx.AllocateTemp(static_cast<size_t>(e.inner) * sizeof(A));
        if (!tmp.ok()) return tmp.status();
        acc = static_cast<A*>(*tmp);
      }
      for (int64_t o = 0; o < e.outer; ++o) {
        const T* base = x + o * e.n * e.inner;
        A* a = std::is_same_v<A, T> ? acc + o * e.inner : acc;
        if (!SumColumns(base, e.n, e.inner, a)) {
          for (int64_t j = 0; j < e.inner; ++j) a[j] = e.n > 0 ? static_cast<A>(base[j]) : A{};
          for (int64_t k = 1; k < e.n; ++k) {
            const T* row = base + k * e.inner;
            for (int64_t j = 0; j < e.inner; ++j) a[j] = R::Combine(a[j], static_cast<A>(row[j]));
          }
        }
        T* dst = out + o * e.inner;
        for (int64_t j = 0; j < e.inner; ++j) dst[j] = R::template Finish<T>(a[j], e.n);
      }
      return absl::OkStatus();
    }
  };
};

}  // namespace

void RegisterReduceCpuKernels(internal::OpRegistry& r) {
  RegisterCpu<Reduce<SumR>::Kernel>(r, builtin::kSum, kNumericDTypes);
  RegisterCpu<Reduce<MeanR>::Kernel>(r, builtin::kMean, kFloatDTypes);
  RegisterCpu<Reduce<MaxR>::Kernel>(r, builtin::kMax, kNumericDTypes);
  RegisterCpuTyped<Reduce<MaxR>::Kernel, uint8_t>(r, builtin::kMax);
}

}  // namespace eagervm::kernels
