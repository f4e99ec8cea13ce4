// Optimizers (docs/autograd.md): update parameters from their grad() with
// in-place ops, so a step is ordinary queued work and can be captured in a
// Graph. State (momentum, Adam's moments and step count) lives in tensors
// made by the constructor, so a captured Step replays exactly as eager.
//
// Fused (the default): each parameter's update is one instruction (one
// kernel computing the same float operations in the same order as the
// unfused in-place ops, so results are bitwise equal) where its device has
// that kernel (CPU and CUDA: float32, float64); elsewhere, and with set_fused(false),
// Step queues the unfused in-place ops.
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
  // One fused instruction per parameter (default true) or the unfused ops.
  void set_fused(bool fused) { fused_ = fused; }
  bool fused() const { return fused_; }

 private:
  std::vector<Tensor> params_;
  std::vector<Tensor> momentum_buffers_;  // zeros; empty when momentum == 0
  // {momentum} in each parameter's dtype, for the fused update (undefined
  // where there is none); empty when momentum == 0.
  std::vector<Tensor> momentum_hyper_;
  double lr_, momentum_, weight_decay_;
  bool fused_ = true;
};

// Adam (Kingma and Ba), bias-corrected, as PyTorch's default Adam.
class EAGERVM_EXPORT Adam {
 public:
  Adam(std::vector<Tensor> params, double lr, double beta1 = 0.9, double beta2 = 0.999,
       double eps = 1e-8);
  [[nodiscard]] absl::Status Step();              // as Sgd::Step
  void set_fused(bool fused) { fused_ = fused; }  // as Sgd's
  bool fused() const { return fused_; }

 private:
  std::vector<Tensor> params_;
  std::vector<Tensor> m_, v_;  // first and second moments, zeros at first
  // beta1^t and beta2^t, one 0-d pair per dtype and device of the parameters
  // (updated in place each step); group_[i]: parameter i's pair.
  std::vector<Tensor> beta1_pow_, beta2_pow_;
  std::vector<size_t> group_;
  // {beta1, 1 - beta1, beta2, 1 - beta2} per pair, for the fused update
  // (undefined where there is none).
  std::vector<Tensor> betas_;
  double lr_, beta1_, beta2_, eps_;
  bool fused_ = true;
};

}  // namespace eagervm::optim

#endif  // EAGERVM_OPTIM_H_
