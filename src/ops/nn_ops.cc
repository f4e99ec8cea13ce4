// Gelu (erf form, or the tanh approximation) and LayerNorm over the last
// axis. Floating dtypes only.
#include <cmath>

#include "base/str_cat.h"
#include "eagervm/ops.h"
#include "ops/builtin.h"
#include "ops/op_checks.h"
#include "ops/op_util.h"
#include "ops/submit_op.h"

namespace eagervm::ops {

Tensor Gelu(const Tensor& x, bool tanh_approximation) {
  const internal::OpDef& def = EAGERVM_BUILTIN_OP(kGelu);
  absl::Status s = internal::CheckTensor(x, def.name, "x");
  if (s.ok()) s = internal::CheckFloating(x, def.name);
  if (!s.ok()) return Tensor::Error(std::move(s));
  return internal::SubmitOpWithOutput(def, x.dtype(), x.meta(), {&x}, {Scalar(tanh_approximation)});
}

Tensor LayerNorm(const Tensor& x, const Tensor& weight, const Tensor& bias, double eps) {
  const internal::OpDef& def = EAGERVM_BUILTIN_OP(kLayerNorm);
  absl::Status s = internal::CheckTensor(x, def.name, "x");
  if (s.ok()) s = internal::CheckTensor(weight, def.name, "weight");
  if (s.ok()) s = internal::CheckTensor(bias, def.name, "bias");
  if (s.ok()) s = internal::CheckFloating(x, def.name);
  if (!s.ok()) return Tensor::Error(std::move(s));
  if (x.dim() == 0) {
    return Tensor::Error(absl::InvalidArgumentError(
        "LayerNorm: argument 'x' is a scalar (shape []); it normalises over the last axis"));
  }
  const int64_t d = x.size(x.dim() - 1);
  for (const auto& [t, name] : {std::pair{&weight, "weight"}, std::pair{&bias, "bias"}}) {
    if (t->dtype() != x.dtype() || t->dim() != 1 || t->size(0) != d) {
      return Tensor::Error(absl::InvalidArgumentError(base::Cat(
          "LayerNorm: argument '", name, "' must be ", ToString(x.dtype()), " [", d,
          "] (the last axis of x ", x.shape(), "), got ", ToString(t->dtype()), " ", t->shape())));
    }
    if (t->device() != x.device()) {
      return Tensor::Error(absl::InvalidArgumentError(
          base::Cat("LayerNorm: argument '", name, "' is on ", t->device().ToString(),
                    " but x is on ", x.device().ToString(), "; use To()")));
    }
  }
  if (!(eps >= 0) || !std::isfinite(eps)) {
    return Tensor::Error(
        absl::InvalidArgumentError(base::Cat("LayerNorm: eps must be finite and >= 0, got ", eps)));
  }
  return internal::SubmitOpWithOutput(def, x.dtype(), x.meta(), {&x, &weight, &bias},
                                      {Scalar(eps)});
}

}  // namespace eagervm::ops
