// optim::Sgd and optim::Adam: in-place updates inside a NoGradGuard.
#include "eagervm/optim.h"

#include "autograd/capture_refusal.h"
#include "autograd/grad_node.h"
#include "base/str_cat.h"
#include "eagervm/autograd.h"
#include "eagervm/ops.h"
#include "eagervm/status_macros.h"
#include "ops/optim_ops.h"

namespace eagervm::optim {
namespace {

// The parameter's gradient if it has one (undefined: skip it), or why it
// cannot be updated.
absl::StatusOr<Tensor> GradOf(const Tensor& p, size_t i, const char* opt) {
  if (!p.ok() || !p.requires_grad() || internal::AutogradOf(p)->grad_fn != nullptr) {
    return absl::InvalidArgumentError(
        base::Cat(opt, "::Step: parameter ", i, " is not a leaf that requires grad",
                  p.ok() ? " (mark it with RequiresGrad())" : ": it is an error tensor: ",
                  p.ok() ? "" : p.status().message()));
  }
  Tensor g = p.grad();
  if (g.defined() && (!g.ok() || g.meta() != p.meta())) {
    return absl::InvalidArgumentError(base::Cat(opt, "::Step: the grad of parameter ", i,
                                                " does not match it (", g.shape(), " vs ",
                                                p.shape(), ")"));
  }
  return g;
}

// Every parameter's gradient (undefined: skip that parameter), checked all
// before any is updated, so a bad parameter leaves every one unchanged.
absl::StatusOr<std::vector<Tensor>> GradsOf(const std::vector<Tensor>& params, const char* opt) {
  std::vector<Tensor> grads;
  grads.reserve(params.size());
  for (size_t i = 0; i < params.size(); ++i) {
    absl::StatusOr<Tensor> g = GradOf(params[i], i, opt);
    if (!g.ok()) return g.status();
    grads.push_back(*std::move(g));
  }
  return grads;
}

std::vector<Tensor> ZerosLike(const std::vector<Tensor>& params) {
  std::vector<Tensor> out;
  for (const Tensor& p : params) out.push_back(Zeros(p.shape(), p.dtype(), p.device()));
  return out;
}

}  // namespace

Sgd::Sgd(std::vector<Tensor> params, double lr, double momentum, double weight_decay)
    : params_(std::move(params)), lr_(lr), momentum_(momentum), weight_decay_(weight_decay) {
  if (momentum_ == 0) return;
  momentum_buffers_ = ZerosLike(params_);
  for (const Tensor& p : params_) {
    const bool fusable = p.ok() && internal::HasFusedSgdKernel(p.device(), p.dtype(), true);
    momentum_hyper_.push_back(
        fusable ? internal::FusedHyperparameters(p.device(), p.dtype(), {momentum_}) : Tensor());
  }
}

absl::Status Sgd::Step() {
  // A refusal inside Graph::Capture fails the capture (capture_refusal.h).
  return internal::NotedInCapture([&]() -> absl::Status {
    EAGERVM_ASSIGN_OR_RETURN(const std::vector<Tensor> grads, GradsOf(params_, "Sgd"));
    autograd::NoGradGuard no_grad;
    for (size_t i = 0; i < params_.size(); ++i) {
      if (!grads[i].defined()) continue;
      const Tensor& p = params_[i];
      const bool momentum = momentum_ != 0;
      if (fused_ && (momentum ? momentum_hyper_[i].defined()
                              : internal::HasFusedSgdKernel(p.device(), p.dtype(), false))) {
        EAGERVM_RETURN_IF_ERROR(
            internal::SgdStep(p, grads[i], momentum ? &momentum_buffers_[i] : nullptr,
                              momentum ? &momentum_hyper_[i] : nullptr, lr_, weight_decay_));
        continue;
      }
      Tensor d = grads[i];
      if (weight_decay_ != 0) d = d + ops::MulScalar(p, weight_decay_);
      if (momentum_ != 0) {
        EAGERVM_RETURN_IF_ERROR(ops::MulScalarInplace(momentum_buffers_[i], momentum_));
        EAGERVM_RETURN_IF_ERROR(ops::AddInplace(momentum_buffers_[i], d));
        d = momentum_buffers_[i];
      }
      EAGERVM_RETURN_IF_ERROR(ops::Axpy(p, -lr_, d));
    }
    return absl::OkStatus();
  }());
}

Adam::Adam(std::vector<Tensor> params, double lr, double beta1, double beta2, double eps)
    : params_(std::move(params)), lr_(lr), beta1_(beta1), beta2_(beta2), eps_(eps) {
  m_ = ZerosLike(params_);
  v_ = ZerosLike(params_);
  for (const Tensor& p : params_) {
    size_t k = 0;
    while (k < beta1_pow_.size() &&
           (beta1_pow_[k].dtype() != p.dtype() || beta1_pow_[k].device() != p.device()))
      ++k;
    if (k == beta1_pow_.size()) {
      beta1_pow_.push_back(Full(Shape{}, 1.0, p.dtype(), p.device()));
      beta2_pow_.push_back(Full(Shape{}, 1.0, p.dtype(), p.device()));
      const bool fusable = p.ok() && internal::HasFusedAdamKernel(p.device(), p.dtype());
      betas_.push_back(fusable
                           ? internal::FusedHyperparameters(
                                 p.device(), p.dtype(), {beta1_, 1 - beta1_, beta2_, 1 - beta2_})
                           : Tensor());
    }
    group_.push_back(k);
  }
}

absl::Status Adam::Step() {
  // A refusal inside Graph::Capture fails the capture (capture_refusal.h).
  return internal::NotedInCapture([&]() -> absl::Status {
    EAGERVM_ASSIGN_OR_RETURN(const std::vector<Tensor> grads, GradsOf(params_, "Adam"));
    autograd::NoGradGuard no_grad;
    // Bias corrections as 0-d tensors (not host numbers), so a captured step
    // replays with the right step count.
    std::vector<Tensor> s1, r2;
    for (size_t k = 0; k < beta1_pow_.size(); ++k) {
      EAGERVM_RETURN_IF_ERROR(ops::MulScalarInplace(beta1_pow_[k], beta1_));
      EAGERVM_RETURN_IF_ERROR(ops::MulScalarInplace(beta2_pow_[k], beta2_));
      s1.push_back(lr_ / (1.0 - beta1_pow_[k]));           // the step size lr / (1 - beta1^t)
      r2.push_back(1.0 / ops::Sqrt(1.0 - beta2_pow_[k]));  // 1 / sqrt(1 - beta2^t)
    }
    for (size_t i = 0; i < params_.size(); ++i) {
      const Tensor& g = grads[i];
      if (!g.defined()) continue;
      const Tensor& p = params_[i];
      if (fused_ && betas_[group_[i]].defined()) {
        EAGERVM_RETURN_IF_ERROR(internal::AdamStep(p, g, m_[i], v_[i], s1[group_[i]], r2[group_[i]],
                                                   betas_[group_[i]], eps_));
        continue;
      }
      EAGERVM_RETURN_IF_ERROR(ops::MulScalarInplace(m_[i], beta1_));
      EAGERVM_RETURN_IF_ERROR(ops::Axpy(m_[i], 1 - beta1_, g));
      EAGERVM_RETURN_IF_ERROR(ops::MulScalarInplace(v_[i], beta2_));
      EAGERVM_RETURN_IF_ERROR(ops::Axpy(v_[i], 1 - beta2_, g * g));
      // p -= lr * (m / (1 - beta1^t)) / (sqrt(v / (1 - beta2^t)) + eps), as
      // (m / (sqrt(v) * r2 + eps)) * s1: one division per element.
      const Tensor denom = ops::AddScalar(ops::Sqrt(v_[i]) * r2[group_[i]], eps_);
      EAGERVM_RETURN_IF_ERROR(ops::SubInplace(params_[i], (m_[i] / denom) * s1[group_[i]]));
    }
    return absl::OkStatus();
  }());
}

}  // namespace eagervm::optim
