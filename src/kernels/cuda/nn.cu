// Axpy, Gelu, LayerNorm, Argmax and Argmin on the GPU, with the CPU kernels'
// arithmetic (kernels/cpu/inplace_kernels.cc, nn_kernels.cc, index_kernels.cc):
//  - Axpy: self[i] += alpha * x[broadcast i], rounded after the product and
//    after the sum (no fused multiply-add), integers wrapping;
//  - Gelu: the erf form or the tanh approximation, in the element type;
//  - LayerNorm: one block per row; mean and biased variance in double, in
//    two passes, then (x - mean) * inv * w + b in double;
//  - Argmax/Argmin: one thread per output element walks its line; the first
//    NaN wins, else the first extreme (ties keep the lower index).
#include <cmath>

#include "kernels/cuda/device_util.cuh"
#include "kernels/cuda/model_launchers.h"

namespace eagervm::kernels::cuda {
namespace {

template <typename T>
__device__ __forceinline__ T MulAdd(T a, T alpha, T b) {  // a + alpha * b, two roundings
  if constexpr (std::is_same_v<T, float>) {
    return __fadd_rn(a, __fmul_rn(alpha, b));
  } else if constexpr (std::is_same_v<T, double>) {
    return __dadd_rn(a, __dmul_rn(alpha, b));
  } else {
    return WrapAdd(a, WrapMul(alpha, b));
  }
}

template <typename T>
__global__ void AxpyKernel(T* self, const T* x, T alpha, BroadcastArgs p, int64_t n) {
  EAGERVM_GRID_STRIDE(i, n) {
    int64_t rem = i, ix = 0;
    for (int d = p.rank - 1; d >= 0; --d) {
      const int64_t idx = rem % p.dims[d];
      rem /= p.dims[d];
      ix += idx * p.stride_b[d];
    }
    self[i] = MulAdd(self[i], alpha, x[ix]);
  }
}

template <typename T>
__global__ void GeluKernel(T* out, const T* x, bool tanh_form, int64_t n) {
  if (tanh_form) {
    const T k = static_cast<T>(0.7978845608028654);  // sqrt(2 / pi)
    EAGERVM_GRID_STRIDE(i, n) {
      const T v = x[i];
      out[i] = T(0.5) * v * (T(1) + tanh(k * (v + T(0.044715) * v * v * v)));
    }
  } else {
    const T r = static_cast<T>(0.7071067811865476);  // 1 / sqrt(2)
    EAGERVM_GRID_STRIDE(i, n) out[i] = T(0.5) * x[i] * (T(1) + erf(x[i] * r));
  }
}

// Sum of one double per thread over the block; every thread gets the result.
__device__ double BlockSum(double v, double* smem) {
  smem[threadIdx.x] = v;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) smem[threadIdx.x] += smem[threadIdx.x + s];
    __syncthreads();
  }
  const double r = smem[0];
  __syncthreads();  // smem is reused by the caller's next reduction
  return r;
}

// Block b handles rows b, b + gridDim.x, ...; the loop bound depends only on
// blockIdx/gridDim, so every thread of a block reaches each __syncthreads().
template <typename T>
__global__ void LayerNormKernel(T* out, const T* x, const T* w, const T* b, int64_t rows, int64_t d,
                                double eps) {
  __shared__ double smem[kThreads];
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* row = x + r * d;
    double sum = 0;
    for (int64_t k = threadIdx.x; k < d; k += blockDim.x) sum += static_cast<double>(row[k]);
    const double mean = BlockSum(sum, smem) / static_cast<double>(d);
    double sq = 0;
    for (int64_t k = threadIdx.x; k < d; k += blockDim.x) {
      const double c = static_cast<double>(row[k]) - mean;
      sq += c * c;
    }
    const double inv = 1.0 / sqrt(BlockSum(sq, smem) / static_cast<double>(d) + eps);
    T* orow = out + r * d;
    for (int64_t k = threadIdx.x; k < d; k += blockDim.x) {
      orow[k] =
          static_cast<T>((static_cast<double>(row[k]) - mean) * inv * static_cast<double>(w[k]) +
                         static_cast<double>(b[k]));
    }
  }
}

template <bool kMax, typename T>
__global__ void ArgReduceKernel(int64_t* out, const T* x, int64_t outer, int64_t n, int64_t inner) {
  EAGERVM_GRID_STRIDE(i, outer * inner) {
    const T* row = x + (i / inner) * n * inner + i % inner;
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
    out[i] = best;
  }
}

}  // namespace

cudaError_t LaunchAxpy(DT dt, void* self, const void* x, ScalarArg alpha, const BroadcastArgs& p,
                       int64_t n, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  return DispatchU8(dt, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, bool>) {
      return cudaErrorInvalidValue;  // not registered: bool has no arithmetic
    } else {
      AxpyKernel<T><<<BlocksFor(n), kThreads, 0, s>>>(
          static_cast<T*>(self), static_cast<const T*>(x), FromScalar<T>(alpha), p, n);
      return cudaGetLastError();
    }
  });
}

cudaError_t LaunchGelu(DT dt, bool tanh_form, void* out, const void* x, int64_t n, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  if (dt == DT::kFloat32) {
    GeluKernel<float><<<BlocksFor(n), kThreads, 0, s>>>(static_cast<float*>(out),
                                                        static_cast<const float*>(x), tanh_form, n);
  } else if (dt == DT::kFloat64) {
    GeluKernel<double><<<BlocksFor(n), kThreads, 0, s>>>(
        static_cast<double*>(out), static_cast<const double*>(x), tanh_form, n);
  } else {
    return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

cudaError_t LaunchLayerNorm(DT dt, void* out, const void* x, const void* w, const void* b,
                            int64_t rows, int64_t d, double eps, cudaStream_t s) {
  if (rows == 0 || d == 0) return cudaSuccess;
  const unsigned blocks = static_cast<unsigned>(rows < 65535 * 8 ? rows : 65535 * 8);
  if (dt == DT::kFloat32) {
    LayerNormKernel<float><<<blocks, kThreads, 0, s>>>(
        static_cast<float*>(out), static_cast<const float*>(x), static_cast<const float*>(w),
        static_cast<const float*>(b), rows, d, eps);
  } else if (dt == DT::kFloat64) {
    LayerNormKernel<double><<<blocks, kThreads, 0, s>>>(
        static_cast<double*>(out), static_cast<const double*>(x), static_cast<const double*>(w),
        static_cast<const double*>(b), rows, d, eps);
  } else {
    return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

cudaError_t LaunchArgReduce(bool max, DT dt, int64_t* out, const void* x, int64_t outer, int64_t n,
                            int64_t inner, cudaStream_t s) {
  const int64_t m = outer * inner;
  if (m == 0) return cudaSuccess;
  if (n <= 0) return cudaErrorInvalidValue;  // the op rejects an empty axis
  return DispatchAll(dt, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, bool> || kIsHalf<T>) {
      return cudaErrorInvalidValue;  // not registered (16-bit: widened to float32)
    } else {
      if (max) {
        ArgReduceKernel<true, T>
            <<<BlocksFor(m), kThreads, 0, s>>>(out, static_cast<const T*>(x), outer, n, inner);
      } else {
        ArgReduceKernel<false, T>
            <<<BlocksFor(m), kThreads, 0, s>>>(out, static_cast<const T*>(x), outer, n, inner);
      }
      return cudaGetLastError();
    }
  });
}

}  // namespace eagervm::kernels::cuda
