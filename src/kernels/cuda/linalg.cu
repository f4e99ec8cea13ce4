// Transpose (tiled through shared memory) and the integer MatMul, plain and
// batched with transposed operands (cuBLAS covers float32/float64 in
// math_kernels.cc). Also the test-only slow
// producer used to prove cross-stream ordering.
#include <algorithm>

#include "kernels/cuda/device_util.cuh"

namespace eagervm::kernels::cuda {
namespace {

constexpr int kTile = 32;
constexpr int kRowsPerPass = 8;

// Block (32 x 8) moves a 32x32 tile: coalesced reads of x and writes of out.
// The grid is capped (gridDim.y <= 65535, i.e. 2,097,120 rows in one pass),
// so each block strides over the tiles: any rows x cols works, as on the CPU.
// The loop bounds depend only on blockIdx/gridDim, so every thread of a block
// reaches the same __syncthreads().
template <typename T>
__global__ void TransposeKernel(T* out, const T* x, int64_t rows, int64_t cols) {
  __shared__ T tile[kTile][kTile + 1];  // +1: no shared-memory bank conflicts
  for (int64_t r0 = static_cast<int64_t>(blockIdx.y) * kTile; r0 < rows;
       r0 += static_cast<int64_t>(gridDim.y) * kTile) {
    for (int64_t c0 = static_cast<int64_t>(blockIdx.x) * kTile; c0 < cols;
         c0 += static_cast<int64_t>(gridDim.x) * kTile) {
      for (int dy = threadIdx.y; dy < kTile; dy += kRowsPerPass) {
        const int64_t r = r0 + dy, c = c0 + threadIdx.x;
        if (r < rows && c < cols) tile[dy][threadIdx.x] = x[r * cols + c];
      }
      __syncthreads();
      for (int dy = threadIdx.y; dy < kTile; dy += kRowsPerPass) {
        const int64_t c = c0 + dy, r = r0 + threadIdx.x;  // out is [cols, rows]
        if (c < cols && r < rows) out[c * rows + r] = tile[threadIdx.x][dy];
      }
      __syncthreads();  // the tile is refilled by the next pass
    }
  }
}

template <typename T>
cudaError_t Transpose(void* out, const void* x, int64_t rows, int64_t cols, cudaStream_t s) {
  constexpr int64_t kMaxGridX = 1 << 20, kMaxGridY = 65535;  // x: plenty, y: the hardware's
  const int64_t gx = std::min<int64_t>((cols + kTile - 1) / kTile, kMaxGridX),
                gy = std::min<int64_t>((rows + kTile - 1) / kTile, kMaxGridY);
  TransposeKernel<T>
      <<<dim3(static_cast<unsigned>(gx), static_cast<unsigned>(gy)), dim3(kTile, kRowsPerPass), 0,
         s>>>(static_cast<T*>(out), static_cast<const T*>(x), rows, cols);
  return cudaGetLastError();
}

template <typename T>
__global__ void IntMatMulKernel(T* c, const T* a, const T* b, int64_t m, int64_t k, int64_t n) {
  EAGERVM_GRID_STRIDE(idx, m * n) {
    const int64_t i = idx / n, j = idx % n;
    T acc{0};
    for (int64_t p = 0; p < k; ++p) acc = WrapAdd(acc, WrapMul(a[i * k + p], b[p * n + j]));
    c[idx] = acc;
  }
}

// c[b] = op(a[b]) @ op(b[b]) for `batch` pairs, op a transpose where ta / tb
// say so: a is stored [m, k] (or [k, m] when ta), b [k, n] (or [n, k]).
template <typename T>
__global__ void IntBatchMatMulKernel(T* c, const T* a, const T* b, int64_t batch, int64_t m,
                                     int64_t k, int64_t n, bool ta, bool tb) {
  EAGERVM_GRID_STRIDE(idx, batch * m * n) {
    const int64_t bi = idx / (m * n), r = idx % (m * n);
    const int64_t i = r / n, j = r % n;
    const T* ab = a + bi * m * k;
    const T* bb = b + bi * k * n;
    T acc{0};
    for (int64_t p = 0; p < k; ++p) {
      const T x = ta ? ab[p * m + i] : ab[i * k + p];
      const T y = tb ? bb[j * k + p] : bb[p * n + j];
      acc = WrapAdd(acc, WrapMul(x, y));
    }
    c[idx] = acc;
  }
}

__global__ void SpinThenFillKernel(float* out, int64_t n, float value, int64_t cycles) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    const long long start = clock64();
    while (clock64() - start < cycles) {
    }
  }
  __syncthreads();
  // Only block 0 spins; the others would race ahead, so block 0 writes all.
  if (blockIdx.x == 0) {
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x) out[i] = value;
  }
}

__global__ void SpinThenCopyKernel(float* out, const float* in, int64_t n, int64_t cycles) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    const long long start = clock64();
    while (clock64() - start < cycles) {
    }
  }
  __syncthreads();
  if (blockIdx.x == 0) {
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x) out[i] = in[i];
  }
}

__global__ void TrapKernel() { __trap(); }

}  // namespace

cudaError_t LaunchTranspose(int elem_bytes, void* out, const void* x, int64_t rows, int64_t cols,
                            cudaStream_t s) {
  if (rows == 0 || cols == 0) return cudaSuccess;
  switch (elem_bytes) {
    case 1:
      return Transpose<uint8_t>(out, x, rows, cols, s);
    case 2:
      return Transpose<uint16_t>(out, x, rows, cols, s);
    case 4:
      return Transpose<uint32_t>(out, x, rows, cols, s);
    case 8:
      return Transpose<uint64_t>(out, x, rows, cols, s);
  }
  return cudaErrorInvalidValue;
}

cudaError_t LaunchIntMatMul(DT dt, void* c, const void* a, const void* b, int64_t m, int64_t k,
                            int64_t n, cudaStream_t s) {
  if (m == 0 || n == 0) return cudaSuccess;
  if (dt == DT::kInt32) {
    IntMatMulKernel<int32_t><<<BlocksFor(m * n), kThreads, 0, s>>>(
        static_cast<int32_t*>(c), static_cast<const int32_t*>(a), static_cast<const int32_t*>(b), m,
        k, n);
  } else if (dt == DT::kInt64) {
    IntMatMulKernel<int64_t><<<BlocksFor(m * n), kThreads, 0, s>>>(
        static_cast<int64_t*>(c), static_cast<const int64_t*>(a), static_cast<const int64_t*>(b), m,
        k, n);
  } else {
    return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

cudaError_t LaunchIntBatchMatMul(DT dt, void* c, const void* a, const void* b, int64_t batch,
                                 int64_t m, int64_t k, int64_t n, bool ta, bool tb,
                                 cudaStream_t s) {
  const int64_t total = batch * m * n;
  if (total == 0) return cudaSuccess;
  if (dt == DT::kInt32) {
    IntBatchMatMulKernel<int32_t><<<BlocksFor(total), kThreads, 0, s>>>(
        static_cast<int32_t*>(c), static_cast<const int32_t*>(a), static_cast<const int32_t*>(b),
        batch, m, k, n, ta, tb);
  } else if (dt == DT::kInt64) {
    IntBatchMatMulKernel<int64_t><<<BlocksFor(total), kThreads, 0, s>>>(
        static_cast<int64_t*>(c), static_cast<const int64_t*>(a), static_cast<const int64_t*>(b),
        batch, m, k, n, ta, tb);
  } else {
    return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

cudaError_t LaunchSpinThenFill(float* out, int64_t n, float value, int64_t cycles, cudaStream_t s) {
  SpinThenFillKernel<<<1, kThreads, 0, s>>>(out, n, value, cycles);
  return cudaGetLastError();
}

cudaError_t LaunchSpinThenCopy(float* out, const float* in, int64_t n, int64_t cycles,
                               cudaStream_t s) {
  SpinThenCopyKernel<<<1, kThreads, 0, s>>>(out, in, n, cycles);
  return cudaGetLastError();
}

cudaError_t LaunchTrap(cudaStream_t s) {
  TrapKernel<<<1, 1, 0, s>>>();
  return cudaGetLastError();
}

}  // namespace eagervm::kernels::cuda
