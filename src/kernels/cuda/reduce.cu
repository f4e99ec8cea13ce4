// Reductions (Sum Mean Max Min; Max and Min also of uint8) of an input seen
// as [outer, n, inner] over n.
//  - inner == 1 (rows, or "everything"): each row is split into up to 1024
//    chunks reduced by blocks in shared memory; a second pass combines the
//    chunks. float32 sums accumulate in double, like the CPU kernels.
//  - inner > 1: one thread per output element walks n with coalesced loads
//    (fine unless outer*inner is tiny and n huge).
#include <climits>
#include <cmath>

#include "kernels/cuda/device_util.cuh"

namespace eagervm::kernels::cuda {
namespace {

constexpr int64_t kMaxChunks = 1024;
constexpr int64_t kPerThread = 16;
constexpr unsigned kMaxGridY = 65535;

template <ReduceKind K, typename T>
struct R {
  // Sum/Mean of float32 in double; integers in their own (wrapping) type.
  static constexpr bool kExtreme = K == ReduceKind::kMax || K == ReduceKind::kMin;
  using Acc = std::conditional_t<!kExtreme && std::is_same_v<T, float>, double, T>;
  static __device__ __forceinline__ Acc Identity() {
    if constexpr (!kExtreme) {
      return Acc{0};
    } else if constexpr (K == ReduceKind::kMin) {
      if constexpr (std::is_same_v<Acc, float>) {
        return HUGE_VALF;
      } else if constexpr (std::is_same_v<Acc, double>) {
        return HUGE_VAL;
      } else if constexpr (std::is_same_v<Acc, int32_t>) {
        return INT32_MAX;
      } else if constexpr (std::is_same_v<Acc, int64_t>) {
        return INT64_MAX;
      } else if constexpr (std::is_same_v<Acc, uint8_t>) {
        return UINT8_MAX;
      } else {
        return Acc{0};
      }
    } else if constexpr (std::is_same_v<Acc, float>) {
      return -HUGE_VALF;
    } else if constexpr (std::is_same_v<Acc, double>) {
      return -HUGE_VAL;
    } else if constexpr (std::is_same_v<Acc, int32_t>) {
      return INT32_MIN;
    } else if constexpr (std::is_same_v<Acc, int64_t>) {
      return INT64_MIN;
    } else {
      return Acc{0};
    }
  }
  static __device__ __forceinline__ Acc Combine(Acc a, Acc b) {
    if constexpr (K == ReduceKind::kMax)
      return MaxOf(a, b);
    else if constexpr (K == ReduceKind::kMin)
      return (a < b || a != a) ? a : b;  // NaN propagates, as MaxOf
    else
      return WrapAdd(a, b);
  }
  static __device__ __forceinline__ T Finish(Acc a, int64_t n) {
    if constexpr (K == ReduceKind::kMean)
      return static_cast<T>(a / static_cast<Acc>(n));
    else
      return static_cast<T>(a);
  }
};

// Block-wide reduction of one value per thread; the result is valid in thread 0.
template <typename Red, typename Acc>
__device__ Acc BlockReduce(Acc v) {
  extern __shared__ unsigned char smem_raw[];
  Acc* smem = reinterpret_cast<Acc*>(smem_raw);
  smem[threadIdx.x] = v;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) smem[threadIdx.x] = Red::Combine(smem[threadIdx.x], smem[threadIdx.x + s]);
    __syncthreads();
  }
  return smem[0];
}

// grid (chunks, rows): block (c, r) reduces chunk c of row r. With one chunk
// it writes the finished value, else a partial.
template <ReduceKind K, typename T>
__global__ void RowChunkKernel(const T* x, int64_t outer, int64_t n, int64_t chunk, T* out,
                               typename R<K, T>::Acc* partials) {
  using Red = R<K, T>;
  using Acc = typename Red::Acc;
  for (int64_t row = blockIdx.y; row < outer; row += gridDim.y) {
    const int64_t begin = static_cast<int64_t>(blockIdx.x) * chunk;
    const int64_t end = begin + chunk < n ? begin + chunk : n;
    const T* base = x + row * n;
    Acc acc = Red::Identity();
    for (int64_t k = begin + threadIdx.x; k < end; k += blockDim.x) {
      acc = Red::Combine(acc, static_cast<Acc>(base[k]));
    }
    acc = BlockReduce<Red>(acc);
    if (threadIdx.x == 0) {
      if (gridDim.x == 1)
        out[row] = Red::Finish(acc, n);
      else
        partials[row * gridDim.x + blockIdx.x] = acc;
    }
    __syncthreads();  // smem is reused by the next row
  }
}

template <ReduceKind K, typename T>
__global__ void CombineChunksKernel(const typename R<K, T>::Acc* partials, int64_t outer,
                                    int64_t chunks, int64_t n, T* out) {
  using Red = R<K, T>;
  using Acc = typename Red::Acc;
  for (int64_t row = blockIdx.x; row < outer; row += gridDim.x) {
    Acc acc = Red::Identity();
    for (int64_t c = threadIdx.x; c < chunks; c += blockDim.x)
      acc = Red::Combine(acc, partials[row * chunks + c]);
    acc = BlockReduce<Red>(acc);
    if (threadIdx.x == 0) out[row] = Red::Finish(acc, n);
    __syncthreads();
  }
}

template <ReduceKind K, typename T>
__global__ void InnerKernel(const T* x, int64_t outer, int64_t n, int64_t inner, T* out) {
  using Red = R<K, T>;
  using Acc = typename Red::Acc;
  EAGERVM_GRID_STRIDE(i, outer * inner) {
    const int64_t o = i / inner, j = i % inner;
    const T* base = x + o * n * inner + j;
    Acc acc = Red::Identity();
    for (int64_t k = 0; k < n; ++k) acc = Red::Combine(acc, static_cast<Acc>(base[k * inner]));
    out[i] = Red::Finish(acc, n);
  }
}

int64_t ChunksFor(int64_t n) {
  int64_t c = (n + kThreads * kPerThread - 1) / (kThreads * kPerThread);
  return c < 1 ? 1 : (c > kMaxChunks ? kMaxChunks : c);
}

template <ReduceKind K, typename T>
cudaError_t Reduce(T* out, const T* x, int64_t outer, int64_t n, int64_t inner, void* partials_raw,
                   cudaStream_t s) {
  using Acc = typename R<K, T>::Acc;
  if (outer == 0 || inner == 0) return cudaSuccess;
  const size_t smem = kThreads * sizeof(Acc);
  if (inner > 1) {
    InnerKernel<K, T><<<BlocksFor(outer * inner), kThreads, 0, s>>>(x, outer, n, inner, out);
    return cudaGetLastError();
  }
  const int64_t chunks = ChunksFor(n);
  const int64_t chunk = (n + chunks - 1) / chunks;
  const unsigned rows = static_cast<unsigned>(outer < kMaxGridY ? outer : kMaxGridY);
  auto* partials = static_cast<Acc*>(partials_raw);
  RowChunkKernel<K, T><<<dim3(static_cast<unsigned>(chunks), rows), kThreads, smem, s>>>(
      x, outer, n, chunk < 1 ? 1 : chunk, out, partials);
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess || chunks == 1) return e;
  CombineChunksKernel<K, T><<<rows, kThreads, smem, s>>>(partials, outer, chunks, n, out);
  return cudaGetLastError();
}

template <typename F>
cudaError_t WithKind(ReduceKind k, F&& f) {
  switch (k) {
    case ReduceKind::kSum:
      return f(std::integral_constant<ReduceKind, ReduceKind::kSum>{});
    case ReduceKind::kMean:
      return f(std::integral_constant<ReduceKind, ReduceKind::kMean>{});
    case ReduceKind::kMax:
      return f(std::integral_constant<ReduceKind, ReduceKind::kMax>{});
    case ReduceKind::kMin:
      return f(std::integral_constant<ReduceKind, ReduceKind::kMin>{});
  }
  return cudaErrorInvalidValue;
}

}  // namespace

size_t ReducePartialsBytes(DT dt, ReduceKind kind, int64_t outer, int64_t n, int64_t inner) {
  if (inner != 1 || outer == 0) return 0;
  const int64_t chunks = ChunksFor(n);
  if (chunks == 1) return 0;
  size_t acc = 8;  // every accumulator is at most 8 bytes; int32 Max/Sum use 4
  const bool extreme = kind == ReduceKind::kMax || kind == ReduceKind::kMin;
  if (dt == DT::kInt32 || (dt == DT::kFloat32 && extreme)) acc = 4;
  return static_cast<size_t>(outer) * static_cast<size_t>(chunks) * acc;
}

cudaError_t LaunchReduce(ReduceKind kind, DT dt, void* out, const void* x, int64_t outer, int64_t n,
                         int64_t inner, void* partials, cudaStream_t s) {
  return WithKind(kind, [&](auto kind_tag) {
    constexpr ReduceKind K = decltype(kind_tag)::value;
    if (dt == DT::kUInt8) {  // Max and Min only (the identity of Max is 0)
      if constexpr (K == ReduceKind::kMax || K == ReduceKind::kMin) {
        return Reduce<K, uint8_t>(static_cast<uint8_t*>(out), static_cast<const uint8_t*>(x), outer,
                                  n, inner, partials, s);
      } else {
        return cudaErrorInvalidValue;  // not registered: Sum of uint8 is int64
      }
    }
    return Dispatch(dt, [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_same_v<T, bool>) {
        return cudaErrorInvalidValue;  // not registered: bool has no arithmetic
      } else {
        return Reduce<decltype(kind_tag)::value, T>(static_cast<T*>(out), static_cast<const T*>(x),
                                                    outer, n, inner, partials, s);
      }
    });
  });
}

}  // namespace eagervm::kernels::cuda
