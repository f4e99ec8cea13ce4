// Launchers of the optimizers' fused updates on the GPU (optim.cu):
// SgdStep, SgdMomentumStep and AdamStep (ops/optim_ops.h), float32 and
// float64. Plain C++17 with CUDA runtime types, as launchers.h. Each
// enqueues on `stream` and returns the launch error; n == 0 launches nothing.
//
// The CPU kernels' arithmetic exactly (kernels/cpu/optim_kernels.cc): each
// operation rounded to the dtype, in the same order, no fused multiply-add,
// IEEE division and square root, so the results are bitwise the CPU's. The
// host scalars arrive already rounded to the dtype (Scalar::to<T>, as the
// CPU rounds them); the hyperparameters held in tensors are device pointers.
#ifndef EAGERVM_KERNELS_CUDA_OPTIM_LAUNCHERS_H_
#define EAGERVM_KERNELS_CUDA_OPTIM_LAUNCHERS_H_

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/cuda/launchers.h"

namespace eagervm::kernels::cuda {

// p += neg_lr * (g + p * wd), or p += neg_lr * g without weight decay.
// `p`, `g`, `wd`, `neg_lr`: of dt (the scalars as double, holding the value
// already rounded to dt).
cudaError_t LaunchSgdStep(DT dt, void* p, const void* g, bool weight_decay, double wd,
                          double neg_lr, int64_t n, cudaStream_t stream);
// d = g (+ p * wd); buf = buf * momentum[0] + d; p += neg_lr * buf.
cudaError_t LaunchSgdMomentumStep(DT dt, void* p, const void* g, void* buf, const void* momentum,
                                  bool weight_decay, double wd, double neg_lr, int64_t n,
                                  cudaStream_t stream);
// m = m * b1 + (1 - b1) * g; v = v * b2 + (1 - b2) * g * g;
// p -= (m / (sqrt(v) * r2 + eps)) * s1, with betas = {b1, 1 - b1, b2, 1 - b2}
// and s1, r2 one element each, on the device.
cudaError_t LaunchAdamStep(DT dt, void* p, const void* g, void* m, void* v, const void* s1,
                           const void* r2, const void* betas, double eps, int64_t n,
                           cudaStream_t stream);

}  // namespace eagervm::kernels::cuda

#endif  // EAGERVM_KERNELS_CUDA_OPTIM_LAUNCHERS_H_
