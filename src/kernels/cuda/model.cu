// Comparisons, Minimum, Where, Abs, Pow, Softmax and LogSoftmax on the GPU.
// Elementwise kernels are grid-stride loops; (log)softmax runs one thread per
// row (max, then the sum of exp in double, then the outputs), the CPU
// kernel's arithmetic.
#include <cmath>

#include "kernels/cuda/device_util.cuh"
#include "kernels/cuda/model_launchers.h"

namespace eagervm::kernels::cuda {
namespace {

__device__ __forceinline__ void Offsets(const Broadcast3Args& p, int64_t i, int64_t* o) {
  o[0] = o[1] = o[2] = 0;
  for (int d = p.rank - 1; d >= 0; --d) {
    const int64_t idx = i % p.dims[d];
    i /= p.dims[d];
    o[0] += idx * p.stride[0][d];
    o[1] += idx * p.stride[1][d];
    o[2] += idx * p.stride[2][d];
  }
}

template <CompareKind Op, typename T>
__global__ void CompareKernel(bool* out, const T* a, const T* b, Broadcast3Args p, int64_t n) {
  EAGERVM_GRID_STRIDE(i, n) {
    int64_t o[3];
    Offsets(p, i, o);
    const T x = a[o[0]], y = b[o[1]];
    bool r = false;
    if constexpr (Op == CompareKind::kEq) r = x == y;
    if constexpr (Op == CompareKind::kNe) r = x != y;
    if constexpr (Op == CompareKind::kLt) r = x < y;
    if constexpr (Op == CompareKind::kLe) r = x <= y;
    if constexpr (Op == CompareKind::kGt) r = x > y;
    if constexpr (Op == CompareKind::kGe) r = x >= y;
    out[i] = r;
  }
}

template <typename T>
__global__ void MinimumKernel(T* out, const T* a, const T* b, Broadcast3Args p, int64_t n) {
  EAGERVM_GRID_STRIDE(i, n) {
    int64_t o[3];
    Offsets(p, i, o);
    const T x = a[o[0]], y = b[o[1]];
    out[i] = (x < y || x != x) ? x : y;
  }
}

template <typename T>
__global__ void WhereKernel(T* out, const bool* c, const T* a, const T* b, Broadcast3Args p,
                            int64_t n) {
  EAGERVM_GRID_STRIDE(i, n) {
    int64_t o[3];
    Offsets(p, i, o);
    out[i] = c[o[0]] ? a[o[1]] : b[o[2]];
  }
}

template <typename T>
__global__ void AbsKernel(T* out, const T* x, int64_t n) {
  EAGERVM_GRID_STRIDE(i, n) {
    if constexpr (kIsInt<T> && std::is_signed_v<T>) {
      out[i] = x[i] < 0 ? WrapSub(T{0}, x[i]) : x[i];
    } else if constexpr (std::is_floating_point_v<T>) {
      out[i] = fabs(x[i]);
    } else {
      out[i] = x[i];
    }
  }
}

template <typename T>
__global__ void PowKernel(T* out, const T* x, T p, int64_t n) {
  EAGERVM_GRID_STRIDE(i, n) out[i] = p == T{2} ? x[i] * x[i] : pow(x[i], p);
}

template <typename T>
__global__ void SoftmaxKernel(bool log_form, T* out, const T* x, int64_t outer, int64_t n,
                              int64_t inner) {
  EAGERVM_GRID_STRIDE(r, outer * inner) {
    const int64_t base = (r / inner) * n * inner + r % inner;
    const T* row = x + base;
    T* orow = out + base;
    T m = row[0];
    for (int64_t k = 1; k < n; ++k) m = MaxOf(m, row[k * inner]);
    double sum = 0;
    for (int64_t k = 0; k < n; ++k) sum += exp(static_cast<double>(row[k * inner] - m));
    if (log_form) {
      const double log_sum = log(sum);
      for (int64_t k = 0; k < n; ++k) {
        orow[k * inner] = static_cast<T>(static_cast<double>(row[k * inner] - m) - log_sum);
      }
    } else {
      const double inv = 1.0 / sum;
      for (int64_t k = 0; k < n; ++k) {
        orow[k * inner] = static_cast<T>(exp(static_cast<double>(row[k * inner] - m)) * inv);
      }
    }
  }
}

template <CompareKind Op, typename T>
void LaunchCmp(void* out, const void* a, const void* b, const Broadcast3Args& p, int64_t n,
               cudaStream_t s) {
  CompareKernel<Op, T><<<BlocksFor(n), kThreads, 0, s>>>(
      static_cast<bool*>(out), static_cast<const T*>(a), static_cast<const T*>(b), p, n);
}

}  // namespace

cudaError_t LaunchCompare(CompareKind op, DT dt, void* out, const void* a, const void* b,
                          const Broadcast3Args& p, int64_t n, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  return DispatchU8(dt, [&](auto tag) {
    using T = decltype(tag);
    switch (op) {
      case CompareKind::kEq:
        LaunchCmp<CompareKind::kEq, T>(out, a, b, p, n, s);
        break;
      case CompareKind::kNe:
        LaunchCmp<CompareKind::kNe, T>(out, a, b, p, n, s);
        break;
      case CompareKind::kLt:
        LaunchCmp<CompareKind::kLt, T>(out, a, b, p, n, s);
        break;
      case CompareKind::kLe:
        LaunchCmp<CompareKind::kLe, T>(out, a, b, p, n, s);
        break;
      case CompareKind::kGt:
        LaunchCmp<CompareKind::kGt, T>(out, a, b, p, n, s);
        break;
      case CompareKind::kGe:
        LaunchCmp<CompareKind::kGe, T>(out, a, b, p, n, s);
        break;
      case CompareKind::kMin:
        MinimumKernel<T><<<BlocksFor(n), kThreads, 0, s>>>(
            static_cast<T*>(out), static_cast<const T*>(a), static_cast<const T*>(b), p, n);
        break;
    }
    return cudaGetLastError();
  });
}

cudaError_t LaunchWhere(DT dt, void* out, const bool* cond, const void* a, const void* b,
                        const Broadcast3Args& p, int64_t n, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  return DispatchU8(dt, [&](auto tag) {
    using T = decltype(tag);
    WhereKernel<T><<<BlocksFor(n), kThreads, 0, s>>>(
        static_cast<T*>(out), cond, static_cast<const T*>(a), static_cast<const T*>(b), p, n);
    return cudaGetLastError();
  });
}

cudaError_t LaunchAbs(DT dt, void* out, const void* x, int64_t n, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  return DispatchU8(dt, [&](auto tag) {
    using T = decltype(tag);
    AbsKernel<T>
        <<<BlocksFor(n), kThreads, 0, s>>>(static_cast<T*>(out), static_cast<const T*>(x), n);
    return cudaGetLastError();
  });
}

cudaError_t LaunchPow(DT dt, void* out, const void* x, double exponent, int64_t n, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  if (dt == DT::kFloat32) {
    PowKernel<float><<<BlocksFor(n), kThreads, 0, s>>>(
        static_cast<float*>(out), static_cast<const float*>(x), static_cast<float>(exponent), n);
  } else if (dt == DT::kFloat64) {
    PowKernel<double><<<BlocksFor(n), kThreads, 0, s>>>(static_cast<double*>(out),
                                                        static_cast<const double*>(x), exponent, n);
  } else {
    return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

cudaError_t LaunchSoftmax(DT dt, bool log, void* out, const void* x, int64_t outer, int64_t n,
                          int64_t inner, cudaStream_t s) {
  const int64_t rows = outer * inner;
  if (rows == 0 || n == 0) return cudaSuccess;
  if (dt == DT::kFloat32) {
    SoftmaxKernel<float><<<BlocksFor(rows), kThreads, 0, s>>>(
        log, static_cast<float*>(out), static_cast<const float*>(x), outer, n, inner);
  } else if (dt == DT::kFloat64) {
    SoftmaxKernel<double><<<BlocksFor(rows), kThreads, 0, s>>>(
        log, static_cast<double*>(out), static_cast<const double*>(x), outer, n, inner);
  } else {
    return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

}  // namespace eagervm::kernels::cuda
