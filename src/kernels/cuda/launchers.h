// The CUDA kernels' launchers: plain C++17 with only CUDA runtime types, so
// the .cu files that define them include neither abseil nor fmt (nvcc 13
// cannot compile fmt 9). The .cc registration files turn their
// cudaError_t into statuses (device/cuda/cuda_status.h).
//
// Every launcher enqueues on `stream` and returns the launch error
// (cudaGetLastError); nothing synchronises. Element counts are int64.
#ifndef EAGERVM_KERNELS_CUDA_LAUNCHERS_H_
#define EAGERVM_KERNELS_CUDA_LAUNCHERS_H_

#include <cuda_runtime_api.h>

#include <cstdint>

namespace eagervm::kernels::cuda {

// Same values as eagervm::DType.
enum class DT : int { kBool, kInt32, kInt64, kFloat32, kFloat64, kUInt8, kFloat16, kBFloat16 };
enum class BinaryKind : int { kAdd, kSub, kMul, kDiv, kMax };
enum class UnaryKind : int { kRelu, kNeg, kExp, kLog, kSigmoid, kTanh, kSqrt };
enum class ReduceKind : int { kSum, kMean, kMax, kMin };

// A scalar argument already converted on the host: kernels of floating types
// read `f`, integer and bool kernels read `i`.
struct ScalarArg {
  double f = 0;
  int64_t i = 0;
};

inline constexpr int kMaxDims = 8;
// A broadcast of `a` and `b` to the output, collapsed (kernels/cpu/broadcast.h):
// output dims, and per-dim element strides of each input (0 = broadcast).
struct BroadcastArgs {
  int rank = 1;
  int64_t dims[kMaxDims] = {};
  int64_t stride_a[kMaxDims] = {};
  int64_t stride_b[kMaxDims] = {};
};

// A strided view: its dims and element strides (ops/strided.h).
struct StridedArgs {
  int rank = 0;
  int64_t dims[kMaxDims] = {};
  int64_t strides[kMaxDims] = {};
};
// scatter false: dst (compact, n elements) = the view `args` of src;
// scatter true: the view `args` of dst = src (compact). Elements of
// `elem_bytes` (1, 2, 4 or 8).
cudaError_t LaunchStridedCopy(int elem_bytes, bool scatter, void* dst, const void* src,
                              const StridedArgs& args, int64_t n, cudaStream_t stream);

// Fill and Cast take every DT; the other launchers the first five (16-bit
// floats run their float32 kernels through ops/widen.h, converted by Cast).
cudaError_t LaunchFill(DT dt, void* out, int64_t n, ScalarArg value, cudaStream_t stream);
// out = op(a, b) with broadcasting; `out` may alias `a` (AddInplace).
cudaError_t LaunchBinary(BinaryKind op, DT dt, void* out, const void* a, const void* b,
                         const BroadcastArgs& args, int64_t n, cudaStream_t stream);
// out = op(x, s); `out` may alias `x` (MulScalarInplace).
cudaError_t LaunchBinaryScalar(BinaryKind op, DT dt, void* out, const void* x, ScalarArg s,
                               int64_t n, cudaStream_t stream);
cudaError_t LaunchUnary(UnaryKind op, DT dt, void* out, const void* x, int64_t n,
                        cudaStream_t stream);
// The input seen as [outer, n, inner], reduced over n. `partials` is scratch
// of PartialsBytes(...) bytes (may be null when that is 0).
size_t ReducePartialsBytes(DT dt, ReduceKind kind, int64_t outer, int64_t n, int64_t inner);
cudaError_t LaunchReduce(ReduceKind kind, DT dt, void* out, const void* x, int64_t outer, int64_t n,
                         int64_t inner, void* partials, cudaStream_t stream);
cudaError_t LaunchCast(DT from, DT to, void* out, const void* x, int64_t n, cudaStream_t stream);
// Element i is a function of (key, i) only: the CPU kernel's generator.
cudaError_t LaunchRandomNormal(DT dt, void* out, int64_t n, uint64_t key, cudaStream_t stream);
// U[lo, hi) as the CPU kernel computes it; `top`: the largest dtype value below hi.
cudaError_t LaunchRandomUniform(DT dt, void* out, int64_t n, uint64_t key, double lo, double hi,
                                double top, cudaStream_t stream);
// out[cols, rows] = x[rows, cols]^T for elements of `elem_bytes` (1, 4 or 8).
cudaError_t LaunchTranspose(int elem_bytes, void* out, const void* x, int64_t rows, int64_t cols,
                            cudaStream_t stream);
// Integer c[m,n] = a[m,k] @ b[k,n], wrapping (cuBLAS has no integer GEMM of these types).
cudaError_t LaunchIntMatMul(DT dt, void* c, const void* a, const void* b, int64_t m, int64_t k,
                            int64_t n, cudaStream_t stream);
// Integer c[batch, m, n] = op(a) @ op(b) per batch entry, wrapping; op is a
// transpose where ta / tb say so (a stored [batch, m, k] or, ta, [batch, k, m];
// b [batch, k, n] or, tb, [batch, n, k]). MatMulTransposed is batch 1.
cudaError_t LaunchIntBatchMatMul(DT dt, void* c, const void* a, const void* b, int64_t batch,
                                 int64_t m, int64_t k, int64_t n, bool ta, bool tb,
                                 cudaStream_t stream);
// Test helper: spins ~`cycles` clock cycles on the device, then writes
// out[0..n) = value (float32). A slow producer for ordering tests.
cudaError_t LaunchSpinThenFill(float* out, int64_t n, float value, int64_t cycles,
                               cudaStream_t stream);
// Test-only: block 0 spins for `cycles`, then out[:n] = in[:n] (a slow reader
// of `in`, for write-after-read and release-after-read ordering tests).
cudaError_t LaunchSpinThenCopy(float* out, const float* in, int64_t n, int64_t cycles,
                               cudaStream_t s);
// Test-only: a kernel that traps (an asynchronous, sticky device fault).
cudaError_t LaunchTrap(cudaStream_t s);

}  // namespace eagervm::kernels::cuda

#endif  // EAGERVM_KERNELS_CUDA_LAUNCHERS_H_
