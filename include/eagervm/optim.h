// Optimizers (docs/autograd.md): update parameters from their grad() with
// in-place ops, so a step is ordinary queued work and can be captured in a
// Graph. State (momentum, Adam's moments and step count) lives in tensors
// made by the constructor, so a captured Step replays exactly as eager.
//
// Threads: one optimizer is used by one (user) thread at a time. The
// constructors and Step queue ops and never block (except for
// back-pressure); a parameter whose grad() is undefined is skipped.
#ifndef EAGERVM_OPTIM_H_
#define EAGERVM_OPTIM_H_

#include <vector>

#include "absl/status/status.h"
#include "eagervm/export.h"
#include "eagervm/tensor.h"

namespace eagervm::optim {

// p -= lr * buf, buf = momentum * buf + (grad + weight_decay * p)
// (PyTorch's SGD without dampening or Nesterov; buf starts at zero, so the
// first step is p -= lr * grad).
class EAGERVM_EXPORT Sgd {
 public:
  Sgd(std::vector<Tensor> params, double lr, double momentum = 0, double weight_decay = 0);
  // Queues the update of every parameter with a gradient. InvalidArgument
  // (nothing queued) for a parameter that is not a floating leaf requiring
  // grad, or a grad() that does not match its parameter.
  [[nodiscard]] absl::Status Step();
  void set_lr(double lr) { lr_ = lr; }
  double lr() const { return lr_; }

 private:
  std::vector<Tensor> params_;
  std::vector<Tensor> momentum_buffers_;  // zeros; empty when momentum == 0
  double lr_, momentum_, weight_decay_;
};

// Adam (Kingma and Ba), bias-corrected, as PyTorch's default Adam.
class EAGERVM_EXPORT Adam {
 public:
  Adam(std::vector<Tensor> params, double lr, double beta1 = 0.9, double beta2 = 0.999,
       double eps = 1e-8);
  [[nodiscard]] absl::Status Step();  // as Sgd::Step

 private:
  std::vector<Tensor> params_;
  std::vector<Tensor> m_, v_;  // first and second moments, zeros at first
  // beta1^t and beta2^t, one 0-d pair per dtype and device of the parameters
  // (updated in place each step); group_[i]: parameter i's pair.
  std::vector<Tensor> beta1_pow_, beta2_pow_;
  std::vector<size_t> group_;
  double lr_, beta1_, beta2_, eps_;
};

}  // namespace eagervm::optim

#endif  // EAGERVM_OPTIM_H_
