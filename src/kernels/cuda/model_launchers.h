// Launchers of the CUDA kernels for comparisons, Where, Minimum, Abs, Pow,
// Softmax and LogSoftmax (model.cu), Axpy, Gelu, LayerNorm, Argmax and Argmin
// (nn.cu). Plain C++17 with CUDA runtime types, as
// launchers.h. Each enqueues on `stream` and returns the launch error.
#ifndef EAGERVM_KERNELS_CUDA_MODEL_LAUNCHERS_H_
#define EAGERVM_KERNELS_CUDA_MODEL_LAUNCHERS_H_

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/cuda/launchers.h"

namespace eagervm::kernels::cuda {

enum class CompareKind : int { kEq, kNe, kLt, kLe, kGt, kGe, kMin };

// Output dims and per-dim element strides (0 = repeated) of up to three
// inputs broadcast to the output; rank >= 1.
struct Broadcast3Args {
  int rank = 1;
  int64_t dims[kMaxDims] = {};
  int64_t stride[3][kMaxDims] = {};
};

// kEq..kGe: bool out = a op b; kMin: out (of dt) = NaN-propagating minimum.
cudaError_t LaunchCompare(CompareKind op, DT dt, void* out, const void* a, const void* b,
                          const Broadcast3Args& args, int64_t n, cudaStream_t stream);
// out = cond ? a : b (inputs 0, 1, 2 of args).
cudaError_t LaunchWhere(DT dt, void* out, const bool* cond, const void* a, const void* b,
                        const Broadcast3Args& args, int64_t n, cudaStream_t stream);
cudaError_t LaunchAbs(DT dt, void* out, const void* x, int64_t n, cudaStream_t stream);
cudaError_t LaunchPow(DT dt, void* out, const void* x, double exponent, int64_t n,
                      cudaStream_t stream);
// (Log)softmax of x seen as [outer, n, inner] along n.
cudaError_t LaunchSoftmax(DT dt, bool log, void* out, const void* x, int64_t outer, int64_t n,
                          int64_t inner, cudaStream_t stream);

// self[i] += alpha * x[...]: `x` broadcast into self's shape (args.stride_b;
// args.stride_a is unused). int32, int64, float32, float64.
cudaError_t LaunchAxpy(DT dt, void* self, const void* x, ScalarArg alpha, const BroadcastArgs& args,
                       int64_t n, cudaStream_t stream);
// Gelu, erf form or (tanh_form) the tanh approximation; float32/float64.
cudaError_t LaunchGelu(DT dt, bool tanh_form, void* out, const void* x, int64_t n,
                       cudaStream_t stream);
// Each of `rows` rows of `d` elements normalised, scaled by w[d], shifted by b[d].
cudaError_t LaunchLayerNorm(DT dt, void* out, const void* x, const void* w, const void* b,
                            int64_t rows, int64_t d, double eps, cudaStream_t stream);
// int64 index of the largest (max) or smallest element of x seen as
// [outer, n, inner] along n (n >= 1); the first NaN wins. int32, int64,
// float32, float64, uint8.
cudaError_t LaunchArgReduce(bool max, DT dt, int64_t* out, const void* x, int64_t outer, int64_t n,
                            int64_t inner, cudaStream_t stream);

}  // namespace eagervm::kernels::cuda

#endif  // EAGERVM_KERNELS_CUDA_MODEL_LAUNCHERS_H_
