// CrossEntropy on the GPU, with the CPU kernel's arithmetic
// (kernels/cpu/softmax_kernels.cc; float16/bfloat16 as its float32 kernel on
// widened logits): per row, the maximum m (NaN propagates), the exps
// exp(x - m) in the logits' compute precision (float for float32 and the
// 16-bit floats, double for float64) summed in double as the count of exact
// 1s and the sum of the rest (log1p(rest) when the maximum is alone), then
// log_sum - (x[label] - m). Subtracting m keeps every exp <= 1, so logits of
// 1000 and more stay finite. One warp per row writes its loss (double) to
// scratch; one block sums the rows in a fixed tree and writes the mean
// (rounded to float first for the 16-bit floats, as the CPU's widened kernel
// rounds). Both reductions have a fixed shape, so results are deterministic.
#include <cmath>

#include "kernels/cuda/device_util.cuh"
#include "kernels/cuda/index_launchers.h"

namespace eagervm::kernels::cuda {
namespace {

constexpr unsigned kFullMask = 0xffffffffu;
constexpr int kWarp = 32;

template <typename T>
using AccOf = std::conditional_t<std::is_same_v<T, double>, double, float>;

template <typename T>
__device__ __forceinline__ AccOf<T> Widen(T v) {
  if constexpr (std::is_same_v<T, __half>) {
    return __half2float(v);
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return __bfloat162float(v);
  } else {
    return v;
  }
}

template <typename T>
__device__ __forceinline__ T Narrow(double v) {
  if constexpr (std::is_same_v<T, __half>) {
    return __float2half_rn(static_cast<float>(v));
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return __float2bfloat16_rn(static_cast<float>(v));
  } else {
    return static_cast<T>(v);
  }
}

__device__ __forceinline__ double ExpAcc(float v) { return expf(v); }
__device__ __forceinline__ double ExpAcc(double v) { return exp(v); }

__device__ __forceinline__ double WarpSum(double v) {
  // A butterfly: every lane adds the same two operands at each step, so
  // every lane ends with the same sum.
  for (int o = kWarp / 2; o > 0; o >>= 1) v += __shfl_xor_sync(kFullMask, v, o);
  return v;
}

// Warp w handles rows w, w + warps, ...: the loop bound is the same for the
// warp's 32 lanes, so all of them reach every shuffle.
template <typename T>
__global__ void RowLossKernel(const T* x, const int64_t* labels, int64_t rows, int64_t c,
                              double* loss) {
  using A = AccOf<T>;
  const int lane = static_cast<int>(threadIdx.x % kWarp);
  const int64_t warps = static_cast<int64_t>(gridDim.x) * (blockDim.x / kWarp);
  for (int64_t r = static_cast<int64_t>(blockIdx.x) * (blockDim.x / kWarp) + threadIdx.x / kWarp;
       r < rows; r += warps) {
    const T* row = x + r * c;
    A m = -INFINITY;
    for (int64_t k = lane; k < c; k += kWarp) m = MaxOf(m, Widen(row[k]));
    for (int o = kWarp / 2; o > 0; o >>= 1) m = MaxOf(m, __shfl_xor_sync(kFullMask, m, o));
    double ones = 0, rest = 0;
    for (int64_t k = lane; k < c; k += kWarp) {
      const double v = ExpAcc(static_cast<A>(Widen(row[k]) - m));
      if (v == 1) {
        ones += 1;
      } else {
        rest += v;
      }
    }
    ones = WarpSum(ones);
    rest = WarpSum(rest);
    if (lane == 0) {
      const double log_sum = ones == 1 ? log1p(rest) : log(ones + rest);
      const int64_t label = labels[r];
      loss[r] = (label >= 0 && label < c)
                    ? log_sum - static_cast<double>(static_cast<A>(Widen(row[label]) - m))
                    : NAN;  // never: the labels were checked
    }
  }
}

// One block: the mean of the row losses.
template <typename T>
__global__ void MeanKernel(const double* loss, int64_t rows, T* out) {
  __shared__ double smem[kThreads];
  double s = 0;
  for (int64_t r = threadIdx.x; r < rows; r += blockDim.x) s += loss[r];
  smem[threadIdx.x] = s;
  __syncthreads();
  for (unsigned h = blockDim.x / 2; h > 0; h >>= 1) {
    if (threadIdx.x < h) smem[threadIdx.x] += smem[threadIdx.x + h];
    __syncthreads();
  }
  // The mean of nothing is NaN (as numpy's and torch's).
  if (threadIdx.x == 0) *out = Narrow<T>(rows == 0 ? NAN : smem[0] / static_cast<double>(rows));
}

template <typename T>
cudaError_t Launch(T* out, const T* x, const int64_t* labels, int64_t rows, int64_t c, double* loss,
                   cudaStream_t s) {
  if (rows > 0) {
    if (loss == nullptr) return cudaErrorInvalidValue;
    RowLossKernel<T><<<BlocksFor(rows * kWarp), kThreads, 0, s>>>(x, labels, rows, c, loss);
    if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
  }
  MeanKernel<T><<<1, kThreads, 0, s>>>(loss, rows, out);
  return cudaGetLastError();
}

}  // namespace

size_t CrossEntropyScratchBytes(int64_t rows) { return static_cast<size_t>(rows) * sizeof(double); }

cudaError_t LaunchCrossEntropy(DT dt, void* out, const void* logits, const int64_t* labels,
                               int64_t rows, int64_t classes, void* scratch, cudaStream_t s) {
  double* loss = static_cast<double*>(scratch);
  switch (dt) {
    case DT::kFloat32:
      return Launch(static_cast<float*>(out), static_cast<const float*>(logits), labels, rows,
                    classes, loss, s);
    case DT::kFloat64:
      return Launch(static_cast<double*>(out), static_cast<const double*>(logits), labels, rows,
                    classes, loss, s);
    case DT::kFloat16:
      return Launch(static_cast<__half*>(out), static_cast<const __half*>(logits), labels, rows,
                    classes, loss, s);
    case DT::kBFloat16:
      return Launch(static_cast<__nv_bfloat16*>(out), static_cast<const __nv_bfloat16*>(logits),
                    labels, rows, classes, loss, s);
    default:
      return cudaErrorInvalidValue;
  }
}

}  // namespace eagervm::kernels::cuda
