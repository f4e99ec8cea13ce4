// Fused backward kernels of autograd formulas (autograd/grad_nn.cc,
// grad_elementwise.cc): one instruction each where the formula composed of
// ordinary ops would be a dozen, each reading and writing the whole tensor.
// Not part of the public op set: the formulas call them where the backend
// has a kernel for the dtype (CPU: float32 and float64) and compose the
// same math from ops elsewhere.
//
// Threads: any thread; each call validates on the calling thread and queues
// one instruction (never blocks, except for back-pressure). Tensors are
// retained by the instruction.
#ifndef EAGERVM_OPS_GRAD_OPS_H_
#define EAGERVM_OPS_GRAD_OPS_H_

#include <vector>

#include "absl/status/statusor.h"
#include "eagervm/tensor.h"

namespace eagervm::internal {

bool HasGeluGradKernel(Device device, DType dtype);
bool HasReluGradKernel(Device device, DType dtype);
bool HasLayerNormGradKernel(Device device, DType dtype);
bool HasSoftmaxGradKernel(Device device, DType dtype);
bool HasCrossEntropyGradKernel(Device device, DType dtype);

// g where y = Relu(x) > 0, else 0; g has y's dtype, device and shape.
Tensor ReluGrad(const Tensor& y, const Tensor& g);

// g * Gelu'(x) (erf form, or the tanh approximation's derivative), for
// y = Gelu(x, tanh_approximation); y and g have x's dtype, device and
// shape. An error tensor names the mismatch.
Tensor GeluGrad(const Tensor& x, const Tensor& y, const Tensor& g, bool tanh_approximation);

// y * (g - sum(g * y)) along `axis` (in [0, rank)): the gradient of x for
// y = Softmax(x, axis); g has y's dtype, device and shape.
Tensor SoftmaxGrad(const Tensor& y, const Tensor& g, int64_t axis);

// (softmax(logits) - one_hot(labels)) * (g / N): the gradient of logits
// [N, C] for loss = CrossEntropy(logits, labels) (labels int64 [N]) and the
// loss's gradient g (0-d, logits' dtype and device), as the composed ops
// compute it (the same bits on the CPU). A label out of range, found when it
// runs, poisons the output with a message naming the label.
Tensor CrossEntropyGrad(const Tensor& logits, const Tensor& labels, const Tensor& g);

// {dx, dweight, dbias} of LayerNorm(x, weight, bias, eps) for the output's
// gradient g (x's dtype, device and shape): each row's mean and variance
// recomputed from x as the forward computes them.
absl::StatusOr<std::vector<Tensor>> LayerNormGrad(const Tensor& x, const Tensor& weight,
                                                  const Tensor& g, double eps);

}  // namespace eagervm::internal

#endif  // EAGERVM_OPS_GRAD_OPS_H_
