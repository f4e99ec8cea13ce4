// The optimizers' fused updates (optim::Sgd, optim::Adam; docs/autograd.md):
// one instruction per parameter that computes, element by element, the same
// float operations in the same order as the optimizer's unfused in-place ops,
// so both paths give bitwise equal parameters and state.
//
// Threads: any thread; each call validates on the calling thread and queues
// one instruction (never blocks, except for back-pressure). Tensors are
// retained by the instruction.
#ifndef EAGERVM_OPS_OPTIM_OPS_H_
#define EAGERVM_OPS_OPTIM_OPS_H_

#include <initializer_list>

#include "absl/status/status.h"
#include "eagervm/tensor.h"

namespace eagervm::internal {

// Whether the fused Sgd (with or without momentum) and Adam updates have a
// kernel for `dtype` on `device`'s backend (CPU: float32 and float64). The
// optimizers fall back to their unfused ops where not.
bool HasFusedSgdKernel(Device device, DType dtype, bool momentum);
bool HasFusedAdamKernel(Device device, DType dtype);

// The constant hyperparameters of a fused update, as a 1-D tensor of `dtype`
// (a fused-kernel dtype) on `device`: each value rounded to dtype as a Scalar
// argument of an op is (Scalar::to). An instruction has room for two
// scalars; the others travel as this tensor, made once by the optimizer.
Tensor FusedHyperparameters(Device device, DType dtype, std::initializer_list<double> values);

// Sgd: d = weight_decay != 0 ? grad + param * weight_decay : grad;
// with a momentum buffer: buf = buf * momentum + d, d = buf; then
// param = param + (-lr) * d. `momentum_buffer` null: no momentum; else
// `momentum` is FusedHyperparameters({momentum}).
absl::Status SgdStep(const Tensor& param, const Tensor& grad, const Tensor* momentum_buffer,
                     const Tensor* momentum, double lr, double weight_decay);

// Adam: m = m * beta1 + (1 - beta1) * grad; v = v * beta2 + (1 - beta2) *
// (grad * grad); param = param - (m / (sqrt(v) * r2 + eps)) * s1, with the
// step size s1 = lr / (1 - beta1^t) and r2 = 1 / sqrt(1 - beta2^t) as 0-d
// tensors of param's dtype and device (so a captured step replays with the
// right step count): one division and one square root per element.
// `betas`: FusedHyperparameters({beta1, 1 - beta1, beta2, 1 - beta2}).
absl::Status AdamStep(const Tensor& param, const Tensor& grad, const Tensor& m, const Tensor& v,
                      const Tensor& s1, const Tensor& r2, const Tensor& betas, double eps);

}  // namespace eagervm::internal

#endif  // EAGERVM_OPS_OPTIM_OPS_H_
